"""One wait budget per judge call: what the server asks to wait (``Retry-After`` on a 429 or
503), the client library's own retries and troth's waits all come out of it. A wait that does
not fit what is left fails the call at once with a JudgeConnectionError saying what the server
asked for and what the budget was; a long wait that fits is told to the run's progress line."""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

from troth.errors import JudgeConnectionError

LONG_WAIT_S = 5.0
"""Waits from this long are shown on the progress line."""


@dataclass
class WaitBudget:
    """Seconds a judge call may spend waiting, from ``started`` on; ``on_wait`` hears of long waits."""

    seconds: float
    started: float = field(default_factory=time.monotonic)
    on_wait: Callable[[float], None] | None = None

    def remaining(self) -> float:
        return max(0.0, self.seconds - (time.monotonic() - self.started))

    def fits(self, wait: float) -> bool:
        return wait <= self.remaining()

    def waiting(self, wait: float) -> None:
        """A wait about to start (within the budget): a long one goes to the progress line."""
        if wait >= LONG_WAIT_S and self.on_wait is not None:
            self.on_wait(wait)


WAIT_BUDGET: ContextVar[WaitBudget | None] = ContextVar("troth_wait_budget", default=None)


def over_budget(
    model: str | None, status: int | None, wait: float, budget: WaitBudget, *, asked: bool, step: str | None = None
) -> JudgeConnectionError:
    """The error of a call whose next wait does not fit what is left of its budget; ``asked``:
    the server asked for that wait (Retry-After), else the backoff needs it."""
    need = "asking for a wait of" if asked else "and would need a wait of"
    wanted, left = _apart(wait, budget.remaining())
    return JudgeConnectionError(
        f"{model or 'the judge'} answered HTTP {status} {need} {wanted}s, longer than the {left}s left of this "
        f"judge call's wait budget of {budget.seconds:g}s (Judge(rate_limit_wait=...), troth eval --max-wait)",
        step=step,
        model=model,
        status_code=status,
        retry_after=wait,
        over_budget=True,
    )


def _apart(wait: float, left: float) -> tuple[str, str]:
    """The wait and the time left, written with as many decimals (up to 3) as it takes for them
    to read differently (a wait of "120s" against "120s left" reads as a contradiction)."""
    for decimals in range(4):
        shown = f"{wait:.{decimals}f}", f"{left:.{decimals}f}"
        if shown[0] != shown[1]:
            return shown
    return shown


def retry_after(headers: object) -> float | None:
    """Seconds a response asks to wait: ``retry-after-ms``, or ``Retry-After`` in seconds or as an HTTP date."""
    get = getattr(headers, "get", None)
    if get is None:
        return None
    millis, value = get("retry-after-ms"), get("retry-after")
    if millis is not None:
        return _seconds(millis, 1000.0)
    if value is None:
        return None
    seconds = _seconds(value, 1.0)
    if seconds is not None:
        return seconds
    try:
        return max(0.0, email.utils.parsedate_to_datetime(str(value)).timestamp() - time.time())
    except (TypeError, ValueError, IndexError):
        return None


def _seconds(text: object, per_second: float) -> float | None:
    try:
        value = float(str(text)) / per_second
    except ValueError:
        return None
    return value if value >= 0 else None
