"""The scoring side of a Monitor, in a thread of the app's process or in a process of its own.

:func:`serve` takes queued calls off a queue (``get_nowait``) with at most ``concurrency``
scored at once, scores and stores each with every chosen scorer, and reports what each scorer
run came to (scored or not, cost, judge calls) through its ``hooks``. Nothing it does raises.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import queue
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from troth import telemetry
from troth.engines.item import save_outcome, score_item
from troth.evals.eval_result import ItemError
from troth.evals.item import Item
from troth.prices import total_cost
from troth.scorers.base import Scorer
from troth.scorers.inputs import validate_context
from troth.store import Store
from troth.telemetry import Evaluation, SpanRef

log = logging.getLogger("troth.live.monitor")
STOP = "stop"  # put on a queue after the last call: the worker drains what it has and ends
IDLE_MIN, IDLE_MAX = 0.005, 0.05  # seconds between looks at an empty queue
FLUSH = "flush"  # the worker writes out its store (a process's own store) and says so
NICENESS = 10
"""How much lower the scoring's CPU priority is than the app's: where the two compete for a core,
the app's requests go first and scoring waits (it is queued work; its queue bounds the wait)."""


def yield_cpu() -> None:
    """Lower the CPU priority of the calling thread and the threads it starts by :data:`NICENESS`
    on Linux (priority is per thread there); elsewhere, called from a scoring process's main
    thread, of that process; otherwise nothing (a thread's priority would be the whole app's)."""
    if sys.platform.startswith("linux"):
        tid = threading.get_native_id()
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, tid, min(os.getpriority(os.PRIO_PROCESS, tid) + NICENESS, 19))
    elif threading.current_thread() is threading.main_thread() and hasattr(os, "nice"):
        os.nice(NICENESS)


@dataclass
class Job:
    """One sampled call: the record and the ids of the scorers chosen for it."""

    record: dict[str, Any]
    scorer_ids: list[str]
    key: int = 0
    span: SpanRef | None = None  # the span current when the call happened (with an exporter)


@dataclass(frozen=True)
class Tally:
    """What one scorer run on a call came to; as an evaluation result, with the span it belongs to."""

    scored: bool
    cost: float | None
    calls: int
    evaluation: Evaluation | None = None
    span: SpanRef | None = None


class ScoringWorker(Protocol):
    """Where a Monitor's calls are scored: a thread of the app's process
    (:class:`~troth.live.threaded.ScoringThread`) or a process of its own
    (:class:`~troth.live.process.ScoringProcess`)."""

    def put(self, job: Job) -> None:
        """Queue a call without waiting; queue.Full when the queue is full."""

    def qsize(self) -> int: ...

    def flush_store(self, timeout: float | None) -> bool:
        """Write out the store once the queued calls are scored; True once written."""

    def stop(self, timeout: float) -> bool:
        """Stop after what is queued (bounded by ``timeout``); True when the worker has ended."""


class JobSource(Protocol):
    """A queue.Queue or a multiprocessing queue of jobs and markers."""

    def get_nowait(self) -> Job | str: ...

    def empty(self) -> bool: ...


class Hooks(Protocol):
    """Where the worker tells what it does: a call taken, a call done, a marker read (True: stop)."""

    def taken(self, job: Job) -> None: ...

    def done(self, job: Job, outcomes: list[Tally]) -> None: ...

    def marker(self, marker: str) -> bool: ...


async def serve(
    scorers: list[Scorer],
    store: Store | None,
    concurrency: int,
    source: JobSource,
    hooks: Hooks,
    closing: Callable[[], bool],
) -> None:
    """Score jobs until a marker says stop (or ``closing()``) and the queue is empty; close the judges."""
    gate = asyncio.Semaphore(concurrency)
    tasks: set[asyncio.Task[None]] = set()
    by_id = {s.id: s for s in scorers}
    stopped, idle = False, IDLE_MIN
    while not ((stopped or closing()) and not tasks and source.empty()):
        await gate.acquire()  # a free slot first: a call waits in the queue, where it is counted
        try:
            job = source.get_nowait()
        except queue.Empty:
            gate.release()
            await asyncio.sleep(idle)  # idle: look less often, up to IDLE_MAX (few wake-ups beside the app)
            idle = min(idle * 2, IDLE_MAX)
            continue
        idle = IDLE_MIN
        if not isinstance(job, Job):
            stopped = hooks.marker(job) or stopped
            gate.release()
            continue
        hooks.taken(job)
        task = asyncio.create_task(_score(job, [by_id[i] for i in job.scorer_ids], store, hooks))
        tasks.add(task)
        task.add_done_callback(functools.partial(_finished, tasks, gate))
    for judge in {id(j): j for s in scorers for j in s.judges()}.values():
        await judge.aclose()


async def _score(job: Job, scorers: list[Scorer], store: Store | None, hooks: Hooks) -> None:
    try:
        with telemetry.attached(job.span):  # the judge calls' spans under the watched call's
            tallies = await _tallies(job, scorers, store)
    except Exception:  # nothing the worker does reaches the app
        log.exception("troth monitor could not score a call")
        tallies = [Tally(False, None, 0) for _ in scorers]
    try:
        hooks.done(job, tallies)
    except Exception:
        log.exception("troth monitor could not report a scored call")


async def _tallies(job: Job, scorers: list[Scorer], store: Store | None) -> list[Tally]:
    """The call scored and stored (as the evaluations' items are); what each scorer run came to."""
    rec = job.record
    outcome = await score_item(
        call_item(rec), scorers, keep_records=store is not None, source="live", trace_id=rec["trace_id"]
    )
    if store is not None:
        save_outcome(store, outcome)
    if (error := outcome.errors.get("store")) is not None:
        log.warning("troth monitor could not store a score: %s: %s", error.type, error.message)
    found = telemetry.evaluations(outcome.results, outcome.errors, job.scorer_ids, {}, rec["metadata"])
    named = {e.name: e for e in found}
    tallies = []
    for scorer in scorers:
        result, evaluation = outcome.results.get(scorer.id), named.get(scorer.id)
        if result is None:
            tallies.append(Tally(False, None, 0, evaluation, job.span))
        else:
            usage = result.usage.values()
            tallies.append(Tally(True, total_cost(usage), sum(u.calls for u in usage), evaluation, job.span))
    return tallies


def _finished(tasks: set[asyncio.Task[None]], gate: asyncio.Semaphore, task: asyncio.Task[None]) -> None:
    tasks.discard(task)
    gate.release()


def call_item(rec: dict[str, Any]) -> Item:
    """A watched call as an item, its id the trace id; a context of the wrong type fails it as data."""
    try:
        context, error = validate_context(rec["context"]), None
    except TypeError as exc:
        context, error = None, ItemError("TypeError", str(exc), "data")
    return Item(rec["trace_id"], rec["input"], rec["output"], context, None, rec["metadata"], error)
