"""The evaluation runner: every item through its target (if needed) and every scorer.

Failures are values: an item whose target, scorer, context function or store write fails keeps
its error (type, message and step) and the run goes on; nothing one item raises stops the
others. One semaphore bounds the judge calls in flight across the run. Every scorer run is
saved to the store as it finishes, judge calls are cached there, and a re-run with the same
``eval_id`` scores only what is missing.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from troth._sync import run_sync
from troth.errors import ScorerRunError, TrothError
from troth.evals.dataset import check_target, load_items
from troth.evals.job import Engine, EvalJob
from troth.evals.progress import Progress
from troth.evals.records import result_from_record, to_record
from troth.evals.results import EvalResult, ItemError, ItemResult, OnItemComplete, ScorerEntry, summarise
from troth.judges.calls import CALL_SETTINGS, CallSettings
from troth.ratelimit import LocalPacer, RateLimit, check_rate_limit
from troth.scorers.base import Scorer
from troth.scorers.context import is_messages, tool_results
from troth.secrets import redact
from troth.store import Store, open_store
from troth.store.base import RunRecord, now
from troth.types import ScoreResult

log = logging.getLogger(__name__)


def scorer_entries(scorers: Any) -> list[ScorerEntry]:
    """Scorers, or ``{"scorer": s, "threshold": t}`` dicts, checked."""
    if isinstance(scorers, (Scorer, Mapping)):
        scorers = [scorers]
    entries = []
    for i, s in enumerate(scorers or []):
        if isinstance(s, Scorer):
            entries.append(ScorerEntry(s))
        elif isinstance(s, Mapping) and isinstance(s.get("scorer"), Scorer):
            t = s.get("threshold")
            if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float))):
                raise TypeError(f"scorers[{i}]['threshold'] must be a number")
            entries.append(ScorerEntry(s["scorer"], t))
        else:
            raise TypeError(f"scorers[{i}] must be a Scorer or {{'scorer': Scorer, 'threshold': float}}")
    if not entries:
        raise ValueError("no scorers given")
    ids = [e.scorer.id for e in entries]
    if len(set(ids)) != len(ids):
        raise ValueError(f"scorer ids must be unique, got {ids}")
    return entries


@runtime_checkable
class AsyncAgent(Protocol):
    def agenerate(self, value: Any) -> Any: ...


@runtime_checkable
class Agent(Protocol):
    def generate(self, value: Any) -> Any: ...


@runtime_checkable
class WithMessages(Protocol):
    messages: Any


@runtime_checkable
class WithText(Protocol):
    text: Any


async def call_target(target: Any, value: Any) -> Any:
    """The target's answer to ``value`` (a callable, or an object with .agenerate/.generate)."""
    if target is None:
        raise ValueError("the item has no 'output' and no target was given to produce one")
    if isinstance(target, AsyncAgent):
        out = target.agenerate(value)
    elif isinstance(target, Agent):
        out = target.generate(value)
    elif callable(target):
        out = target(value)
    else:
        raise TypeError("target must be a callable or have .generate / .agenerate")
    return await out if inspect.isawaitable(out) else out


def normalise_output(output: Any) -> Any:
    """A string or a chat transcript; objects with ``messages`` or ``text`` are unwrapped."""
    if isinstance(output, str) or is_messages(output):
        return output
    for value in (output.messages if isinstance(output, WithMessages) else None,
                  output.text if isinstance(output, WithText) else None):  # fmt: skip
        if isinstance(value, str) or is_messages(value):
            return value
    if isinstance(output, Mapping):
        for key in ("messages", "text", "output"):
            if isinstance(output.get(key), str) or is_messages(output.get(key)):
                return output[key]
    raise TypeError(f"target returned {type(output).__name__}; expected a string, chat messages, or .text/.messages")


