"""The local LLM judge: a GGUF model run by llama.cpp (``pip install "troth[llm]"``).

The model runs in a child process (:mod:`troth.judges.backends.llama_process`) that judges of
the same model share: calls are serialised and wait in a worker thread, and a native crash of
llama.cpp fails the call in flight as :class:`~troth.errors.JudgeCrashedError` instead of ending
the caller. What the model does with a request is :mod:`troth.judges.backends.llama_worker`'s.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from troth.extras import require
from troth.judges.backends.llama_models import ResolvedModel, resolve_model
from troth.judges.backends.llama_process import (
    DEFAULT_RESTARTS,
    DEFAULT_WORKER,
    WorkerSpec,
    process_for,
    worker_command,
)
from troth.judges.backends.llama_worker import GRAMMAR_MAX_LENGTH, grammar_schema
from troth.judges.base import BackendBase, Choice, Completion, CompletionRequest, Message
from troth.judges.capabilities import Capabilities
from troth.judges.config import JudgeConfig
from troth.values import FREE

__all__ = ["DECLARED", "DEFAULT_N_CTX", "EXTRA", "GRAMMAR_MAX_LENGTH", "MAX_TOKENS", "LlamaBackend", "grammar_schema"]

DEFAULT_N_CTX = 8192
EXTRA = "llm"
"""The extra this backend needs."""
MAX_TOKENS = 1024
"""A small local model that loops is slow to stop: its budget is tight and fixed."""

DECLARED = Capabilities(
    choice_probabilities=True, prefix_reuse=True, fixed_token_budget=True, default_max_tokens=MAX_TOKENS, prices=FREE
)
"""What every local LLM does: answer prompts and read answer probabilities, on this machine, for free."""


class LlamaBackend(BackendBase):
    """Judge backend over a local GGUF model; ``restarts``: crashes of its process survived by
    starting a new one (then the judge is broken)."""

    def __init__(self, model: ResolvedModel, *, n_ctx: int = DEFAULT_N_CTX, restarts: int = DEFAULT_RESTARTS) -> None:
        self.model = model
        self.n_ctx = n_ctx
        self.model_id = f"llm/{model.name}"
        self.capabilities = replace(DECLARED, context_window=n_ctx, yes_threshold=model.yes_threshold)
        self.spec = WorkerSpec(worker_command(), str(model.path), n_ctx, self.model_id, restarts)
        if self.spec.command == DEFAULT_WORKER:
            require(EXTRA)  # the default worker imports llama.cpp: a missing install is named here

    @classmethod
    def for_model(cls, name: str | None) -> LlamaBackend:
        """Resolve the model now (cheap); its process starts at the first call."""
        return cls(resolve_model(name))

    def __repr__(self) -> str:
        return f"LlamaBackend(model_id={self.model_id!r}, path={str(self.model.path)!r})"

    def _call(self, op: str, args: dict[str, Any]) -> Any:
        return process_for(self.spec).call(op, args)

    async def complete(self, request: CompletionRequest) -> Completion:
        args = {
            "messages": request.messages,
            "schema": request.schema,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "seed": request.seed,
            "retry": request.retry,
        }
        done = await asyncio.to_thread(self._call, "complete", args)
        return Completion(**done)

    async def choose(self, messages: list[Message], choices: Sequence[str]) -> Choice:
        """The model's probabilities for each one-word answer in ``choices`` (one forward pass)."""
        done = await asyncio.to_thread(self._call, "choose", {"messages": messages, "choices": list(choices)})
        return Choice(done["probabilities"], prompt_tokens=done["prompt_tokens"])

    def chat_completion(self, messages: list[Message], **settings: Any) -> dict[str, Any]:
        """One raw llama.cpp chat completion (serialised with every other call on this model); the
        OpenAI-compatible endpoint of the side-by-side benchmark serves through this."""
        answer: dict[str, Any] = self._call("chat", {"messages": messages, **settings})
        return answer


def from_options(options: JudgeConfig) -> LlamaBackend:
    """``llm`` or ``llm/<name or path.gguf>``; the model is resolved now (cheap) and loaded at the first call."""
    return LlamaBackend.for_model(options.name or None)
