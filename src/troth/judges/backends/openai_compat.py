"""The HTTP judge backend: any OpenAI-compatible chat-completions server, through the openai SDK.

Retries of 429 (honouring Retry-After), 408/409, 5xx, connection errors and timeouts are the
SDK's: bounded, with exponential backoff and jitter.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

import openai

from troth.errors import JudgeConnectionError
from troth.judges.base import BackendBase, Completion, Message
from troth.judges.capabilities import Capabilities, Prices, StructuredMode
from troth.judges.registry import BackendOptions, http_endpoint


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
            )
            self._clients[loop] = client
        return client

    async def aclose(self) -> None:
        """Close the HTTP client of the running event loop (others are left alone)."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    def _request(
        self,
        messages: list[Message],
        schema: dict[str, Any] | None,
        schema_name: str,
        max_tokens: int,
        temperature: float,
        seed: int | None,
    ) -> dict[str, Any]:
        """The chat-completion request's arguments (structured output as the provider supports it)."""
        kwargs: dict[str, Any] = {
            "model": self._model_name,
            "messages": messages,
            "temperature": temperature,
            self._token_param: max_tokens,
        }
        if seed is not None:
            kwargs["seed"] = seed
        if schema is not None and self.capabilities.structured == "json_schema":
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema_name, "schema": schema, "strict": False},
            }
        elif schema is not None and self.capabilities.structured == "json_object":
            kwargs["response_format"] = {"type": "json_object"}

        return kwargs

    async def complete(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any] | None,
        schema_name: str,
        max_tokens: int,
        temperature: float,
        seed: int | None,
        retry: bool = False,
    ) -> Completion:
        kwargs = self._request(messages, schema, schema_name, max_tokens, temperature, seed)
        tries = self._max_retries + 1
        try:
            raw = await self._client().chat.completions.with_raw_response.create(**kwargs)
            response = raw.parse()
        except openai.APITimeoutError as exc:
            raise JudgeConnectionError(
                f"request to {self.model_id} timed out after {self._timeout:g}s ({tries} attempts)",
                model=self.model_id,
            ) from exc
        except openai.APIConnectionError as exc:
            raise JudgeConnectionError(
                f"could not reach {self._base_url} for {self.model_id} ({tries} attempts): {exc}",
                model=self.model_id,
            ) from exc
        except openai.APIStatusError as exc:
            retried = exc.status_code in (408, 409, 429) or exc.status_code >= 500
            attempts = f" after {tries} attempts" if retried else ""
            raise JudgeConnectionError(
                f"{self.model_id} answered HTTP {exc.status_code}{attempts}: {_short(exc.message)}",
                model=self.model_id,
                status_code=exc.status_code,
            ) from exc

        if not response.choices:
            return Completion(text="", finish_reason=None, attempts=raw.retries_taken + 1)
        choice = response.choices[0]
        usage = response.usage
        return Completion(
            text=choice.message.content or "",
            finish_reason=choice.finish_reason,
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
            attempts=raw.retries_taken + 1,
        )


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def from_options(options: BackendOptions) -> OpenAICompatBackend:
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
