"""A Monitor's scoring in a thread of the app's process (``Monitor(..., isolate="thread")``, the
default): the calls wait on a bounded queue, and :func:`~troth.live.scoring.serve` scores them
in a thread started at the first call, at a lower CPU priority than the app's."""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable

from troth.live.scoring import STOP, Job, Tally, serve, yield_cpu
from troth.scorers.base import Scorer
from troth.store import Store


class ScoringThread:
    """The thread's side of the :class:`~troth.live.scoring.ScoringWorker` protocol; it is also
    the hooks ``serve`` reports to."""

    def __init__(
        self,
        scorers: list[Scorer],
        store: Store | None,
        concurrency: int,
        queue_size: int,
        done: Callable[[list[Tally]], None],
    ) -> None:
        self.scorers, self.store, self.concurrency, self.on_done = scorers, store, concurrency, done
        self.jobs: queue.Queue[Job | str] = queue.Queue(maxsize=queue_size)
        self.thread: threading.Thread | None = None
        self.closing = False
        self._lock = threading.Lock()

    def put(self, job: Job) -> None:
        """Queue a call without waiting (queue.Full when full); the thread starts with the first."""
        self.jobs.put_nowait(job)
        with self._lock:
            if self.thread is None:
                self.thread = threading.Thread(target=self._serve_forever, name="troth-monitor", daemon=True)
                self.thread.start()

    def qsize(self) -> int:
        return self.jobs.qsize()

    def flush_store(self, timeout: float | None) -> bool:
        """Write out the store (the queue is drained already)."""
        if self.store is not None:
            self.store.flush()
        return True

    def stop(self, timeout: float) -> bool:
        """The thread ends once what is queued is scored; True when it has ended within ``timeout``."""
        self.closing = True
        if self.thread is not None:
            self.thread.join(timeout)
        return self.thread is None or not self.thread.is_alive()

    def _serve_forever(self) -> None:
        yield_cpu()
        asyncio.run(serve(self.scorers, self.store, self.concurrency, self.jobs, self, lambda: self.closing))

    # -- the hooks serve reports to -------------------------------------------------------------
    def taken(self, job: Job) -> None:
        """Nothing to note when a call is taken in this process."""

    def marker(self, marker: str) -> bool:
        return marker == STOP

    def done(self, job: Job, tallies: list[Tally]) -> None:
        self.on_done(tallies)
