"""The HTTP judge backend: any OpenAI-compatible chat-completions server, through the openai SDK.

Retries of 429 (honouring Retry-After), 408/409, 5xx, connection errors and timeouts are the
SDK's: bounded, with exponential backoff and jitter. A reply that is not a valid chat
completion raises :class:`JudgeResponseError` (the retry policy asks again). The API key is
registered with :mod:`troth.redaction`, so a server that echoes it does not put it in an error.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from typing import Any

import httpx
import openai

from troth.errors import JudgeConnectionError, JudgeResponseError, MissingAPIKeyError
from troth.judges.base import BackendBase, Completion, CompletionRequest
from troth.judges.capabilities import Capabilities, StructuredMode
from troth.judges.config import JudgeConfig
from troth.judges.providers import PROVIDERS
from troth.judges.waits import WAIT_BUDGET, WaitBudget, over_budget, retry_after
from troth.redaction import contains_secret, remember
from troth.values import Prices


class OpenAICompatBackend(BackendBase):
    """Chat completions over HTTP with the openai SDK; one client per event loop."""

    def __init__(
        self,
        *,
        model_id: str,
        model_name: str,
        base_url: str,
        api_key: str,
        structured: StructuredMode,
        token_param: str = "max_tokens",
        timeout: float = 60.0,
        max_retries: int = 4,
        prices: Prices | None = None,
    ) -> None:
        self.model_id = model_id
        self.capabilities = Capabilities(structured=structured, prices=prices)
        self._model_name = model_name
        self._base_url = base_url
        self._api_key = api_key
        remember(api_key)
        self._token_param = token_param
        self._timeout = timeout
        self._max_retries = max_retries
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, openai.AsyncOpenAI] = (
            weakref.WeakKeyDictionary()
        )

    def __repr__(self) -> str:
        return f"OpenAICompatBackend(model_id={self.model_id!r}, base_url={self._base_url!r})"

    def _client(self) -> openai.AsyncOpenAI:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = openai.AsyncOpenAI(
                api_key=self._api_key,
                base_url=self._base_url,
                timeout=self._timeout,
                max_retries=self._max_retries,
                http_client=openai.DefaultAsyncHttpxClient(event_hooks={"response": [_watch_waits]}),
            )
            self._clients[loop] = client
        return client

    async def prepare(self) -> None:
        """The running event loop's HTTP client, made now (before a rate-limit slot)."""
        self._client()

    async def aclose(self) -> None:
        """Close the HTTP client of the running event loop (others are left alone)."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    def _request(self, request: CompletionRequest) -> dict[str, Any]:
        """The chat-completion request's arguments (structured output as the provider supports it)."""
        kwargs: dict[str, Any] = {
            "model": self._model_name,
            "messages": request.messages,
            "temperature": request.temperature,
            self._token_param: request.max_tokens,
        }
        if request.seed is not None:
            kwargs["seed"] = request.seed
        schema, schema_name = request.schema, request.schema_name
        if schema is not None and self.capabilities.structured == "json_schema":
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema_name, "schema": schema, "strict": False},
            }
        elif schema is not None and self.capabilities.structured == "json_object":
            kwargs["response_format"] = {"type": "json_object"}

        return kwargs

    async def complete(self, request: CompletionRequest) -> Completion:
        kwargs = self._request(request)
        tries = self._max_retries + 1
        try:
            raw = await self._client().chat.completions.with_raw_response.create(**kwargs)
        except _OverBudget as exc:
            raise over_budget(self.model_id, exc.status, exc.asked, exc.budget, asked=True) from None
        except openai.APITimeoutError as exc:
            raise JudgeConnectionError(
                f"request to {self.model_id} timed out after {self._timeout:g}s ({tries} attempts)",
                model=self.model_id,
            ) from _cause(exc)
        except openai.APIConnectionError as exc:
            raise JudgeConnectionError(
                f"could not reach {self._base_url} for {self.model_id} ({tries} attempts): {exc}",
                model=self.model_id,
            ) from _cause(exc)
        except openai.APIStatusError as exc:
            retried = exc.status_code in (408, 409, 429) or exc.status_code >= 500
            attempts = f" after {tries} attempts" if retried else ""
            raise JudgeConnectionError(
                f"{self.model_id} answered HTTP {exc.status_code}{attempts}: {_short(exc.message)}",
                model=self.model_id,
                status_code=exc.status_code,
                retry_after=retry_after(exc.response.headers),
            ) from _cause(exc)
        return self._completion(raw)

    def _completion(self, raw: Any) -> Completion:
        """The reply read as a chat completion, or JudgeResponseError saying what is wrong with it."""
        try:
            response = raw.parse()
            choices = response.choices
            choice = choices[0] if isinstance(choices, list) and choices else None
            message = choice.message if choice is not None else None
            text = message.content if message is not None else None
        except (ValueError, TypeError, AttributeError, IndexError) as exc:  # JSONDecodeError is a ValueError
            raise JudgeResponseError(
                f"{self.model_id} sent a reply that is not a chat completion: {exc}", model=self.model_id
            ) from _cause(exc)
        if choice is None:
            raise JudgeResponseError(f"{self.model_id} sent a chat completion without choices", model=self.model_id)
        if not isinstance(text, str):
            found = "no message" if message is None else f"content of type {type(text).__name__}"
            raise JudgeResponseError(f"{self.model_id} sent a choice with {found}, not text", model=self.model_id)
        usage = response.usage
        tokens = (getattr(usage, "prompt_tokens", 0), getattr(usage, "completion_tokens", 0)) if usage else (0, 0)
        return Completion(
            text=text,
            finish_reason=choice.finish_reason if isinstance(choice.finish_reason, str) else None,
            prompt_tokens=tokens[0] if isinstance(tokens[0], int) else 0,
            completion_tokens=tokens[1] if isinstance(tokens[1], int) else 0,
            attempts=raw.retries_taken + 1,
        )


