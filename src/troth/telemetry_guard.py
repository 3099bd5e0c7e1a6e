"""Telemetry kept from hurting scoring: every call into the exporter runs under a guard (an
exception is counted and logged once), and what may block (a span's end, which exports it; an
evaluation event) is handed to a bounded queue drained by one daemon thread, which drops and
counts when the queue is full."""

from __future__ import annotations

import atexit
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")
QUEUE_SIZE = 10_000
EXIT_WAIT_S = 2.0
log = logging.getLogger("troth.telemetry")


@dataclass(frozen=True)
class TelemetryStats:
    """What telemetry could not do: calls that raised, emissions dropped on a full queue, and
    emissions still waiting."""

    errors: int
    dropped: int
    pending: int


class Guard:
    """The guard and the queue (one per process)."""

    def __init__(self, size: int = QUEUE_SIZE) -> None:
        self._queue: queue.Queue[Callable[[], object]] = queue.Queue(size)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._idle = threading.Condition(self._lock)
        self._running = 0
        self.errors = self.dropped = 0

    def call(self, fn: Callable[[], T]) -> T | None:
        """``fn()``, or None when it raises (counted; the first one logged)."""
        try:
            return fn()
        except Exception as exc:
            self._failed(exc)
            return None

    def later(self, fn: Callable[[], object]) -> None:
        """Run ``fn`` on the drain thread, guarded; dropped and counted when the queue is full."""
        self._start()
        try:
            self._queue.put_nowait(fn)
        except queue.Full:
            with self._lock:
                self.dropped += 1
                first = self.dropped == 1
            if first:
                log.warning("telemetry queue full (%d): emissions are dropped and counted", self._queue.maxsize)

    def flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the queue to empty; whether it did."""
        with self._idle:
            return self._idle.wait_for(lambda: self._queue.unfinished_tasks == 0, timeout)

    def stats(self) -> TelemetryStats:
        return TelemetryStats(self.errors, self.dropped, self._queue.unfinished_tasks)

    def _failed(self, exc: Exception) -> None:
        with self._lock:
            self.errors += 1
            first = self.errors == 1
        if first:
            log.warning(
                "telemetry failed (%s: %s); scoring goes on, later failures are only counted", type(exc).__name__, exc
            )

    def _start(self) -> None:
        if self._thread is not None:
            return
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._drain, name="troth-telemetry", daemon=True)
                self._thread.start()
                atexit.register(self.flush, EXIT_WAIT_S)

    def _drain(self) -> None:
        while True:
            fn = self._queue.get()
            self.call(fn)
            with self._idle:
                self._queue.task_done()
                self._idle.notify_all()
