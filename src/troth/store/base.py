"""The store interface: saved scorer runs and the judge-call cache.

A Postgres store can implement the same :class:`Store` protocol.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from troth.store.browse import Browser
from troth.store.record import RunRecord, now

DEFAULT_PATH = Path(".troth") / "troth.db"
ENV_STORE = "TROTH_STORE"


class Store(Protocol):
    """Persistence for runs and cached judge calls."""

    def save_run(self, record: RunRecord) -> None: ...

    def get_run(self, run_id: str) -> RunRecord | None: ...

    def list_runs(
        self, *, eval_id: str | None = None, limit: int = 50, source: str | None = None, since: str | None = None
    ) -> list[RunRecord]: ...

    def completed(self, eval_id: str) -> dict[tuple[str, str], RunRecord]:
        """Successful runs of an evaluation keyed by ``(item_id, scorer_id)`` (for resuming)."""
        ...

    def cache_get(self, key: str) -> dict[str, Any] | None: ...

    def cache_put(self, key: str, model: str, value: dict[str, Any]) -> None: ...

    def flush(self) -> None:
        """Make every saved run durable (a store that buffers writes it out); StoreError if it cannot."""
        ...

    def unsaved(self) -> list[RunRecord]:
        """Runs saved into the store that are not durable yet (a buffering store whose write failed)."""
        ...

    def browse(self) -> Browser:
        """The listing queries (what the web UI shows), read-only."""
        ...

    def close(self) -> None: ...


__all__ = ["DEFAULT_PATH", "ENV_STORE", "RunRecord", "Store", "now"]
