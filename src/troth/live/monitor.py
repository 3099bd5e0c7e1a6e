"""Scoring live traffic off the request path: a watched function's calls are sampled, queued
without blocking, and scored by a background worker; every score (or failure) is stored with
``source="live"``, its trace id, latency and cost.

The watched function never waits for a judge and never sees a scorer's exception: recording is a
non-blocking enqueue, a full queue drops the call and counts it, and everything the worker does
is caught and stored or counted.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal, TypeVar

from troth import telemetry
from troth.agents.run import AgentRun
from troth.evals.entries import scorer_entries
from troth.live.budget import Budget
from troth.live.exit import ExitFlush
from troth.live.process import ScoringProcess
from troth.live.sampling import Sampling, as_sampling
from troth.live.scoring import Job, ScoringWorker, Tally
from troth.live.threaded import ScoringThread
from troth.live.watch import Pick, Picks, watched
from troth.store import Store, open_store
from troth.telemetry import Evaluation

log = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Any])


@dataclass
class MonitorStats:
    """Counts since the monitor started; ``spend_usd`` is None once any cost was unknown."""

    seen: int = 0  # calls recorded
    sampled: int = 0  # queued for scoring
    scored: int = 0  # scorer runs that gave a score
    failed: int = 0  # scorer runs that failed (stored with their error)
    dropped: int = 0  # sampled, but the queue was full (or the monitor closing)
    skipped_budget: int = 0  # sampled, but over the budget
    queue_depth: int = 0  # waiting now
    abandoned: int = 0  # still queued or being scored when close() or the interpreter's exit gave up
    spend_usd: float | None = 0.0


class Monitor:
    """Attach scorers to live calls: ``@monitor.watch`` on a function, or ``monitor.record(...)``.

    ``sampling``: a rate (0-1), rates by scorer id, or a :class:`Sampling`; ``store``: as for
    ``run_evals`` (True: ``$TROTH_STORE`` or ``./.troth/troth.db``); ``budget``: a
    :class:`Budget` capping live spend; ``queue_size``: calls waiting at most (more are dropped);
    ``concurrency``: calls scored at once; ``exit_timeout``: seconds the interpreter's exit waits
    for the queue to drain (what is left is logged with its count). ``isolate``: score in a
    thread of this process (default), or in a process of its own (``"process"``: the app's
    latency is untouched by the scoring's CPU work; scorers and store must pickle).
    """

    def __init__(
        self,
        scorers: Any,
        *,
        sampling: Sampling | float | Mapping[str, float] = 1.0,
        store: Any = True,
        budget: Budget | None = None,
        queue_size: int = 1000,
        concurrency: int = 4,
        exit_timeout: float = 5.0,
        isolate: Literal["thread", "process"] = "thread",
    ) -> None:
        entries = scorer_entries(scorers)
        self.scorers = [e.scorer for e in entries]
        self.thresholds = {e.scorer.id: e.threshold for e in entries}
        self.sampling = as_sampling(sampling)
        self.budget = budget
        if isinstance(queue_size, bool) or not isinstance(queue_size, int) or queue_size < 1:
            raise ValueError(f"queue_size must be a positive integer, not {queue_size!r}")
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"concurrency must be a positive integer, not {concurrency!r}")
        self.concurrency, self.exit_timeout = concurrency, exit_timeout
        if isolate not in ("thread", "process"):
            raise ValueError(f"isolate must be 'thread' or 'process', not {isolate!r}")
        self.store, self._owns_store = _store_here(store, isolate)
        self._store_spec, self._queue_size = store, queue_size
        self._stats = MonitorStats()
        self._pending = 0  # queued or being scored
        self._keys = itertools.count()
        self._done = threading.Condition()
        self._closing = False
        self._worker: ScoringWorker = (
            ScoringProcess(self.scorers, store, concurrency, queue_size, self._report, self._lost, self._failed_start)
            if isolate == "process"
            else ScoringThread(self.scorers, self.store, concurrency, queue_size, self._report)
        )
        _at_exit_hooks.add(self)

    # -- the request path ---------------------------------------------------------------------
    def record(
        self,
        *,
        input: Any = None,
        output: Any,
        context: list[str] | str | None = None,
        trace_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        flagged: bool = False,
    ) -> bool:
        """Queue one call for scoring if it is sampled; True when queued. Never raises for data."""
        record = {
            "input": input,
            "output": output,
            "context": context,
            "metadata": dict(metadata or {}),
            "trace_id": trace_id or uuid.uuid4().hex,
            "flagged": flagged,
        }
        with self._done:
            self._stats.seen += 1
        ids = [s.id for s in self.scorers]
        chosen = ids if flagged else self.sampling.chosen(ids, record)
        if not chosen:
            return False
        if self.budget is not None and not self.budget.allows():
            with self._done:
                self._stats.skipped_budget += 1
            return False
        return self._enqueue(Job(record, chosen, next(self._keys), telemetry.current()))

    def record_run(self, question: Any, run: AgentRun) -> bool:
        """Queue an agent's finished run (what a framework's live hook calls): its answer, what
        its tools returned as the context, and as the trace id the id of the trace being recorded
        (the framework's own run id without one)."""
        run = run.in_trace(telemetry.current())
        metadata = {"agent": run.summary()}
        return self.record(
            input=question, output=run.output, context=run.context or None, trace_id=run.run_id, metadata=metadata
        )

    def _enqueue(self, job: Job) -> bool:
        with self._done:
            if self._closing:
                self._stats.dropped += 1
                return False
            try:
                self._worker.put(job)
            except queue.Full:
                self._stats.dropped += 1
                return False
            self._stats.sampled += 1
            self._pending += 1
        return True

    def watch(self, fn: F | None = None, *, input: Pick = None, context: Pick = None, trace_id: Pick = None) -> Any:
        """Decorate a sync or async function: each call's arguments and return value are
        recorded after it returns (``input``: the first argument unless named or picked)."""

        def decorate(func: F) -> F:
            return watched(self.record, func, Picks(input, context, trace_id))

        return decorate(fn) if fn is not None else decorate

    # -- control ------------------------------------------------------------------------------
    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued call is scored and stored (True), or ``timeout`` passes."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._done:
            while self._pending:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._done.wait(left)
        try:
            return self._worker.flush_store(None if deadline is None else max(deadline - time.monotonic(), 0.1))
        except Exception as exc:  # the app never sees a store's failure
            log.warning("troth monitor could not write the store: %s: %s", type(exc).__name__, exc)
        return True

    def stats(self) -> MonitorStats:
        """A snapshot of the counts."""
        depth = self._worker.qsize()
        with self._done:
            return MonitorStats(**{**asdict(self._stats), "queue_depth": depth})

    def close(self, timeout: float | None = 5.0) -> bool:
        """Flush (bounded), stop the worker and close the store; True when nothing was left."""
        drained = self.flush(timeout)
        with self._done:
            self._closing = True
        if not drained:
            self._abandon(f"at close (flush timed out after {timeout:g}s)")
        ended = self._worker.stop(1.0 if not drained else 5.0)
        if self.store is not None and self._owns_store and ended:
            self.store.close()  # one the monitor opened, once nothing writes to it
        _at_exit_hooks.discard(self)
        return drained

    def _at_exit(self) -> None:
        if not self.flush(self.exit_timeout):
            self._abandon(f"at exit (flush timed out after {self.exit_timeout:g}s)")
        self._worker.stop(1.0)
        s = self.stats()
        log.log(
            logging.WARNING if s.abandoned else logging.INFO,
            "troth monitor at exit: %d sampled: %d scored, %d failed, %d abandoned (%d dropped when full)",
            s.sampled,
            s.scored,
            s.failed,
            s.abandoned,
            s.dropped,
        )

    def _abandon(self, when: str) -> None:
        """The calls still queued or being scored are given up: counted in ``stats().abandoned``."""
        with self._done:
            left, self._pending = self._pending, 0
            self._stats.abandoned += left
            self._done.notify_all()
        if left:
            log.warning("troth monitor: %d sampled call(s) not scored %s", left, when)

    def _failed_start(self, reason: str, jobs: list[Job]) -> None:
        """The scoring process could not run: said once, and the calls scored in a thread here."""
        log.error(reason)
        store = open_store(self._store_spec)
        thread = ScoringThread(self.scorers, store, self.concurrency, self._queue_size, self._report)
        with self._done:
            self.store, self._owns_store, self._worker = store, store is not self._store_spec, thread
            for job in jobs:
                try:
                    thread.put(job)
                except queue.Full:
                    self._stats.dropped += 1
                    self._pending -= 1

    # -- what the worker reports ----------------------------------------------------------------
    def _report(self, outcomes: list[Tally]) -> None:
        """One call scored (by the thread or the process): budget charged, counts kept."""
        for outcome in outcomes:
            if self.budget is not None:
                self.budget.charge(outcome.cost, outcome.calls)
            if outcome.evaluation is not None and telemetry.active() is not None:
                telemetry.emit([self._labelled(outcome.evaluation)], outcome.span)
        with self._done:
            for outcome in outcomes:
                self._stats.scored += outcome.scored
                self._stats.failed += not outcome.scored
                if outcome.scored and self._stats.spend_usd is not None:
                    self._stats.spend_usd = None if outcome.cost is None else self._stats.spend_usd + outcome.cost
            self._settle(1)

    def _labelled(self, evaluation: Evaluation) -> Evaluation:
        """The evaluation labelled pass/fail against its scorer's threshold, when one is set."""
        threshold = self.thresholds.get(evaluation.name)
        if threshold is None or evaluation.score is None:
            return evaluation
        return replace(evaluation, label="pass" if evaluation.score >= threshold else "fail")

    def _lost(self, count: int) -> None:
        """Calls a dead scoring process had taken: failed, and no longer pending."""
        with self._done:
            self._stats.failed += count
            self._settle(count)

    def _settle(self, count: int) -> None:
        """``count`` calls done (the lock held); one given up already is no longer abandoned."""
        pending = min(count, self._pending)
        self._pending -= pending
        self._stats.abandoned -= count - pending
        self._done.notify_all()


def _store_here(store: Any, isolate: str) -> tuple[Store | None, bool]:
    """The store this process writes, and whether the monitor opened it. With a scoring process
    there is none here (the child opens its own); a store that cannot open fails now either way."""
    opened = open_store(store)
    owned = opened is not store
    if isolate == "process":
        if owned and opened is not None:
            opened.close()
        return None, False
    return opened, owned


_at_exit_hooks = ExitFlush()
