"""What a backend is built from: the model string split, and the judge's transport settings."""

from __future__ import annotations

from dataclasses import dataclass

from troth.judges.capabilities import StructuredMode


@dataclass(frozen=True)
class BackendOptions:
    """A judge's model string split (``provider``, ``name``), and its transport settings."""

    model: str
    provider: str
    name: str
    base_url: str | None = None
    api_key: str | None = None
    structured: StructuredMode | None = None
    timeout: float = 60.0
    max_retries: int = 4
