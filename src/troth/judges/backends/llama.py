"""The local LLM judge: a GGUF model run in-process by llama.cpp (``pip install "troth[local-llm]"``).

The model is loaded once per process and shared; calls are serialised (llama.cpp contexts
are not thread-safe) and run in a worker thread. Each answer is first generated freely and,
when it is not valid JSON for the schema, generated again under llama.cpp's JSON-schema
grammar, which is slower but cannot produce invalid JSON. :meth:`LlamaBackend.choose` reads the
probabilities of one-word answers from the logits of the first generated position instead.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import math
import os
import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from troth.errors import ContextTooLongError, ModelLoadError
from troth.extras import load
from troth.judges.backends.llama_models import ResolvedModel, check_gguf, resolve_model
from troth.judges.base import BackendBase, Choice, Completion, CompletionRequest, Message, bare_choice
from troth.judges.capabilities import Capabilities
from troth.judges.options import BackendOptions
from troth.values import FREE

DEFAULT_N_CTX = 8192
EXTRA = "local-llm"
"""The extra this backend needs."""
MAX_TOKENS = 1024
"""A small local model that loops is slow to stop: its budget is tight and fixed."""

_models: dict[tuple[str, int], Any] = {}
_models_lock = threading.Lock()


def _import_llama() -> Any:
    return load("llama_cpp", EXTRA)


@atexit.register
def _close_models() -> None:
    """Free the models before interpreter teardown (late frees print tracebacks from llama.cpp)."""
    with _models_lock:
        for llm in _models.values():
            llm.close()
        _models.clear()


def load_model(model: ResolvedModel, n_ctx: int = DEFAULT_N_CTX) -> Any:
    """The process-wide llama.cpp model for ``model`` (loaded on first use)."""
    key = (str(model.path), n_ctx)
    with _models_lock:
        if key not in _models:
            llama_cpp = _import_llama()
            check_gguf(model.path)
            threads = max(1, min(os.cpu_count() or 1, 8))
            try:
                _models[key] = llama_cpp.Llama(
                    model_path=str(model.path), n_ctx=n_ctx, n_threads=threads, seed=0, verbose=False
                )
            except (ValueError, RuntimeError) as exc:
                raise ModelLoadError(f"llama.cpp could not load {model.path}: {exc}") from exc
        return _models[key]


GRAMMAR_MAX_LENGTH = 500
"""Longest string a grammar allows: llama.cpp cannot parse (and crashes on) much longer repetitions."""


def grammar_schema(schema: Any) -> Any:
    """``schema`` with every ``maxLength`` capped at :data:`GRAMMAR_MAX_LENGTH` (the answer is still
    validated against the original)."""
    if isinstance(schema, dict):
        out = {k: grammar_schema(v) for k, v in schema.items()}
        if isinstance(out.get("maxLength"), int) and out["maxLength"] > GRAMMAR_MAX_LENGTH:
            out["maxLength"] = GRAMMAR_MAX_LENGTH
        return out
    if isinstance(schema, list):
        return [grammar_schema(v) for v in schema]
    return schema


def _looks_valid(text: str, schema: dict[str, Any]) -> bool:
    """Cheap check before falling back to the grammar: a JSON object with the required keys."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return bare_choice(text, schema) is not None
    return isinstance(data, dict) and all(k in data for k in schema.get("required", []))


DECLARED = Capabilities(choice_probabilities=True, prefix_reuse=True, fixed_token_budget=True,
                        default_max_tokens=MAX_TOKENS, prices=FREE)  # fmt: skip
"""What every local LLM does: answer prompts and read answer probabilities, in process, for free."""


