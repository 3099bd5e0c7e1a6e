"""Which live calls are scored: a rate per scorer, drawn at random (seeded) or from the trace id
(so that every scorer, and every process, decides alike for one trace), and a rule that always
scores a flagged call."""

from __future__ import annotations

import hashlib
import random
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


def _rate(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a number between 0 and 1, not {value!r}")
    return float(value)


@dataclass
class Sampling:
    """``rate``: share of calls scored; ``per_scorer``: rates by scorer id; ``by_trace``: decide
    from a hash of the trace id (random, seeded by ``seed``, for calls without one);
    ``always``: a function of the call's record that, when true, scores it with every scorer."""

    rate: float = 1.0
    per_scorer: Mapping[str, float] = field(default_factory=dict)
    by_trace: bool = True
    always: Callable[[dict[str, Any]], bool] | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        self.rate = _rate(self.rate, "sampling rate")
        self.per_scorer = {k: _rate(v, f"sampling rate of {k!r}") for k, v in self.per_scorer.items()}
        if self.always is not None and not callable(self.always):
            raise TypeError("always must be a function of the call's record")
        self._rng = random.Random(self.seed)
        self._lock = threading.Lock()

    def draw(self, trace_id: str | None) -> float:
        """The call's position in [0, 1): from the trace id, else at random."""
        if self.by_trace and trace_id:
            digest = hashlib.sha256(trace_id.encode("utf-8", "surrogatepass")).digest()
            return int.from_bytes(digest[:8], "big") / 2**64
        with self._lock:
            return self._rng.random()

    def chosen(self, scorer_ids: list[str], record: dict[str, Any]) -> list[str]:
        """The scorers that score this call (one draw shared by all of them)."""
        if self.always is not None and self.always(record):
            return list(scorer_ids)
        position = self.draw(record.get("trace_id"))
        return [s for s in scorer_ids if position < self.per_scorer.get(s, self.rate)]


def as_sampling(value: Sampling | float | Mapping[str, float]) -> Sampling:
    """A Sampling from a rate, a mapping of rates by scorer id, or itself."""
    if isinstance(value, Sampling):
        return value
    if isinstance(value, Mapping):
        return Sampling(rate=0.0, per_scorer=value)
    return Sampling(rate=value)
