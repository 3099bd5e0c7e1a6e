"""One completion for a judge's retry policy: from the batch's call cache, or from the backend
within the run's concurrency bound and rate limit (see :mod:`troth.judges.run_settings`)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, Protocol

from troth.judges.base import Backend, Completion, CompletionRequest, Message
from troth.judges.cache import cache_key
from troth.judges.config import JudgeConfig
from troth.judges.retry import Keep, RetryPolicy
from troth.judges.run_settings import RUN_SETTINGS, RunSettings
from troth.ratelimit import estimate_tokens
from troth.telemetry import judge_call, tokens


class Asking(Protocol):
    """What a completion needs of the judge asking (a :class:`~troth.judges.judge.Judge`)."""

    config: JudgeConfig

    @property
    def model_id(self) -> str: ...

    def backend(self) -> Backend: ...


def completer(
    judge: Asking, json_schema: dict[str, Any], schema_name: str, policy: RetryPolicy, step: str
) -> Callable[[list[Message], int, str], Any]:
    """One completion for the retry policy: from the batch's call cache, or from the backend
    (within the batch's concurrency bound, rate limits waited out)."""
    backend = judge.backend()
    settings = RUN_SETTINGS.get() or RunSettings()

    async def complete(messages: list[Message], max_tokens: int, problem: str) -> tuple[Completion, bool, Keep]:
        key = cache_key(
            judge.model_id,
            messages,
            json_schema,
            max_tokens=max_tokens,
            temperature=judge.config.temperature,
            seed=judge.config.seed,
            structured=backend.capabilities.structured,
            base_url=judge.config.base_url,
        )
        hit = settings.cache.cache_get(key) if settings.cache is not None else None
        if hit is not None:
            return Completion(text=hit["text"], finish_reason=hit["finish_reason"], attempts=0), True, _nothing

        async def call() -> Completion:
            if settings.pacer is not None:
                await backend.prepare()  # its slot then times the request, not the client's set-up
                await settings.pacer.wait(estimate_tokens(messages, max_tokens))
            request = CompletionRequest(
                messages,
                json_schema,
                schema_name,
                max_tokens,
                judge.config.temperature,
                judge.config.seed,
                retry=bool(problem),
            )
            async with settings.limiter or contextlib.nullcontext():
                with judge_call(judge.model_id, step) as span:
                    done = await backend.complete(request)
                    tokens(span, done.prompt_tokens, done.completion_tokens, done.finish_reason)
                    return done

        completion = await policy.wait_out_rate_limits(call, settings.on_wait)

        def keep() -> None:  # called by the policy once the answer validated
            if settings.cache is not None:
                value = {"text": completion.text, "finish_reason": completion.finish_reason}
                settings.cache.cache_put(key, judge.model_id, value)

        return completion, False, keep

    return complete


def _nothing() -> None:
    """The keep of a cached answer: it is stored already."""
