"""The retry policy alone: invalid answers asked again with the problem fed back, budgets, typed errors."""

from __future__ import annotations

import asyncio

import pytest

from tests.judges.test_plans import Scripted, _Answer
from troth import Judge
from troth.errors import JudgeOutputError, JudgeTruncatedError
from troth.judges.base import Completion, Message
from troth.judges.retry import Keep, RetryPolicy


def test_retry_policy_feeds_back_the_problem_then_succeeds() -> None:
    backend = Scripted(("not json", "stop"), ('{"answer": "ok"}', "stop"))
    judge = Judge("m", backend=backend)
    parsed, usage = asyncio.run(judge.generate("q", _Answer, step="analyze"))
    assert parsed.answer == "ok" and usage.calls == 2
    assert "not valid JSON" in backend.asked[1][-1]["content"]


def test_retry_policy_grows_the_budget_unless_it_is_fixed() -> None:
    calls: list[int] = []
    kept: list[str] = []

    async def complete(messages: list[Message], tokens: int, problem: str) -> tuple[Completion, bool, Keep]:
        calls.append(tokens)
        done = Completion("{", "length") if len(calls) == 1 else Completion('{"answer": "x"}', "stop")
        return done, False, lambda: kept.append(done.text)

    policy = RetryPolicy(max_tokens_limit=400)
    parsed, _ = asyncio.run(policy.generate(complete, [], _Answer, max_tokens=100, step="s", model="m"))
    assert parsed.answer == "x" and calls == [100, 200]
    assert kept == ['{"answer": "x"}']  # only the answer that validated is kept (cached)
    calls.clear()
    with pytest.raises(JudgeTruncatedError, match=r"\[s\] m was cut off at max_tokens=100"):
        asyncio.run(RetryPolicy(fixed_budget=True).generate(complete, [], _Answer, max_tokens=100, step="s", model="m"))


def test_retry_policy_gives_up_with_a_typed_error_naming_the_step() -> None:
    kept: list[str] = []

    async def complete(messages: list[Message], tokens: int, problem: str) -> tuple[Completion, bool, Keep]:
        return Completion('{"other": 1}', "stop"), False, lambda: kept.append("kept")

    with pytest.raises(JudgeOutputError, match=r"\[extract\] m gave no valid answer in 2 attempts") as info:
        asyncio.run(
            RetryPolicy(output_retries=1).generate(complete, [], _Answer, max_tokens=9, step="extract", model="m")
        )
    assert info.value.usage is not None and info.value.usage.calls == 2 and kept == []
