"""A judge's settings, made and checked once: :class:`JudgeConfig` (as inspect_ai's
``GenerateConfig`` is). The model string is validated and routed to its provider here, and the
backend is built from the config itself."""

from __future__ import annotations

from dataclasses import dataclass, field

from troth.judges.base import Backend
from troth.judges.capabilities import StructuredMode
from troth.judges.registry import backend_module, check_installed, route


@dataclass(frozen=True)
class JudgeConfig:
    """Everything a :class:`~troth.judges.judge.Judge` is configured with; ``provider`` and
    ``name`` are the model string routed (:func:`~troth.judges.registry.route`), or given when a
    backend object is supplied (provider ``"custom"``)."""

    model: str
    instructions: str | None = None
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    temperature: float = 0.0
    max_tokens: int | None = None
    max_tokens_limit: int | None = None
    timeout: float = 60.0
    max_retries: int = 4
    output_retries: int = 2
    structured_output: StructuredMode | None = None
    seed: int | None = None
    rate_limit_wait: float = 120.0
    yes_threshold: float | None = None
    uncertain_band: tuple[float, float] | None = None
    provider: str = ""
    name: str = ""

    def __post_init__(self) -> None:
        _check(self)
        if not self.provider:  # routed once; a missing extra of an in-process backend fails here
            provider, name = route(self.model, self.base_url)
            check_installed(provider)
            object.__setattr__(self, "provider", provider)
            object.__setattr__(self, "name", name)


def build_backend(config: JudgeConfig) -> Backend:
    """The backend ``config`` routes to, built from it (the module's ``from_options``)."""
    backend: Backend = backend_module(config.provider).from_options(config)
    return backend


def _check(c: JudgeConfig) -> None:
    """TypeError/ValueError naming the first argument out of range."""
    if not isinstance(c.model, str) or not c.model.strip():
        raise TypeError(f"model must be a non-empty string, not {c.model!r}")
    if c.timeout <= 0:
        raise ValueError(f"timeout must be > 0, not {c.timeout!r}")
    if c.yes_threshold is not None and not 0.0 < c.yes_threshold < 1.0:
        raise ValueError(f"yes_threshold must be between 0 and 1, not {c.yes_threshold!r}")
    if c.max_retries < 0 or c.output_retries < 0:
        raise ValueError("max_retries and output_retries must be >= 0")
    if c.max_tokens is not None and (
        c.max_tokens <= 0 or (c.max_tokens_limit is not None and c.max_tokens_limit < c.max_tokens)
    ):
        raise ValueError("max_tokens must be > 0 and no larger than max_tokens_limit")
    wait = c.rate_limit_wait
    if isinstance(wait, bool) or not isinstance(wait, (int, float)) or wait < 0:
        raise ValueError(f"rate_limit_wait must be a number of seconds >= 0, not {wait!r}")
    _check_band(c.uncertain_band)


def _check_band(band: object) -> None:
    if band is None:
        return
    if not isinstance(band, tuple) or len(band) != 2 or not all(isinstance(x, (int, float)) for x in band):
        raise TypeError(f"uncertain_band must be a (low, high) pair of probabilities, not {band!r}")
    if not 0.0 <= band[0] < band[1] <= 1.0:
        raise ValueError(f"uncertain_band must satisfy 0 <= low < high <= 1, not {band!r}")
