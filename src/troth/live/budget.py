"""A cap on live scoring: money per hour and/or judge calls per minute, over sliding windows.
Over the cap, calls are not sampled (and counted as skipped) rather than paid for."""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field


@dataclass
class Budget:
    """``usd_per_hour``: spend in the last hour; ``calls_per_minute``: judge calls in the last minute."""

    usd_per_hour: float | None = None
    calls_per_minute: int | None = None
    _spend: deque[tuple[float, float]] = field(default_factory=deque, repr=False)
    _calls: deque[tuple[float, int]] = field(default_factory=deque, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        for name, value in (("usd_per_hour", self.usd_per_hour), ("calls_per_minute", self.calls_per_minute)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
                raise ValueError(f"{name} must be a number >= 0, not {value!r}")

    def allows(self, now: float | None = None) -> bool:
        """True while both windows are under their caps."""
        now = time.monotonic() if now is None else now
        with self._lock:
            spent, calls = self._window(now)
        over_money = self.usd_per_hour is not None and spent >= self.usd_per_hour
        over_calls = self.calls_per_minute is not None and calls >= self.calls_per_minute
        return not (over_money or over_calls)

    def charge(self, usd: float | None, calls: int, now: float | None = None) -> None:
        """Record what one scored call spent (an unknown cost counts as calls only)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            if usd:
                self._spend.append((now, usd))
            if calls:
                self._calls.append((now, calls))

    def _window(self, now: float) -> tuple[float, int]:
        while self._spend and self._spend[0][0] <= now - 3600:
            self._spend.popleft()
        while self._calls and self._calls[0][0] <= now - 60:
            self._calls.popleft()
        return sum(u for _, u in self._spend), sum(c for _, c in self._calls)
