"""Run an evaluation on a Ray cluster: Ray Data reads the items, an actor pool scores them.

Each actor builds the scorers once (a local model loads once per actor; an HTTP judge keeps
``concurrency_per_worker`` calls in flight). Outcomes stream back to this process, which saves
their records in the run's store, resumes by eval id and shows progress, as the local runner
does. An actor that dies is restarted by Ray and its batch scored again; an item that comes
back twice is kept once. A rate limit is one actor that every worker books its calls with.
Ray is imported only when a run starts.
"""

from __future__ import annotations

import asyncio
import logging
import pickle
import time
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from troth import telemetry
from troth.engines.base import EvalJob
from troth.engines.item import Outcome, evaluations_of, item_complete, judged_span, save_outcome
from troth.engines.resume import Done, check_resume, stored_hashes
from troth.engines.targets import check_runnable
from troth.engines.worker import JSONL, ROWS, TABLE, ScoreWorker, WorkerSpec
from troth.errors import ConfigError
from troth.evals.dataset import check_target, load_items
from troth.evals.eval_result import ItemError, ItemResult
from troth.evals.item import Item
from troth.evals.progress import Progress
from troth.evals.records import result_from_record
from troth.extras import load, require
from troth.ratelimit import Pace, RateLimit, keep_slot, late_after
from troth.store.base import RunRecord


def import_ray() -> Any:
    """The ``ray`` module (with ``ray.data``), or MissingDependencyError with the install command."""
    load("ray.data", "ray")
    return load("ray", "ray")


