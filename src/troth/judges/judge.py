"""Judge: a backend composed with a retry policy, a cache and validated structured output."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from troth.errors import ConfigError, JudgeError
from troth.judges.base import Backend, Choice, Message, PairScores
from troth.judges.cache import Memo, cache_key
from troth.judges.capabilities import Capabilities, StructuredMode
from troth.judges.completion import completer
from troth.judges.config import JudgeConfig, build_backend
from troth.judges.parsing import OutputCheckError, json_schema_of, parse_json_output
from troth.judges.registry import declared as declared_by
from troth.judges.retry import RetryPolicy
from troth.prompts.common import SCHEMA_INSTRUCTION, render
from troth.telemetry import judge_call, tokens
from troth.values import StepUsage

T = TypeVar("T", bound=BaseModel)

__all__ = ["Judge", "OutputCheckError", "parse_json_output"]


class Judge:
    """A judge model addressed by ``"provider/model"``, or any OpenAI-compatible server.

    >>> Judge("openai/gpt-4o-mini")                                   # key from OPENAI_API_KEY
    >>> Judge("my-model", base_url="http://127.0.0.1:8000/v1", api_key="x")  # vLLM, llama.cpp, ...
    >>> Judge("verifier")                # offline: the claim verifier, in-process (alias "local")
    >>> Judge("llm")                     # offline: a local LLM through llama.cpp

    ``output_retries`` bounds how often an invalid answer is asked again (with the
    validation error fed back); ``max_retries`` bounds transport retries (429, 5xx, timeouts).
    ``rate_limit_wait`` is one judge call's wait budget: the waits a server asks for
    (``Retry-After``), the client library's retries and troth's own backoff all come out of it,
    and a wait past it fails the call with a JudgeConnectionError saying what the server asked
    for and what was left. The backend is built at first use;
    its :attr:`capabilities` then decide the defaults left as None here.
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
        second_opinion: Judge | str | None = None,
        uncertain_band: tuple[float, float] | None = None,
    ) -> None:
        routed = {"provider": "custom", "name": model} if backend is not None else {}
        self.config = JudgeConfig(
            model=model,
            instructions=instructions,
            base_url=base_url,
            api_key=api_key,
            temperature=temperature,
            max_tokens=max_tokens,
            max_tokens_limit=max_tokens_limit,
            timeout=timeout,
            max_retries=max_retries,
            output_retries=output_retries,
            structured_output=structured_output,
            seed=seed,
            rate_limit_wait=rate_limit_wait,
            yes_threshold=yes_threshold,
            uncertain_band=uncertain_band,
            **routed,
        )
        self._backend = backend
        self.second_opinion = Judge(second_opinion) if isinstance(second_opinion, str) else second_opinion
        if self.second_opinion is not None and not isinstance(self.second_opinion, Judge):
            raise TypeError(f"second_opinion must be a model string or a Judge, not {type(second_opinion).__name__}")
        self._memo = Memo()
        self._built_backend = backend is None  # built here at first use (not the caller's)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without what this process built (its HTTP client, a loaded model, in-flight
        calls): a copy sent to another process (a Ray worker) builds its own at first use."""
        state = dict(self.__dict__)
        if self._built_backend:
            state["_backend"] = None
        state["_memo"] = Memo()
        return state

    def __repr__(self) -> str:
        extra = f", base_url={self.base_url!r}" if self.base_url else ""
        return f"Judge(model={self.model!r}{extra})"

    @property
    def model(self) -> str:
        """The model string as given."""
        return self.config.model

    @property
    def base_url(self) -> str | None:
        return self.config.base_url

    # -- the backend and what it can do ------------------------------------------------------
    def backend(self) -> Backend:
        """The backend, built on first use (checks the API key, resolves a local model)."""
        if self._backend is None:
            self._backend = build_backend(self.config)
        return self._backend

    @property
    def capabilities(self) -> Capabilities:
        """What the backend declares it can do."""
        return self.backend().capabilities

    @property
    def model_id(self) -> str:
        """The model as recorded in usage and results."""
        return self._backend.model_id if self._backend else self.model

    @property
    def max_tokens(self) -> int:
        """Completion budget of a request: the value given, else the backend's default."""
        return self.config.max_tokens or self.capabilities.default_max_tokens

    @property
    def max_tokens_limit(self) -> int:
        """The largest budget a cut-off answer grows to (none under a fixed budget)."""
        if self.config.max_tokens_limit is not None:
            return self.config.max_tokens_limit
        return self.max_tokens if self.capabilities.fixed_token_budget else max(8192, self.max_tokens)

    @property
    def yes_threshold(self) -> float:
        """P(yes) from which a probability-based verdict counts a claim as supported: the value
        given, else the backend's calibrated one."""
        return self.config.yes_threshold if self.config.yes_threshold is not None else self.capabilities.yes_threshold

    @property
    def uncertain_band(self) -> tuple[float, float]:
        """P(supported) range ``[low, high)`` in which a pair classifier's verdict is sent to the
        second opinion: the value given, else the verifier's calibrated band."""
        return self.config.uncertain_band or self.capabilities.uncertain_band or (0.5, self.yes_threshold)

    @property
    def can_choose(self) -> bool:
        """True when the backend reads answer probabilities (:meth:`choose`)."""
        return self.capabilities.choice_probabilities

    @property
    def context_window(self) -> int | None:
        """The model's window in tokens, when the backend knows it."""
        return self.capabilities.context_window

    @property
    def declared(self) -> Capabilities:
        """What the backend declares it can do, read without building it (no key checked)."""
        return self._backend.capabilities if self._backend is not None else declared_by(self.config.provider)

    def check_generates(self, scorer_id: str, needs: str) -> None:
        """ConfigError now when the scorer ``scorer_id`` needs written answers (for ``needs``) and
        this judge's backend declares it cannot write them (read without building the backend)."""
        if not self.declared.generates:
            raise ConfigError(
                f"scorer {scorer_id!r} needs a judge that writes answers ({needs}), but {self.model} only "
                "classifies (context, claim) pairs; use model='llm' (a local LLM) or an HTTP judge such as "
                "'openai/gpt-4o-mini'"
            )

    def _usage(self, **counts: int) -> StepUsage:
        """Usage of this judge's calls, at the prices its backend declared."""
        return StepUsage(model=self.model_id, prices=self.capabilities.prices, **counts)

    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy(
            output_retries=self.config.output_retries,
            max_tokens_limit=self.max_tokens_limit,
            fixed_budget=self.capabilities.fixed_token_budget,
            rate_limit_wait=self.config.rate_limit_wait,
        )

    async def aclose(self) -> None:
        """Release the connections this judge holds in the running event loop."""
        if self._backend is not None:
            await self._backend.aclose()
        if self.second_opinion is not None:
            await self.second_opinion.aclose()

    # -- requests ------------------------------------------------------------------------------
    async def choose(
        self, prompt: str, choices: Sequence[str], *, step: str, system: str | None = None
    ) -> tuple[Choice, StepUsage]:
        """The model's probability for each one-word answer in ``choices``, from one forward pass.

        Raises ConfigError when the backend cannot read probabilities (see :attr:`can_choose`).
        """
        messages = self.messages(prompt, system=system, schema={}, structured="json_schema")
        started = time.perf_counter()
        with judge_call(self.model_id, step) as span:
            choice = await _naming_step(self.backend().choose(messages, choices), step)
            tokens(span, choice.prompt_tokens, 0)
        usage = self._usage(calls=1, attempts=1, prompt_tokens=choice.prompt_tokens)
        usage.latency_s = time.perf_counter() - started
        return choice, usage

    async def classify(self, pairs: Sequence[tuple[str, str]], *, step: str) -> tuple[list[PairScores], StepUsage]:
        """P(supported/contradicted/unverifiable) for each (passage, claim) pair (one request).

        Raises ConfigError when the backend is not a pair classifier.
        """
        started = time.perf_counter()
        with judge_call(self.model_id, step, "classify") as span:
            scores = await _naming_step(self.backend().classify(pairs), step)
            tokens(span, sum(s.tokens for s in scores), 0)
        usage = self._usage(calls=1, attempts=1, prompt_tokens=sum(s.tokens for s in scores))
        usage.latency_s = time.perf_counter() - started
        return scores, usage

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

        json_schema = json_schema_of(schema)

        async def ask() -> tuple[T, StepUsage]:
            structured = self.capabilities.structured
            messages = self.messages(prompt, system=system, schema=json_schema, structured=structured)
            policy = self.retry_policy()
            return await policy.generate(
                completer(self, json_schema, schema.__name__, policy, step),
                messages,
                schema,
                max_tokens=max_tokens or self.max_tokens,
                step=step,
                model=self.model_id,
                check=check,
                prices=self.capabilities.prices,
            )

        if not cache:
            return await ask()
        key_messages = [{"role": "system", "content": system or ""}, {"role": "user", "content": prompt}]
        key = cache_key(self.model_id, key_messages, json_schema, max_tokens=max_tokens, base_url=self.base_url)
        hit, value = await self._memo.get_or_run(key, ask)
        return (value[0], self._usage()) if hit else value

    def messages(self, prompt: str, *, system: str | None, schema: dict[str, Any], structured: str) -> list[Message]:
        """The chat messages sent for ``prompt`` (schema in the prompt unless the server enforces it)."""
        system_parts = [p for p in (self.config.instructions, system) if p]
        user = prompt
        if structured != "json_schema":
            user = prompt + "\n\n" + render(SCHEMA_INSTRUCTION, schema=json.dumps(schema))
        out: list[Message] = []
        if system_parts:
            out.append({"role": "system", "content": "\n\n".join(system_parts)})
        out.append({"role": "user", "content": user})
        return out


async def _naming_step(awaitable: Any, step: str) -> Any:
    """``await awaitable``; a JudgeError raised by it names ``step``."""
    try:
        return await awaitable
    except JudgeError as exc:
        exc.step = exc.step or step
        raise
