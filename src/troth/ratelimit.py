"""A provider's rate limit (requests and tokens per minute) and the pacing that keeps to it.

:class:`Pace` hands out start times: each judge call reserves the next free slot, so requests
are spaced ``60 / requests_per_minute`` seconds apart and a call of ``t`` tokens holds the
token lane for ``60 * t / tokens_per_minute`` seconds. A run keeps one ``Pace``: in-process for
the local runner, inside one Ray actor for a cluster (so N workers share one budget). The actor
books wall-clock start times, so the time a booking takes to reach a worker does not move its
request earlier or later. A start that has passed by the time its call can go (its booking came
back late, or the event loop was busy when the start came) is booked again (:func:`keep_slot`):
late calls would otherwise go out together.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

CHARS_PER_TOKEN = 4  # the usual estimate for English text before a tokenizer has seen it
LATE_SHARE = 0.25
"""The share of the request interval by which a booked start may have passed and still be used."""
REBOOKS = 3
"""How many times a call missing its start books again before it goes anyway."""


@dataclass(frozen=True)
class RateLimit:
    """A provider's limit: requests and/or tokens (prompt + completion budget) per minute."""

    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None

    def __post_init__(self) -> None:
        for name in ("requests_per_minute", "tokens_per_minute"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
                raise ValueError(f"RateLimit.{name} must be a positive number, not {value!r}")
        if self.requests_per_minute is None and self.tokens_per_minute is None:
            raise ValueError("RateLimit needs requests_per_minute and/or tokens_per_minute")


class Pace:
    """Reservations against a :class:`RateLimit`: ``book(tokens)`` → the start to wait for."""

    def __init__(self, limit: RateLimit, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.clock = limit, clock
        self.next_request = self.next_token = 0.0
        self.reserved = 0

    def book(self, tokens: int) -> float:
        """Book the earliest start that keeps both lanes under the limit; return it (on ``clock``)."""
        start = max(self.clock(), self.next_request, self.next_token)
        if self.limit.requests_per_minute is not None:
            self.next_request = start + 60.0 / self.limit.requests_per_minute
        if self.limit.tokens_per_minute is not None:
            self.next_token = start + 60.0 * max(tokens, 0) / self.limit.tokens_per_minute
        self.reserved += 1
        return start


def late_after(limit: RateLimit) -> float:
    """How late a booked start may still be used: :data:`LATE_SHARE` of the request interval
    (of 0.2 s without a request limit), 20 ms at least."""
    interval = 60.0 / limit.requests_per_minute if limit.requests_per_minute is not None else 0.2
    return max(0.02, LATE_SHARE * interval)


async def keep_slot(
    book: Callable[[], Awaitable[float]],
    clock: Callable[[], float],
    late: float,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> None:
    """Sleep (``sleep``) until a start that ``book`` books on ``clock``. A start passed by more
    than ``late`` when the sleep ends is booked again, up to :data:`REBOOKS` times, rather than
    spent late."""
    for tries in range(REBOOKS + 1):
        start = await book()
        if (delay := start - clock()) > 0:
            await sleep(delay)
        if clock() - start <= late or tries == REBOOKS:
            return


class Pacer(Protocol):
    """What a judge call awaits before it is sent."""

    async def wait(self, tokens: int) -> None: ...


class LocalPacer:
    """A :class:`Pace` in this process (the local runner)."""

    def __init__(self, limit: RateLimit) -> None:
        self.pace, self.late = Pace(limit), late_after(limit)

    async def wait(self, tokens: int) -> None:
        async def book() -> float:
            return self.pace.book(tokens)

        await keep_slot(book, self.pace.clock, self.late)


def estimate_tokens(messages: list[Any], max_tokens: int) -> int:
    """What a call may use against a tokens-per-minute limit: the prompt (estimated) + the budget."""
    chars = sum(len(str(m.get("content", ""))) for m in messages if isinstance(m, dict))
    return chars // CHARS_PER_TOKEN + max_tokens


def check_rate_limit(value: object) -> RateLimit | None:
    """``rate_limit=`` as given to a run: None or a RateLimit."""
    if value is None or isinstance(value, RateLimit):
        return value
    raise TypeError(f"rate_limit must be a troth.RateLimit, not {type(value).__name__}")