@dataclass(frozen=True)
class RayEngine:
    """Score on Ray: ``run_evals(data, scorers, engine=RayEngine(workers=4))``.

    ``address``: None starts a local cluster (or joins ``$RAY_ADDRESS``), "auto" joins the one
    running here, "ray://host:10001" a remote one; an already initialised Ray is used as it is.
    ``workers``: scoring actors; ``concurrency_per_worker``: judge calls in flight per actor;
    ``batch_size``: items per batch an actor scores at once (default: 2 x concurrency, at least 16).
    """

    address: str | None = None
    workers: int = 2
    concurrency_per_worker: int = 8
    batch_size: int | None = None
    cpus_per_worker: float = 1.0

    def __post_init__(self) -> None:
        require("ray")
        for name in ("workers", "concurrency_per_worker", "batch_size"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ValueError(f"RayEngine.{name} must be a positive integer, not {value!r}")
        if isinstance(self.cpus_per_worker, bool) or not isinstance(self.cpus_per_worker, (int, float)):
            raise ValueError(f"RayEngine.cpus_per_worker must be a number, not {self.cpus_per_worker!r}")

    def source(self, data: Any, target: Any) -> Source:
        """A file or folder for the cluster to read, or the items checked here."""
        return Source.of(data, target)

    async def run(self, job: EvalJob) -> list[ItemResult]:
        """Every item of ``job`` scored on the cluster; records saved here as outcomes arrive."""
        ray = import_ray()
        source: Source = job.data
        started_here = self._connect(ray)
        pace = None
        try:
            done = job.store.completed(job.eval_id) if job.store is not None else {}
            hashes = stored_hashes(done)
            if job.resume == "strict" and hashes and source.items is None:
                raise ConfigError("resume strict checks the items before any work: on Ray, pass them as a list")
            check_resume(job.resume, job.entries, source.items or [], hashes, job.eval_id)
            pacer = None
            if job.rate_limit is not None:
                pace = ray.remote(num_cpus=0)(PaceActor).remote(job.rate_limit, time.time)
                pacer = RayPacer(pace, job.rate_limit)
            scored = self._map(ray, source, job, hashes, pacer)
            total = len(source.items) if source.items is not None else None
            with telemetry.span("evaluate", {"troth.eval.id": job.eval_id, "troth.engine": "ray"}):
                return await Collector(job, done, total).collect(scored)
        finally:
            if pace is not None:
                ray.kill(pace)
            if started_here:
                ray.shutdown()

    def _connect(self, ray: Any) -> bool:
        """Join or start a cluster unless Ray is initialised already; True if started here."""
        ray.data.DataContext.get_current().enable_progress_bars = False  # troth shows its own
        logging.getLogger("ray.data").setLevel(logging.WARNING)
        if ray.is_initialized():
            return False
        options: dict[str, Any] = {"address": self.address, "logging_level": logging.WARNING}
        if self.address is None:
            options["include_dashboard"] = False
        ray.init(**options)
        return True

    def _map(self, ray: Any, source: Source, job: EvalJob, done: Done, pacer: RayPacer | None) -> Any:
        spec = WorkerSpec(job.entries, job.target, job.eval_id, self.concurrency_per_worker, source.kind)
        try:
            blob = ray.cloudpickle.dumps(spec)
        except Exception as exc:
            raise TypeError(f"the scorers and target must pickle to run on Ray ({type(exc).__name__}: {exc})") from exc
        return source.dataset(ray).map_batches(
            ScoreWorker,
            fn_constructor_args=(blob, done, pacer),
            compute=ray.data.ActorPoolStrategy(size=self.workers),
            batch_size=self.batch_size or max(16, 2 * self.concurrency_per_worker),
            batch_format="pyarrow",
            num_cpus=self.cpus_per_worker,
        )  # (Ray Data restarts a dead actor and retries its batch by default)


@dataclass(frozen=True)
class Source:
    """Where a Ray run's rows come from: a file or folder read on the cluster, or checked items."""

    kind: str  # worker.JSONL, worker.TABLE or worker.ROWS
    path: str | None = None
    items: list[Item] | None = None

    @classmethod
    def of(cls, data: Any, target: Any) -> Source:
        """``data`` checked before any cluster starts (a missing file, a bad row, no target)."""
        if isinstance(data, (str, Path)):
            path = str(data)
            if "://" not in path:
                if not Path(path).exists():
                    raise ValueError(f"cannot read {path}: no such file or folder")
                path = str(Path(path).resolve())  # the cluster's workers run in folders of their own
            if path.endswith(".jsonl"):
                return cls(JSONL, path)
            if path.endswith(".parquet") or Path(path).is_dir() or "://" in path:  # a bucket: Parquet
                return cls(TABLE, path)
            raise ValueError(f"{path}: the Ray engine reads .jsonl files and Parquet files or folders")
        items = load_items(data)
        check_target(items, target)
        check_runnable(target)
        return cls(ROWS, items=items)

    def dataset(self, ray: Any) -> Any:
        if self.kind == JSONL:
            return ray.data.read_text(self.path)
        if self.kind == TABLE:
            return ray.data.read_parquet(self.path)
        return ray.data.from_items([{"row": pickle.dumps(it)} for it in self.items or []])


class PaceActor(Pace):
    """The run's one :class:`Pace`, as a Ray actor."""

    def ready(self) -> bool:
        """Nothing booked: a worker's first call, so that its link to the actor is up."""
        return True


class RayPacer:
    """A worker's view of the run's rate limit: a wall-clock start booked with the one Pace actor.
    A worker's first reply from the actor comes late (0.16 s measured on 2 cores): the link is
    made with :meth:`PaceActor.ready` before the first booking. A start passed all the same (the
    worker's loop was busy) is booked again (:func:`troth.ratelimit.keep_slot`)."""

    def __init__(self, handle: Any, limit: RateLimit) -> None:
        self.handle, self.late = handle, late_after(limit)
        self.linked = False

    async def wait(self, tokens: int) -> None:
        if not self.linked:
            await self.handle.ready.remote()
            self.linked = True

        async def book() -> float:
            return float(await self.handle.book.remote(tokens))

        await keep_slot(book, time.time, self.late)


class Collector:
    """This process's side: outcomes in, records saved, item results out (each item once)."""

    def __init__(self, job: EvalJob, done: dict[tuple[str, str], RunRecord], total: int | None) -> None:
        self.job, self.done = job, done
        self.progress = Progress(total, job.quiet)
        self.seen: dict[str, ItemResult] = {}  # item id -> the result kept for it
        self.results: list[ItemResult] = []

    async def collect(self, scored: Any) -> list[ItemResult]:
        batches = iter(scored.iter_batches(batch_size=None, batch_format="numpy"))
        try:
            with self.progress:
                while (batch := await asyncio.to_thread(next, batches, None)) is not None:
                    for blob in batch["outcome"]:
                        await self.add(pickle.loads(blob))
        finally:  # interrupted: stop the cluster's work on this run now, not when collected
            if isinstance(batches, Generator):
                batches.close()
        return self.results

    async def add(self, outcome: Outcome) -> None:
        item = outcome.item
        first = self.seen.get(item.id)
        again = first is not None and (first.input, first.context, first.metadata) == (
            item.input,
            item.context,
            dict(item.metadata),
        )
        if again:
            return  # the same item again: a batch scored again after a worker died
        if first is not None:
            res = outcome.item_result()
            res.results, res.resumed = {}, False
            res.errors = {"data": ItemError("ValueError", f"duplicate id {res.id!r}", "data")}
            res.id = f"{res.id} (duplicate {len(self.results)})"
        else:
            if self.job.store is not None:
                save_outcome(self.job.store, outcome)
            self.emit(outcome)
            earlier = {sid: result_from_record(self.done[(item.id, sid)]) for sid in outcome.resumed}
            res = outcome.item_result(earlier)
            self.seen[res.id] = res
        self.progress.advance(res)
        outcome.target_output = item.output
        await item_complete(self.job.on_item_complete, res, outcome)
        self.results.append(res)

    def emit(self, outcome: Outcome) -> None:
        """The item's evaluation results, under a span of its own (its judge calls ran on the cluster)."""
        if telemetry.active() is None:
            return
        scored = [e.scorer for e in self.job.entries if e.scorer.id not in outcome.resumed]
        with telemetry.item_span(self.job.eval_id, outcome.item.id):
            telemetry.emit(evaluations_of(outcome, self.job.entries, scored), judged_span(outcome.item))
