"""The local engine (the default): every item scored in this process, under one semaphore for
the judge calls in flight (and one pacer for a rate limit), each saved as it finishes, and the
store used as the judge-call cache. A re-run with the same eval id scores only what is missing.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from troth import telemetry
from troth.engines.base import EvalJob
from troth.engines.item import evaluations_of, item_complete, judged_span, save_outcome, score_item
from troth.engines.resume import Done, check_resume, split_done, stored_hashes
from troth.engines.targets import check_runnable
from troth.evals.dataset import check_target, load_items
from troth.evals.eval_result import ItemResult
from troth.evals.item import Item
from troth.evals.progress import Progress
from troth.evals.records import result_from_record
from troth.judges.run_settings import RUN_SETTINGS, RunSettings
from troth.ratelimit import LocalPacer
from troth.store.base import RunRecord, Store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LocalEngine:
    """Score in this process (what ``run_evals`` does when no engine is given)."""

    def source(self, data: Any, target: Any) -> list[Item]:
        items = load_items(data)
        check_target(items, target)
        check_runnable(target)
        return items

    async def run(self, job: EvalJob) -> list[ItemResult]:
        items: list[Item] = job.data
        cache = BestEffortCache(job.store) if job.cache and job.store is not None else None
        pacer = LocalPacer(job.rate_limit) if job.rate_limit is not None else None
        progress = Progress(len(items), job.quiet)
        token = RUN_SETTINGS.set(RunSettings(cache, asyncio.Semaphore(job.concurrency), pacer, progress.waiting))
        done = job.store.completed(job.eval_id) if job.store is not None else {}
        hashes = stored_hashes(done)
        check_resume(job.resume, job.entries, items, hashes, job.eval_id)
        gate = asyncio.Semaphore(max(job.concurrency * 2, 4))
        try:
            with progress, telemetry.span("evaluate", {"troth.eval.id": job.eval_id, "troth.eval.items": len(items)}):
                scoring = (self._item(job, it, (done, hashes), gate, progress) for it in items)
                return list(await asyncio.gather(*scoring))
        finally:
            RUN_SETTINGS.reset(token)

    async def _item(
        self,
        job: EvalJob,
        item: Item,
        stored: tuple[dict[tuple[str, str], RunRecord], Done],
        gate: asyncio.Semaphore,
        progress: Progress,
    ) -> ItemResult:
        done, hashes = stored
        async with gate:
            todo, resumed, changed = split_done(job.entries, item, hashes)
            with telemetry.item_span(job.eval_id, item.id):
                outcome = await score_item(
                    item, todo, target=job.target, eval_id=job.eval_id, keep_records=job.store is not None
                )
                telemetry.emit(evaluations_of(outcome, job.entries, todo), judged_span(item))
            outcome.resumed, outcome.rescored = resumed, changed
            if job.store is not None:
                save_outcome(job.store, outcome)
            res = outcome.item_result({sid: result_from_record(done[(item.id, sid)]) for sid in outcome.resumed})
            progress.advance(res)
            await item_complete(job.on_item_complete, res, outcome)
            return res


class BestEffortCache:
    """The store as the judge-call cache: a read or write that fails is a miss, logged once."""

    def __init__(self, store: Store) -> None:
        self.store, self.failures = store, 0

    def cache_get(self, key: str) -> dict[str, Any] | None:
        try:
            return self.store.cache_get(key)
        except Exception as exc:
            self._failed(exc)
            return None

    def cache_put(self, key: str, model: str, value: dict[str, Any]) -> None:
        try:
            self.store.cache_put(key, model, value)
        except Exception as exc:
            self._failed(exc)

    def _failed(self, exc: Exception) -> None:
        self.failures += 1
        if self.failures == 1:
            log.warning("the judge-call cache is unavailable (%s: %s); calls go to the judge", type(exc).__name__, exc)
