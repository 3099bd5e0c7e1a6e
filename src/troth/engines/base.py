"""What an engine is, and the evaluation it runs: the :class:`Engine` protocol and the
:class:`EvalJob` that ``run_evals`` hands it (the local engine is the default)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from troth.evals.entries import ScorerEntry
from troth.evals.eval_result import ItemResult, OnItemComplete
from troth.ratelimit import RateLimit
from troth.store.base import Store


@dataclass
class EvalJob:
    """What ``run_evals`` hands an engine: the data as the engine's :meth:`Engine.source` read
    it, checked scorers, the open store, the run's settings."""

    data: Any
    entries: list[ScorerEntry]
    target: Any
    on_item_complete: OnItemComplete | None
    store: Store | None
    eval_id: str
    concurrency: int
    rate_limit: RateLimit | None
    quiet: bool
    cache: bool = True
    resume: str = "rescore"  # or "strict": refuse when an item changed since it was scored


@runtime_checkable
class Engine(Protocol):
    """Runs an :class:`EvalJob`: every item's result, stored as it finishes, failures as values.

    An engine scores each item with :func:`troth.engines.item.score_item` and saves it with
    :func:`troth.engines.item.save_outcome`, wherever it runs them.
    """

    def source(self, data: Any, target: Any) -> Any:
        """``data`` checked and read as this engine reads it (a bad row, a missing file, no
        target for an item without output: an error before any store or cluster opens)."""
        ...

    async def run(self, job: EvalJob) -> list[ItemResult]: ...