class EvalRun:
    """One evaluation in progress: items, scorers, the store and what it already holds."""

    def __init__(
        self,
        entries: list[ScorerEntry],
        target: Any,
        on_item_complete: OnItemComplete | None,
        store: Store | None,
        eval_id: str,
        concurrency: int,
        progress: Progress,
    ) -> None:
        self.entries, self.target, self.on_item_complete = entries, target, on_item_complete
        self.store, self.eval_id, self.progress = store, eval_id, progress
        self.done: dict[tuple[str, str], RunRecord] = store.completed(eval_id) if store is not None else {}
        self.item_gate = asyncio.Semaphore(max(concurrency * 2, 4))

    async def item(self, item: dict[str, Any]) -> ItemResult:
        """One item: resumed results, the target's output if needed, then the missing scorers."""
        res = ItemResult(
            item["id"], item["input"], item["output"], item["context"], item["ground_truth"], item["metadata"]
        )
        try:
            return await self._item(item, res)
        except Exception as exc:  # a failure of this item's own handling: kept on the item, the run goes on
            res.errors["item"] = item_error(exc)
            return res

    async def _item(self, item: dict[str, Any], res: ItemResult) -> ItemResult:
        async with self.item_gate:
            todo = self.pending(item, res)
            res.resumed = len(todo) < len(self.entries)
            target_output = await self._target(item, res) if todo and item["output"] is None else None
            if item["context"] is None and is_messages(item["output"]):
                res.context = tool_results(item["output"]) or None
            if "target" not in res.errors:
                await asyncio.gather(*(self.score(e, item, res) for e in todo))
            self.progress.advance(res)
            await self._callback(res, target_output)
            return res

    def pending(self, item: dict[str, Any], res: ItemResult) -> list[ScorerEntry]:
        """The scorers this item still needs; the results of the others (from the store) put on ``res``."""
        todo = []
        for e in self.entries:
            record = self.done.get((item["id"], e.scorer.id))
            if record is None:
                todo.append(e)
            else:
                res.results[e.scorer.id] = result_from_record(record)
        return todo

    async def _target(self, item: dict[str, Any], res: ItemResult) -> Any:
        try:
            target_output = await call_target(self.target, item["input"])
            item["output"] = res.output = normalise_output(target_output)
            return target_output
        except Exception as exc:  # the item fails, the run goes on
            res.errors["target"] = item_error(exc, "target")
            return None

    async def _callback(self, res: ItemResult, target_output: Any) -> None:
        await item_complete(self.on_item_complete, res, target_output)

    async def score(self, entry: ScorerEntry, item: dict[str, Any], res: ItemResult) -> None:
        """One scorer on one item; its result or error kept on ``res`` and saved to the store."""
        scored = await score_and_save(entry.scorer, item, self.store, self.eval_id)
        if scored.result is not None:
            res.results[entry.scorer.id] = scored.result
        if scored.error is not None:
            res.errors[entry.scorer.id] = scored.error
        if scored.store_error is not None:
            res.errors["store"] = scored.store_error


@dataclass(frozen=True)
class Scored:
    """One scorer run: its result or error, and the error of saving it (None when saved or not kept)."""

    result: ScoreResult | None
    error: ItemError | None
    store_error: ItemError | None = None


async def score_and_save(
    scorer: Scorer, item: dict[str, Any], store: Store | None, eval_id: str | None, *,
    source: str = "eval", trace_id: str | None = None,
) -> Scored:  # fmt: skip
    """Run ``scorer`` on ``item`` and save the record; nothing raised: failures come back as values
    (user steps and context functions may raise anything; a store may be full, locked, read-only)."""
    started, clock = now(), time.perf_counter()
    result, error = None, None
    try:
        result = await scorer.arun(item["input"], item["output"], context=item["context"],
                                   ground_truth=item.get("ground_truth"), metadata=item["metadata"])  # fmt: skip
    except Exception as exc:
        error = item_error(exc)
    if store is None:
        return Scored(result, error)
    try:
        latency = time.perf_counter() - clock
        record = to_record(eval_id, item, scorer, result, error, started, source=source, latency_s=latency,
                           trace_id=trace_id)  # fmt: skip
    except Exception as exc:
        return Scored(result, error, item_error(exc, "store"))
    return Scored(result, error, save_record(store, record))


def save_record(store: Store, record: RunRecord) -> ItemError | None:
    """Save one record; a store that fails (full, locked, read-only) gives the error as a value."""
    try:
        store.save_run(record)
    except Exception as exc:
        return item_error(exc, "store")
    return None


async def item_complete(callback: OnItemComplete | None, res: ItemResult, target_output: Any) -> None:
    """The user's ``on_item_complete``; what it raises is kept on the item."""
    if callback is None:
        return
    try:
        out = callback(res, target_output, dict(res.results))
        if inspect.isawaitable(out):
            await out
    except Exception as exc:
        res.errors["on_item_complete"] = item_error(exc, "on_item_complete")


def item_error(exc: BaseException, step: str | None = None) -> ItemError:
    """The error an item keeps: the cause of a scorer step's failure, with the step it failed in."""
    if isinstance(exc, ScorerRunError):
        cause = exc.__cause__ or exc
        return ItemError(type(cause).__name__, redact(str(cause)), exc.failed_step)
    found = exc.step if isinstance(exc, TrothError) else None
    return ItemError(type(exc).__name__, redact(str(exc)), step or found)


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


