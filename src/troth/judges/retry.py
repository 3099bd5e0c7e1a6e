"""Retry policy of a judge: invalid answers asked again with the problem fed back, replies that
are not chat completions asked again, cut-off answers given a larger budget, rate limits waited
out. Transport retries are the backend's. An answer is kept (cached) only once it validated."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from troth.errors import JudgeConnectionError, JudgeError, JudgeOutputError, JudgeResponseError, JudgeTruncatedError
from troth.judges.base import Completion, Message
from troth.judges.parsing import describe, parse_json_output
from troth.judges.waits import WAIT_BUDGET, WaitBudget, over_budget
from troth.prompts.common import REPAIR_REQUEST, render
from troth.values import Prices, StepUsage

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")

# One completion: (messages, max_tokens, problem with the previous answer)
#   -> (completion, from cache?, keep: stores the completion once it validated)
Keep = Callable[[], None]
CompleteFn = Callable[[list[Message], int, str], Awaitable[tuple[Completion, bool, Keep]]]


@dataclass(frozen=True)
class RetryPolicy:
    """``output_retries``: invalid answers asked again; ``max_tokens_limit``: the largest budget a
    cut-off answer may grow to (doubling), unless ``fixed_budget``; ``rate_limit_wait``: seconds
    of 429s waited out, with backoff, after the backend's own retries."""

    output_retries: int = 2
    max_tokens_limit: int = 8192
    fixed_budget: bool = False
    rate_limit_wait: float = 120.0

    async def wait_out_rate_limits(
        self, call: Callable[[], Awaitable[R]], on_wait: Callable[[float], None] | None = None
    ) -> R:
        """``call()``, repeated while it fails with HTTP 429, within one wait budget of
        ``rate_limit_wait`` seconds that the client library's retries spend from too (see
        :mod:`troth.judges.waits`); a wait past it is a JudgeConnectionError saying so."""
        budget = WaitBudget(self.rate_limit_wait, on_wait=on_wait)
        token = WAIT_BUDGET.set(budget)
        try:
            delay = 1.0
            while True:
                try:
                    return await call()
                except JudgeConnectionError as exc:
                    if exc.status_code != 429 or exc.over_budget:
                        raise
                    # what the server asked for, but never less than the backoff: a loop that waits 0 never ends
                    wait = max(exc.retry_after or 0.0, delay * (0.75 + 0.5 * random.random()))
                    if not budget.fits(wait):
                        raise over_budget(exc.model, exc.status_code, wait, budget, asked=False, step=exc.step) from exc
                    budget.waiting(wait)
                    await asyncio.sleep(wait)
                    delay = min(delay * 2, 30.0)
        finally:
            WAIT_BUDGET.reset(token)

    async def generate(
        self,
        complete: CompleteFn,
        messages: list[Message],
        schema: type[T],
        *,
        max_tokens: int,
        step: str,
        model: str,
        check: Callable[[T], None] | None = None,
        prices: Prices | None = None,
    ) -> tuple[T, StepUsage]:
        """A validated answer, or JudgeOutputError / JudgeTruncatedError naming ``step``; usage
        at the backend's declared ``prices``."""
        usage = StepUsage(model=model, prices=prices)
        tokens, problem, attempt, last_text = max_tokens, "", 0, None
        bad_reply: JudgeResponseError | None = None
        while attempt <= self.output_retries:
            attempt += 1
            try:
                completion, keep = await _one(complete, messages, tokens, problem, usage, step)
            except JudgeResponseError as exc:  # not a chat completion: the same request again
                bad_reply = exc
                continue
            bad_reply, last_text = None, completion.text
            if completion.finish_reason == "length":
                if self.fixed_budget or tokens * 2 > self.max_tokens_limit:
                    limit = f"max_tokens={tokens} (limit {self.max_tokens_limit})"
                    raise _with_usage(
                        JudgeTruncatedError(f"{model} was cut off at {limit}", step=step, model=model), usage
                    )
                tokens *= 2
                attempt -= 1  # a larger budget is not an output retry
                continue
            try:
                parsed = parse_json_output(completion.text, schema)
                if check is not None:
                    check(parsed)
            except (ValueError, ValidationError) as exc:
                problem = describe(exc)
                messages = [
                    *messages,
                    {"role": "assistant", "content": completion.text},
                    {"role": "user", "content": render(REPAIR_REQUEST, error=problem)},
                ]
                continue
            keep()
            return parsed, usage
        if bad_reply is not None:
            raise _with_usage(JudgeResponseError(f"{bad_reply} ({attempt} attempts)", step=step, model=model), usage)
        failed = JudgeOutputError(
            f"{model} gave no valid answer in {attempt} attempts; last problem: {problem}",
            step=step,
            model=model,
            attempts=attempt,
            last_output=last_text,
        )
        raise _with_usage(failed, usage)


async def _one(
    complete: CompleteFn, messages: list[Message], tokens: int, problem: str, usage: StepUsage, step: str
) -> tuple[Completion, Keep]:
    started = time.perf_counter()
    try:
        completion, cached, keep = await complete(messages, tokens, problem)
    except JudgeError as exc:
        exc.step = exc.step or step
        exc.usage = usage
        raise
    usage.latency_s += time.perf_counter() - started
    usage.cached_calls += cached
    usage.calls += not cached
    usage.attempts += completion.attempts
    usage.prompt_tokens += completion.prompt_tokens
    usage.completion_tokens += completion.completion_tokens
    return completion, keep


def _with_usage(exc: JudgeError, usage: StepUsage) -> JudgeError:
    exc.usage = usage
    return exc