class LlamaBackend(BackendBase):
    """Judge backend over a local GGUF model."""

    def __init__(self, model: ResolvedModel, *, n_ctx: int = DEFAULT_N_CTX) -> None:
        self.model = model
        self.n_ctx = n_ctx
        self.model_id = f"llm/{model.name}"
        self.capabilities = replace(DECLARED, context_window=n_ctx, yes_threshold=model.yes_threshold)
        self._lock = threading.Lock()
        self._grammars: dict[str, Any] = {}

    @classmethod
    def for_model(cls, name: str | None) -> LlamaBackend:
        """Resolve the model now (cheap); it is loaded at the first call."""
        return cls(resolve_model(name))

    def __repr__(self) -> str:
        return f"LlamaBackend(model_id={self.model_id!r}, path={str(self.model.path)!r})"

    async def complete(self, request: CompletionRequest) -> Completion:
        return await asyncio.to_thread(self._complete, request)

    def chat_completion(self, messages: list[Message], **settings: Any) -> dict[str, Any]:
        """One raw llama.cpp chat completion (serialised with every other call on this model); the
        OpenAI-compatible endpoint of the side-by-side benchmark serves through this."""
        with self._lock:
            response = load_model(self.model, self.n_ctx).create_chat_completion(messages=messages, **settings)
        return dict(response)

    def _grammar(self, schema: dict[str, Any]) -> Any:
        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            llama_cpp = _import_llama()
            capped = json.dumps(grammar_schema(schema), sort_keys=True)
            self._grammars[key] = llama_cpp.LlamaGrammar.from_json_schema(capped, verbose=False)
        return self._grammars[key]

    async def choose(self, messages: list[Message], choices: Sequence[str]) -> Choice:
        """The model's probabilities for each one-word answer in ``choices`` (one forward pass)."""
        return await asyncio.to_thread(self._choose, messages, tuple(choices))

    def _prompt_tokens(self, llm: Any, messages: list[Message]) -> int:
        """Tokens of ``messages``; a prompt that cannot fit the window is a ContextTooLongError."""
        prompt_tokens = sum(len(llm.tokenize(m["content"].encode(), add_bos=False)) for m in messages)
        if prompt_tokens + 64 > self.n_ctx:
            raise ContextTooLongError(
                f"the prompt is about {prompt_tokens:,} tokens, more than {self.model_id}'s window of "
                f"{self.n_ctx:,}; shorten the context or use a judge with a larger window"
            )
        return prompt_tokens

    def _choice_tokens(self, llm: Any, choices: tuple[str, ...]) -> dict[str, set[int]]:
        """First token of each choice as written, capitalised, and after a space."""
        tokens: dict[str, set[int]] = {}
        for choice in choices:
            variants = {choice, choice.capitalize(), " " + choice, " " + choice.capitalize()}
            tokens[choice] = {llm.tokenize(v.encode(), add_bos=False)[0] for v in variants}
        for a in choices:
            for b in choices:
                if a < b and tokens[a] & tokens[b]:
                    raise ValueError(f"choices {a!r} and {b!r} start with the same token; use distinct words")
        return tokens

    def _choose(self, messages: list[Message], choices: tuple[str, ...]) -> Choice:
        with self._lock:
            llm = load_model(self.model, self.n_ctx)
            self._prompt_tokens(llm, messages)
            tokens = self._choice_tokens(llm, choices)
            captured: list[Any] = []

            def capture(input_ids: Any, logits: Any) -> Any:
                if not captured:  # the first generated position: the answer's first token
                    captured.append(logits.astype("float64"))
                return logits

            response = llm.create_chat_completion(
                messages=messages, max_tokens=1, temperature=0.0, seed=0, logits_processor=[capture]
            )
        _, _, (prompt_used, _) = _unpack(response)
        logits = captured[0]
        top = float(logits.max())
        mass = {c: sum(math.exp(float(logits[t]) - top) for t in ids) for c, ids in tokens.items()}
        total = sum(mass.values())
        return Choice({c: m / total for c, m in mass.items()}, prompt_tokens=prompt_used)

    def _complete(self, request: CompletionRequest) -> Completion:
        messages, schema, max_tokens = request.messages, request.schema, request.max_tokens
        temperature, seed, retry = request.temperature, request.seed, request.retry
        with self._lock:
            llm = load_model(self.model, self.n_ctx)
            prompt_tokens = self._prompt_tokens(llm, messages)
            budget = min(max_tokens, self.n_ctx - prompt_tokens - 32)
            kwargs: dict[str, Any] = {"temperature": temperature, "max_tokens": budget, "seed": seed or 0}
            # Free decoding first (faster); the grammar on a retry or when the free answer is invalid.
            use_grammar = schema is not None and retry
            attempts = used_prompt = used_completion = 0
            while True:
                grammar = {"grammar": self._grammar(schema)} if use_grammar and schema is not None else {}
                response = llm.create_chat_completion(messages=messages, **grammar, **kwargs)
                text, finish, (prompt_used, completion_used) = _unpack(response)
                attempts += 1
                used_prompt += prompt_used
                used_completion += completion_used
                if use_grammar or schema is None or finish == "length" or _looks_valid(text, schema):
                    break
                use_grammar = True
        if finish == "length" and budget < max_tokens:
            raise ContextTooLongError(
                f"the answer was cut off at {budget} tokens because the prompt (about {prompt_tokens:,} tokens) "
                f"nearly fills {self.model_id}'s window of {self.n_ctx:,}; shorten the context"
            )
        return Completion(
            text=text,
            finish_reason=finish,
            prompt_tokens=used_prompt,
            completion_tokens=used_completion,
            attempts=attempts,
        )


def _unpack(response: Any) -> tuple[str, str | None, tuple[int, int]]:
    choice = response["choices"][0]
    usage = response.get("usage") or {}
    return (
        choice["message"].get("content") or "",
        choice.get("finish_reason"),
        (int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))),
    )


def from_options(options: BackendOptions) -> LlamaBackend:
    """``llm`` or ``llm/<name or path.gguf>``; the model is resolved now (cheap) and loaded at the first call."""
    return LlamaBackend.for_model(options.name or None)