def new_eval_id() -> str:
    """A fresh evaluation id (``eval-`` and 12 hex digits)."""
    return f"eval-{uuid.uuid4().hex[:12]}"


async def arun_evals(
    data: Any,
    scorers: Any,
    target: Any = None,
    on_item_complete: OnItemComplete | None = None,
    *,
    concurrency: int = 8,
    eval_id: str | None = None,
    store: Any = True,
    cache: bool = True,
    quiet: bool = False,
    rate_limit: RateLimit | None = None,
    engine: Engine | None = None,
) -> EvalResult:
    """Score every item with every scorer; see :func:`run_evals`."""
    entries = scorer_entries(scorers)
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be a positive integer, not {concurrency!r}")
    if engine is not None and not isinstance(engine, Engine):
        raise TypeError(f"engine must be an engine such as troth.RayEngine(), not {type(engine).__name__}")
    limit = check_rate_limit(rate_limit)
    items = load_items(data) if engine is None else None
    if items is not None:
        check_target(items, target)
    judges = [judge for entry in entries for judge in entry.scorer.judges()]
    for judge in judges:
        judge.backend()  # configuration errors before any work
    kept: Store | None = open_store(store)
    job = EvalJob(data, entries, target, on_item_complete, kept, eval_id or new_eval_id(), concurrency, limit, quiet)
    started_at = time.perf_counter()
    try:
        results = await (engine.run(job) if engine is not None else run_local(job, items or [], cache=cache))
        if kept is not None:
            kept.flush()
    except BaseException:
        if kept is not None:  # interrupted: what was scored is written, for a resume
            with contextlib.suppress(Exception):
                kept.flush()
        raise
    finally:
        for judge in judges:
            await judge.aclose()
        if kept is not None and store is not kept:
            kept.close()
    return EvalResult(job.eval_id, list(results), summarise(results, entries, time.perf_counter() - started_at))


async def run_local(job: EvalJob, items: list[dict[str, Any]], *, cache: bool) -> list[ItemResult]:
    """The local engine: every item in this process, under one semaphore (and one pacer)."""
    call_cache = BestEffortCache(job.store) if cache and job.store is not None else None
    pacer = LocalPacer(job.rate_limit) if job.rate_limit is not None else None
    settings = CallSettings(cache=call_cache, limiter=asyncio.Semaphore(job.concurrency), pacer=pacer)
    token = CALL_SETTINGS.set(settings)
    progress = Progress(len(items), job.quiet)
    run = EvalRun(job.entries, job.target, job.on_item_complete, job.store, job.eval_id, job.concurrency, progress)
    try:
        with progress:
            return list(await asyncio.gather(*(run.item(it) for it in items)))
    finally:
        CALL_SETTINGS.reset(token)


def run_evals(
    data: Any,
    scorers: Any,
    target: Any = None,
    on_item_complete: OnItemComplete | None = None,
    *,
    concurrency: int = 8,
    eval_id: str | None = None,
    store: Any = True,
    cache: bool = True,
    quiet: bool = False,
    rate_limit: RateLimit | None = None,
    engine: Engine | None = None,
) -> EvalResult:
    """Score every item of ``data`` with every scorer (sync wrapper over :func:`arun_evals`).

    ``data``: a list of dicts (``input`` and/or ``output``, optional ``id``, ``context``,
    ``ground_truth``, ``metadata``), a .jsonl/.csv path, or a pandas DataFrame. ``scorers``:
    Scorers or ``{"scorer": s, "threshold": t}``. ``target``: produces the output of items that
    have none (a sync/async callable, or an object with ``.generate``/``.agenerate``).
    ``concurrency`` bounds judge calls in flight across the run. ``store``: True for
    ``$TROTH_STORE`` or ``./.troth/troth.db``, a path, a Store, or None to keep nothing.
    ``cache`` replays identical judge calls from the store. Reusing an ``eval_id`` resumes.
    ``rate_limit``: a :class:`~troth.RateLimit` every judge call of the run keeps to.
    ``engine``: where items are scored (default: this process; ``troth.RayEngine()``: a Ray
    cluster, with ``data`` also a .jsonl or Parquet path read there).
    """
    options = {"concurrency": concurrency, "eval_id": eval_id, "store": store, "cache": cache, "quiet": quiet,
               "rate_limit": rate_limit, "engine": engine}  # fmt: skip
    return run_sync(lambda: arun_evals(data, scorers, target, on_item_complete, **options))
