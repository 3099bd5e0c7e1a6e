"""One evaluation as an engine runs it, and what an engine is (the local runner is the default)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from troth.evals.results import ItemResult, OnItemComplete, ScorerEntry
from troth.ratelimit import RateLimit
from troth.store.base import Store


@dataclass
class EvalJob:
    """What ``run_evals`` hands an engine: checked scorers, the open store, the run's settings."""

    data: Any
    entries: list[ScorerEntry]
    target: Any
    on_item_complete: OnItemComplete | None
    store: Store | None
    eval_id: str
    concurrency: int
    rate_limit: RateLimit | None
    quiet: bool


@runtime_checkable
class Engine(Protocol):
    """Runs an :class:`EvalJob`: every item's result, stored as it finishes, failures as values."""

    async def run(self, job: EvalJob) -> list[ItemResult]: ...
