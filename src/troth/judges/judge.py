"""Judge: a model that answers prompts with validated structured output."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from troth.errors import (
    ConfigError,
    JudgeConnectionError,
    JudgeError,
    JudgeOutputError,
    JudgeTruncatedError,
    MissingAPIKeyError,
)
from troth.judges.base import Backend, Choice, Completion, Message, bare_choice
from troth.judges.calls import CALL_SETTINGS, CallSettings, cache_key
from troth.judges.registry import LOCAL_PROVIDER, PROVIDERS, StructuredMode, split_model
from troth.prompts.common import REPAIR_REQUEST, SCHEMA_INSTRUCTION, render
from troth.types import StepUsage

T = TypeVar("T", bound=BaseModel)

LOCAL_MAX_TOKENS = 1024

_FENCE_RE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


class Memo:
    """Answers kept by key (LRU), with requests still in flight shared by their waiters."""

    def __init__(self, size: int = 256) -> None:
        self._size = size
        self._done: OrderedDict[str, Any] = OrderedDict()
        self._pending: dict[tuple[int, str], asyncio.Future[Any]] = {}

    async def get_or_run(self, key: str, factory: Callable[[], Awaitable[Any]]) -> tuple[bool, Any]:
        """``(True, value)`` from memory, or ``(False, value)`` after running ``factory``."""
        if key in self._done:
            self._done.move_to_end(key)
            return True, self._done[key]
        loop = asyncio.get_running_loop()
        pending_key = (id(loop), key)
        if pending_key in self._pending:
            return True, await asyncio.shield(self._pending[pending_key])
        future: asyncio.Future[Any] = loop.create_future()
        self._pending[pending_key] = future
        try:
            value = await factory()
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: waiters re-raise it themselves
            raise
        finally:
            del self._pending[pending_key]
        future.set_result(value)
        self._done[key] = value
        if len(self._done) > self._size:
            self._done.popitem(last=False)
        return False, value


class OutputCheckError(ValueError):
    """Raised by a ``check`` callback when parsed output is well-formed but unusable."""


class Judge:
    """A judge model addressed by ``"provider/model"``, or any OpenAI-compatible server.

    >>> Judge("openai/gpt-4o-mini")                                   # key from OPENAI_API_KEY
    >>> Judge("my-model", base_url="http://127.0.0.1:8000/v1", api_key="x")  # vLLM, llama.cpp, ...
    >>> Judge("local")                                                # offline, in-process

    ``output_retries`` bounds how often an invalid answer is asked again (with the
    validation error fed back); ``max_retries`` bounds transport retries (429, 5xx, timeouts).
    A rate limit that outlasts those retries is waited out, with backoff, for up to
    ``rate_limit_wait`` seconds in all before the call fails.
    """

    def __init__(
        self,
        model: str,
        *,
        instructions: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        max_tokens_limit: int | None = None,
        timeout: float = 60.0,
        max_retries: int = 4,
        output_retries: int = 2,
        structured_output: StructuredMode | None = None,
        seed: int | None = None,
        rate_limit_wait: float = 120.0,
        yes_threshold: float | None = None,
        backend: Backend | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise TypeError(f"model must be a non-empty string, not {model!r}")
        if timeout <= 0:
            raise ValueError(f"timeout must be > 0, not {timeout!r}")
        if yes_threshold is not None and not 0.0 < yes_threshold < 1.0:
            raise ValueError(f"yes_threshold must be between 0 and 1, not {yes_threshold!r}")
        if max_retries < 0 or output_retries < 0:
            raise ValueError("max_retries and output_retries must be >= 0")
        if base_url is None and backend is None:
            self._provider, self._model_name = split_model(model)
        else:
            self._provider, self._model_name = "custom", model
        self._backend = backend
        # A small local model that loops is slow to stop: keep its budget tight and fixed.
        if max_tokens is None:
            max_tokens = LOCAL_MAX_TOKENS if self.is_local else 2048
        if max_tokens_limit is None:
            max_tokens_limit = max_tokens if self.is_local else max(8192, max_tokens)
        if max_tokens <= 0 or max_tokens_limit < max_tokens:
            raise ValueError("max_tokens must be > 0 and no larger than max_tokens_limit")
        self.model = model
        self.instructions = instructions
        self.base_url = base_url
        self._api_key = api_key
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.max_tokens_limit = max_tokens_limit
        self.timeout = timeout
        self.max_retries = max_retries
        self.output_retries = output_retries
        self.structured_output = structured_output
        self.seed = seed
        self.rate_limit_wait = rate_limit_wait
        self._yes_threshold = yes_threshold
        self._memo = Memo()

    def __repr__(self) -> str:
        extra = f", base_url={self.base_url!r}" if self.base_url else ""
        return f"Judge(model={self.model!r}{extra})"

    @property
    def model_id(self) -> str:
        """The model as recorded in usage and results."""
        return self._backend.model_id if self._backend else self.model

    @property
    def is_local(self) -> bool:
        """True for the in-process llama.cpp judge."""
        return self._provider == LOCAL_PROVIDER or bool(getattr(self._backend, "is_local", False))

    def backend(self) -> Backend:
        """The transport, created on first use (checks the API key, loads a local model)."""
        if self._backend is None:
            self._backend = self._make_backend()
        return self._backend

    def _make_backend(self) -> Backend:
        if self._provider == LOCAL_PROVIDER:
            from troth.judges.local import LocalBackend

            return LocalBackend.for_model(self._model_name or None)
        from troth.judges.openai_compat import OpenAICompatBackend

        if self._provider == "custom":
            return OpenAICompatBackend(
                model_id=self.model,
                model_name=self._model_name,
                base_url=str(self.base_url),
                api_key=self._api_key or os.environ.get("TROTH_API_KEY") or "not-needed",
                structured=self.structured_output or "json_schema",
                timeout=self.timeout,
                max_retries=self.max_retries,
            )
        spec = PROVIDERS[self._provider]
        key = self._api_key or (os.environ.get(spec.env_var) if spec.env_var else None)
        if not key:
            if spec.key_required and spec.env_var:
                raise MissingAPIKeyError(spec.name, spec.env_var)
            key = "not-needed"
        return OpenAICompatBackend(
            model_id=self.model,
            model_name=self._model_name,
            base_url=spec.base_url,
            api_key=key,
            structured=self.structured_output or spec.structured,
            token_param=spec.token_param,
            timeout=self.timeout,
            max_retries=self.max_retries,
        )

    @property
    def yes_threshold(self) -> float:
        """P(yes) from which :meth:`choose`-based verdicts count a claim as supported.

        The value given to the constructor, else the local model's calibrated value, else 0.5.
        """
        if self._yes_threshold is not None:
            return self._yes_threshold
        return float(getattr(self.backend(), "yes_threshold", 0.5))

    @property
    def context_window(self) -> int | None:
        """The model's window in tokens, when the backend knows it (the local judge does)."""
        window = getattr(self.backend(), "n_ctx", None)
        return int(window) if window else None

    @property
    def can_choose(self) -> bool:
        """True when the backend reads answer probabilities (:meth:`choose`); the local judge does."""
        return callable(getattr(self.backend(), "choose", None))

    async def choose(
        self, prompt: str, choices: Sequence[str], *, step: str, system: str | None = None
    ) -> tuple[Choice, StepUsage]:
        """The model's probability for each one-word answer in ``choices``, from one forward pass.

        Raises ConfigError when the backend cannot read probabilities (see :attr:`can_choose`).
        """
        backend = self.backend()
        choose = getattr(backend, "choose", None)
        if not callable(choose):
            raise ConfigError(f"{self.model_id} cannot report answer probabilities; only the local judge can")
        messages = self.messages(prompt, system=system, schema={}, structured="json_schema")
        usage = StepUsage(model=self.model_id)
        started = time.perf_counter()
        try:
            choice: Choice = await choose(messages, choices)
        except JudgeError as exc:
            exc.step = exc.step or step
            raise
        usage.latency_s += time.perf_counter() - started
        usage.calls += 1
        usage.attempts += 1
        usage.prompt_tokens += choice.prompt_tokens
        return choice, usage

    async def aclose(self) -> None:
        """Release the connections this judge holds in the running event loop."""
        close = getattr(self._backend, "aclose", None)
        if close is not None:
            await close()

    async def generate(
        self,
        prompt: str,
        schema: type[T],
        *,
        step: str,
        system: str | None = None,
        check: Callable[[T], None] | None = None,
        max_tokens: int | None = None,
        cache: bool = False,
    ) -> tuple[T, StepUsage]:
        """Ask for an answer matching ``schema``; validate, retry with feedback, or raise.

        ``check`` may raise :class:`OutputCheckError` (or ValueError) for answers that parse
        but cannot be used (e.g. unknown claim ids); that is retried like invalid JSON.
        Raises :class:`JudgeOutputError` or :class:`JudgeTruncatedError` naming ``step``.
        With ``cache=True`` an identical request made earlier through this judge (or still in
        flight) is answered from memory, with usage of zero calls.
        """
        if not cache:
            return await self._generate(prompt, schema, step=step, system=system, check=check, max_tokens=max_tokens)
        key = cache_key(
            self.model_id,
            [{"role": "system", "content": system or ""}, {"role": "user", "content": prompt}],
            schema.model_json_schema(),
            max_tokens=max_tokens,
        )
        hit, value = await self._memo.get_or_run(
            key,
            lambda: self._generate(prompt, schema, step=step, system=system, check=check, max_tokens=max_tokens),
        )
        if hit:
            return value[0], StepUsage(model=self.model_id)
        return value  # type: ignore[no-any-return]

    async def _generate(
        self,
        prompt: str,
        schema: type[T],
        *,
        step: str,
        system: str | None,
        check: Callable[[T], None] | None,
        max_tokens: int | None,
    ) -> tuple[T, StepUsage]:
        backend = self.backend()
        json_schema = schema.model_json_schema()
        messages = self.messages(prompt, system=system, schema=json_schema, structured=backend.structured)
        usage = StepUsage(model=self.model_id)
        tokens = max_tokens or self.max_tokens
        last_text: str | None = None
        problem = ""
        attempt = 0
        while attempt <= self.output_retries:
            attempt += 1
            started = time.perf_counter()
            try:
                completion, cached = await self._complete(
                    backend, messages, json_schema, schema.__name__, tokens, problem
                )
            except JudgeError as exc:
                exc.step = exc.step or step
                exc.usage = usage
                raise
            usage.latency_s += time.perf_counter() - started
            if cached:
                usage.cached_calls += 1
            else:
                usage.calls += 1
            usage.attempts += completion.attempts
            usage.prompt_tokens += completion.prompt_tokens
            usage.completion_tokens += completion.completion_tokens
            last_text = completion.text

            if completion.finish_reason == "length":
                if tokens * 2 <= self.max_tokens_limit and not self.is_local:  # a local budget is fixed
                    tokens *= 2
                    attempt -= 1  # a larger budget is not an output retry
                    continue
                truncated = JudgeTruncatedError(
                    f"{self.model_id} was cut off at max_tokens={tokens} (limit {self.max_tokens_limit})",
                    step=step,
                    model=self.model_id,
                )
                truncated.usage = usage
                raise truncated
            try:
                parsed = parse_json_output(completion.text, schema)
                if check is not None:
                    check(parsed)
                return parsed, usage
            except (ValueError, ValidationError) as exc:
                problem = _describe(exc)
                messages = [
                    *messages,
                    {"role": "assistant", "content": completion.text},
                    {"role": "user", "content": render(REPAIR_REQUEST, error=problem)},
                ]
        failed = JudgeOutputError(
            f"{self.model_id} gave no valid answer in {attempt} attempts; last problem: {problem}",
            step=step,
            model=self.model_id,
            attempts=attempt,
            last_output=last_text,
        )
        failed.usage = usage
        raise failed

    async def _complete(
        self,
        backend: Backend,
        messages: list[Message],
        json_schema: dict[str, Any],
        schema_name: str,
        tokens: int,
        problem: str,
    ) -> tuple[Completion, bool]:
        """One completion: from the batch's call cache, or from the backend (within the batch's
        concurrency bound, waiting out rate limits for up to ``rate_limit_wait`` seconds)."""
        settings = CALL_SETTINGS.get() or CallSettings()
        key = ""
        if settings.cache is not None:
            key = cache_key(
                self.model_id,
                messages,
                json_schema,
                max_tokens=tokens,
                temperature=self.temperature,
                seed=self.seed,
                structured=backend.structured,
            )
            hit = settings.cache.cache_get(key)
            if hit is not None:
                return Completion(text=hit["text"], finish_reason=hit["finish_reason"], attempts=0), True
        waited = 0.0
        delay = 1.0
        while True:
            try:
                async with settings.limiter or contextlib.nullcontext():
                    completion = await backend.complete(
                        messages,
                        schema=json_schema,
                        schema_name=schema_name,
                        max_tokens=tokens,
                        temperature=self.temperature,
                        seed=self.seed,
                        retry=bool(problem),
                    )
                break
            except JudgeConnectionError as exc:
                if exc.status_code != 429 or waited + delay > self.rate_limit_wait:
                    raise
                await asyncio.sleep(delay * (0.75 + 0.5 * random.random()))
                waited += delay
                delay = min(delay * 2, 30.0)
        if settings.cache is not None:
            settings.cache.cache_put(
                key, self.model_id, {"text": completion.text, "finish_reason": completion.finish_reason}
            )
        return completion, False

    def messages(self, prompt: str, *, system: str | None, schema: dict[str, Any], structured: str) -> list[Message]:
        """The chat messages sent for ``prompt`` (schema in the prompt unless the server enforces it)."""
        system_parts = [p for p in (self.instructions, system) if p]
        user = prompt
        if structured != "json_schema":
            user = prompt + "\n\n" + render(SCHEMA_INSTRUCTION, schema=json.dumps(schema))
        out: list[Message] = []
        if system_parts:
            out.append({"role": "system", "content": "\n\n".join(system_parts)})
        out.append({"role": "user", "content": user})
        return out


def parse_json_output(text: str, schema: type[T]) -> T:
    """Parse a model's JSON answer into ``schema``; tolerate code fences and surrounding prose."""
    candidate = text.strip()
    fenced = _FENCE_RE.match(candidate)
    if fenced:
        candidate = fenced.group(1)
    try:
        data = json.loads(candidate)
    except json.JSONDecodeError:
        bare = bare_choice(candidate, schema.model_json_schema())
        if bare is not None:
            return schema.model_validate(bare)
        start, end = candidate.find("{"), candidate.rfind("}")
        if start == -1 or end <= start:
            raise ValueError(f"the reply is not valid JSON: {candidate[:120]!r}") from None
        try:
            data = json.loads(candidate[start : end + 1])
        except json.JSONDecodeError as exc:
            raise ValueError(f"the reply is not valid JSON ({exc.msg} at position {exc.pos})") from None
    return schema.model_validate(data)


def _describe(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors()[:5]:
            loc = ".".join(str(p) for p in err["loc"]) or "(root)"
            parts.append(f"{loc}: {err['msg']}")
        return "; ".join(parts)
    return str(exc)