class _OverBudget(openai.OpenAIError):
    """Raised from the HTTP client when a server asks for a wait the call's budget cannot pay: the
    SDK passes its own errors on at once, without retrying."""

    def __init__(self, status: int, asked: float, budget: WaitBudget) -> None:
        self.status, self.asked, self.budget = status, asked, budget
        super().__init__(f"HTTP {status}: asked to wait {asked:g}s")


async def _watch_waits(response: httpx.Response) -> None:
    """The HTTP client's response hook: a wait the server asks for (Retry-After), which the SDK
    would sleep before retrying, is paid from the judge call's wait budget, or fails the call."""
    budget = WAIT_BUDGET.get()
    if budget is None or response.status_code < 400:
        return
    asked = retry_after(response.headers)
    if asked is None or asked <= 0:
        return
    if not budget.fits(asked):
        raise _OverBudget(response.status_code, asked, budget)
    budget.waiting(asked)


def _cause(exc: BaseException) -> BaseException | None:
    """``exc`` to chain, or None when its text holds a key (the echo would escape through it)."""
    texts = [str(exc), repr(exc.body) if isinstance(exc, openai.APIStatusError) else ""]
    return None if any(contains_secret(t) for t in texts) else exc


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def http_endpoint(options: JudgeConfig) -> tuple[str, str, StructuredMode, str]:
    """Base URL, API key, structured mode and token parameter of an HTTP judge (checks the key)."""
    if options.provider == "custom":
        key = options.api_key or os.environ.get("TROTH_API_KEY") or "not-needed"
        return str(options.base_url), key, options.structured_output or "json_schema", "max_tokens"
    spec = PROVIDERS[options.provider]
    key = options.api_key or (os.environ.get(spec.env_var) if spec.env_var else None) or ""
    if not key:
        if spec.key_required and spec.env_var:
            raise MissingAPIKeyError(spec.name, spec.env_var)
        key = "not-needed"
    base_url = (os.environ.get(spec.url_var) if spec.url_var else None) or spec.base_url
    return base_url, key, options.structured_output or spec.structured, spec.token_param


def from_options(options: JudgeConfig) -> OpenAICompatBackend:
    """The backend for a ``"provider/model"`` string or a custom base URL (checks the API key)."""
    base_url, api_key, structured, token_param = http_endpoint(options)
    return OpenAICompatBackend(
        model_id=options.model,
        model_name=options.name,
        base_url=base_url,
        api_key=api_key,
        structured=structured,
        token_param=token_param,
        timeout=options.timeout,
        max_retries=options.max_retries,
    )
