"""A Monitor's scoring in a process of its own (``Monitor(..., isolate="process")``).

The app's process only samples, checks the budget and puts the call on a multiprocessing queue;
pickling happens in that queue's feeder thread, and the judge calls, parsing and store writes
happen in the child, on another core and under another interpreter lock. The child reports
each call it takes and each it finishes on an events queue, which a reader thread in the app's
process turns into the monitor's counts. A child that dies is started again; the calls it had
taken are counted as failed and logged, never silently lost. A child that never starts (a
script that makes its Monitor at module level, without ``if __name__ == "__main__":``, is
imported again by the child and fails there) is reported once with how to fix it, and the calls
go to a thread instead: the app's ``failed_start`` hook takes them. Prices given to ``set_prices``
before the monitor starts its process (or restarts it) are handed to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import queue
import signal
import threading
from collections.abc import Callable
from typing import Any

from troth import prices as price_tables
from troth.live.scoring import FLUSH, STOP, Job, Tally, serve, yield_cpu
from troth.scorers.base import Scorer
from troth.store import Store, open_store
from troth.values import Prices

log = logging.getLogger("troth.live.monitor")
MAX_RESTARTS = 3
"""A child that dies more often than this after starting is given up for a thread."""


class ChildHooks:
    """The child's side: every call taken and done, and store flushes, told to the parent."""

    def __init__(self, events: Any, store: Store | None) -> None:
        self.events, self.store = events, store

    def taken(self, job: Job) -> None:
        self.events.put(("taken", job.key, None))

    def done(self, job: Job, outcomes: list[Tally]) -> None:
        self.events.put(("done", job.key, outcomes))

    def marker(self, marker: str) -> bool:
        if marker == FLUSH:
            if self.store is not None:
                self.store.flush()
            self.events.put(("flushed", 0, None))
        return marker == STOP


def child_main(
    blob: bytes, store_spec: Any, concurrency: int, jobs: Any, events: Any, price_overrides: dict[str, Prices]
) -> None:
    """The child process: the app's prices, the scorers and the store; serve until STOP."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the app's; the parent stops the child
    events.put(("started", 0, None))
    yield_cpu()
    price_tables.PRICES.set(price_overrides)  # the prices the app set in code
    scorers: list[Scorer] = pickle.loads(blob)
    store = open_store(store_spec)
    watch_parent(store)
    asyncio.run(serve(scorers, store, concurrency, jobs, ChildHooks(events, store), closing=lambda: False))
    if store is not None:
        store.flush()
        store.close()


def watch_parent(store: Store | None) -> None:
    """End this child when the app's process dies (killed, or ended by a signal it does not
    handle): a thread waits on the parent's sentinel, writes out what the store holds, and exits."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        if store is not None:
            with contextlib.suppress(Exception):
                store.flush()
        os._exit(0)

    threading.Thread(target=watch, name="troth-monitor-parent", daemon=True).start()


class ScoringProcess:
    """The app's side: start the child, queue calls, read what it reports, restart it if it dies."""

    def __init__(
        self,
        scorers: list[Scorer],
        store_spec: Any,
        concurrency: int,
        queue_size: int,
        done: Callable[[list[Tally]], None],
        lost: Callable[[int], None],
        failed_start: Callable[[str, list[Job]], None],
    ) -> None:
        try:
            self.blob = pickle.dumps(scorers)
            pickle.dumps(store_spec)
        except Exception as exc:
            raise TypeError(
                "isolate='process' needs scorers and a store that pickle (scorers made by troth's create_* "
                f"functions with a module-level get_context, a store path); use isolate='thread' ({exc})"
            ) from exc
        self.ctx = multiprocessing.get_context("spawn")
        self.jobs: Any = self.ctx.Queue(maxsize=queue_size)
        self.events: Any = self.ctx.Queue()
        self.store_spec, self.concurrency = store_spec, concurrency
        self.on_done, self.on_lost, self.on_failed_start = done, lost, failed_start
        self.started, self.deaths = False, 0
        self.taken: set[int] = set()
        self.flushed = threading.Event()
        self.stopping = False
        self.process = self._start()
        self.reader = threading.Thread(target=self._read, name="troth-monitor-events", daemon=True)
        self.reader.start()

    def _start(self) -> Any:
        args = (self.blob, self.store_spec, self.concurrency, self.jobs, self.events, price_tables.PRICES.overrides())
        process = self.ctx.Process(target=child_main, name="troth-monitor", daemon=True, args=args)
        process.start()
        return process

    def put(self, job: Job) -> None:
        """Queue a call without waiting; queue.Full when the queue is full."""
        self.jobs.put_nowait(job)

    def qsize(self) -> int:
        return int(self.jobs.qsize())

    def flush_store(self, timeout: float | None) -> bool:
        """Ask the child to write out its store; True once it has."""
        self.flushed.clear()
        try:
            self.jobs.put(FLUSH, timeout=timeout)
        except queue.Full:
            return False
        return self.flushed.wait(timeout)

    def stop(self, timeout: float = 5.0) -> bool:
        """STOP after the queued calls; the child is ended if it does not finish in ``timeout``."""
        self.stopping = True
        with contextlib.suppress(queue.Full):
            self.jobs.put(STOP, timeout=timeout)
        self.process.join(timeout)
        if self.process.is_alive():
            self.process.terminate()
        # Nothing reads the queue any more: what it still holds is not waited for at exit (the
        # monitor counts it as abandoned); waiting would block the interpreter's exit for good.
        self.jobs.cancel_join_thread()
        if threading.current_thread() is not self.reader:
            self.reader.join(1.0)
        return True

    def _read(self) -> None:
        while not (self.stopping and not self.process.is_alive()):
            try:
                kind, key, payload = self.events.get(timeout=0.2)
            except queue.Empty:
                if not self.stopping and not self.process.is_alive():
                    self._died()
                continue
            if kind == "started":
                self.started = True
            elif kind == "taken":
                self.taken.add(key)
            elif kind == "done":
                self.taken.discard(key)
                self.on_done(payload)
            elif kind == "flushed":
                self.flushed.set()

    def _died(self) -> None:
        self.deaths += 1
        if not self.started or self.deaths > MAX_RESTARTS:
            self._give_up()
            return
        lost, self.taken, self.started = len(self.taken), set(), False
        log.error(
            "troth monitor: the scoring process died (exit code %s); %d call(s) it was scoring are "
            "counted as failed; starting it again",
            self.process.exitcode,
            lost,
        )
        self.on_lost(lost)
        self.process = self._start()

    def _give_up(self) -> None:
        """No child that scores: stop reading, hand every queued call to the app's hook."""
        never = not self.started
        reason = (
            f"troth monitor: the scoring process could not start (exit code {self.process.exitcode}). The usual "
            "cause: the script makes its Monitor at module level, and the new process imports the script again; "
            'put that code under `if __name__ == "__main__":`, or pass isolate="thread". Scoring goes on in a thread.'
            if never
            else f"troth monitor: the scoring process died {self.deaths} times; scoring goes on in a thread."
        )
        lost, self.taken = len(self.taken), set()
        if lost:
            self.on_lost(lost)
        self.stopping = True
        jobs = self._drain()
        self.jobs.cancel_join_thread()  # nothing reads it any more: never wait for it at exit
        self.on_failed_start(reason, jobs)

    def _drain(self) -> list[Job]:
        """The calls still on the queue (nothing else reads it now)."""
        jobs: list[Job] = []
        while True:
            try:
                item = self.jobs.get(timeout=0.05)
            except (queue.Empty, OSError, EOFError):
                return jobs
            if isinstance(item, Job):
                jobs.append(item)
