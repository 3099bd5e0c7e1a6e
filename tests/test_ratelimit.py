"""RateLimit and its pacing: start times booked per request and per token, and a local run kept under it."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from troth import Judge, RateLimit, create_faithfulness_scorer, run_evals
from troth.ratelimit import REBOOKS, LocalPacer, Pace, estimate_tokens, keep_slot, late_after
from troth.testing import FakeOpenAIServer
from troth.testing.server import Reply, Request, ScriptedJudge


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_requests_are_spaced_by_the_per_minute_limit() -> None:
    clock = FakeClock()
    pace = Pace(RateLimit(requests_per_minute=120), clock)
    assert [pace.book(10) for _ in range(4)] == [100.0, 100.5, 101.0, 101.5]
    clock.now += 10  # idle time is not banked as a burst
    assert pace.book(10) == 110.0 and pace.book(10) == 110.5


def test_tokens_hold_their_lane_in_proportion_to_their_size() -> None:
    clock = FakeClock()
    pace = Pace(RateLimit(tokens_per_minute=6000), clock)
    assert pace.book(1000) == 100.0  # 1000 tokens of 6000/min hold the lane 10 s
    assert pace.book(100) == 110.0
    assert pace.book(100) == pytest.approx(111.0)


def test_a_booking_is_a_start_time_on_the_pace_clock() -> None:
    clock = FakeClock()
    pace = Pace(RateLimit(requests_per_minute=60), clock)
    assert [pace.book(1) for _ in range(3)] == [100.0, 101.0, 102.0]
    clock.now = 101.5
    assert pace.book(1) == 103.0 and pace.book(1) - clock.now == 2.5


def test_both_lanes_the_later_one_decides() -> None:
    pace = Pace(RateLimit(requests_per_minute=60, tokens_per_minute=60_000), FakeClock())
    assert [pace.book(5000) for _ in range(3)] == [100.0, 105.0, 110.0]  # tokens bind, not requests (1 s)
    assert pace.reserved == 3


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "needs requests_per_minute"),
        ({"requests_per_minute": 0}, "positive number"),
        ({"tokens_per_minute": "10"}, "positive number"),
        ({"requests_per_minute": True}, "positive number"),
    ],
)
def test_bad_limits_are_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RateLimit(**kwargs)


def test_token_estimate_counts_the_prompt_and_the_completion_budget() -> None:
    assert estimate_tokens([{"role": "user", "content": "x" * 400}], 100) == 200


def test_a_local_run_keeps_to_the_rate_limit_over_real_http() -> None:
    times: list[float] = []
    script = ScriptedJudge(verdicts={"paris": ("yes", "Paris")})

    def clocked(request: Request) -> Reply:
        times.append(time.monotonic())
        return script(request)

    data = [{"id": str(i), "output": f"Paris is big {i}.", "context": ["Paris is big."]} for i in range(8)]
    with FakeOpenAIServer(clocked, record=False) as srv:
        scorer = create_faithfulness_scorer(Judge("fake", base_url=srv.base_url, api_key="k"), strategy="two-step")
        result = run_evals(
            data, scorer, store=None, quiet=True, concurrency=16, rate_limit=RateLimit(requests_per_minute=600)
        )
    assert result.summary.failed_items == 0 and len(times) >= 16
    times.sort()
    # Paced at 10/s, any 1 s holds 11 at most; one more is the machine's scheduling jitter (a
    # request up to 0.2 s late beside an on-time one). Unpaced, all 16 arrive within ~0.1 s.
    assert all(later - first >= 1.0 for first, later in zip(times, times[12:], strict=False))  # <= 12 in any 1 s
    assert times[-1] - times[0] >= (len(times) - 1) / 10 - 0.15  # the first may be late by as much


def test_a_paced_call_has_its_http_client_before_it_waits_for_its_slot(monkeypatch: pytest.MonkeyPatch) -> None:
    """The slot times the request: the client's set-up (tens of ms on a busy machine) comes first,
    else the first request went out late and the second one close behind it."""
    ready: list[bool] = []
    with FakeOpenAIServer(ScriptedJudge(verdicts={"paris": ("yes", "Paris")}), record=False) as srv:
        judge = Judge("fake", base_url=srv.base_url, api_key="k")
        backend: Any = judge.backend()

        async def wait(self: LocalPacer, tokens: int) -> None:
            ready.append(asyncio.get_running_loop() in backend._clients)

        monkeypatch.setattr(LocalPacer, "wait", wait)
        scorer = create_faithfulness_scorer(judge)
        run_evals(
            [{"output": "Paris is big.", "context": ["Paris is big."]}],
            scorer,
            store=None,
            quiet=True,
            rate_limit=RateLimit(requests_per_minute=600),
        )
    assert ready and all(ready)


def test_rate_limit_must_be_a_rate_limit() -> None:
    scorer = create_faithfulness_scorer(Judge("fake", base_url="http://127.0.0.1:9", api_key="k"))
    with pytest.raises(TypeError, match=r"rate_limit must be a troth\.RateLimit"):
        run_evals([{"output": "x"}], scorer, store=None, rate_limit=600)  # type: ignore[arg-type]


def test_a_start_missed_while_the_loop_was_busy_is_booked_again() -> None:
    """Late calls would go out together: one whose start has passed by more than a quarter of the
    interval books the next free start instead, and goes then."""
    clock = FakeClock()
    pace = Pace(RateLimit(requests_per_minute=60), clock)
    sent: list[float] = []
    busy = [2.4]  # the loop wakes the first sleeper 2.4 s late

    async def sleep(seconds: float) -> None:
        clock.now += seconds + (busy.pop() if busy else 0.0)

    async def book() -> float:
        return pace.book(1)

    assert late_after(pace.limit) == 0.25
    for _ in range(3):  # the fake sleep is handed in: patching asyncio.sleep would reach other tests' threads
        asyncio.run(keep_slot(book, clock, late_after(pace.limit), sleep))
        sent.append(clock.now)
    # the second call's start (101) passed while the loop was busy: it went at 103.4 on a new
    # booking, and the third took the start after that, not the passed 102 beside it
    assert sent == [100.0, pytest.approx(103.4), pytest.approx(104.4)]
    assert pace.reserved == 4


def test_a_call_that_keeps_missing_its_start_goes_after_the_last_rebooking() -> None:
    clock = FakeClock()
    booked: list[float] = []

    async def sleep(seconds: float) -> None:
        clock.now += seconds + 1.0  # always a second late

    async def book() -> float:
        booked.append(clock.now + 0.5)
        return booked[-1]

    asyncio.run(keep_slot(book, clock, 0.05, sleep))
    assert len(booked) == 1 + REBOOKS  # then it goes, late
    assert clock.now == pytest.approx(100 + (1 + REBOOKS) * 1.5)
