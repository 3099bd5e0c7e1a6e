"""The child process that runs a GGUF model for the local LLM judge (``llm``).

``python -m troth.judges.backends.llama_worker MODEL.gguf N_CTX`` reads one JSON request a line
on standard input and writes one JSON answer a line; llama.cpp lives only here, so a native
crash ends this process and not the caller (see :mod:`troth.judges.backends.llama_process`).

A request is ``{"op": "complete" | "choose" | "chat", "args": {...}}``; the answer is
``{"ok": ...}`` or ``{"error": {"type": ..., "message": ...}}``. The model is loaded at the first
request. Each answer is first generated freely and, when it is not valid JSON for the schema,
generated again under llama.cpp's JSON-schema grammar, which is slower but cannot produce invalid
JSON. ``choose`` reads the probabilities of one-word answers from the logits of the first
generated position.
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from troth.errors import ContextTooLongError, ModelLoadError
from troth.judges.backends.llama_models import check_gguf
from troth.judges.base import bare_choice

GRAMMAR_MAX_LENGTH = 500
"""Longest string a grammar allows: llama.cpp cannot parse (and crashes on) much longer repetitions."""

Handler = Callable[[str, dict[str, Any]], Any]
"""One request's operation and arguments -> its JSON-serialisable answer."""


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


def _unpack(response: Any) -> tuple[str, str | None, int, int]:
    choice = response["choices"][0]
    usage = response.get("usage") or {}
    text = choice["message"].get("content") or ""
    return text, choice.get("finish_reason"), int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))


class LlamaModel:
    """One GGUF model loaded by llama.cpp (at the first call), answering the worker's operations."""

    def __init__(self, path: str, n_ctx: int, model_id: str) -> None:
        self.path, self.n_ctx, self.model_id = path, n_ctx, model_id
        self._llm: Any = None
        self._grammars: dict[str, Any] = {}

    def __call__(self, op: str, args: dict[str, Any]) -> Any:
        if op == "complete":
            return self.complete(**args)
        if op == "choose":
            return self.choose(**args)
        if op == "chat":
            return dict(self.llm.create_chat_completion(**args))
        raise ValueError(f"unknown operation {op!r}")

    @property
    def llm(self) -> Any:
        if self._llm is None:
            import llama_cpp

            check_gguf(Path(self.path))
            threads = max(1, min(os.cpu_count() or 1, 8))
            try:
                self._llm = llama_cpp.Llama(
                    model_path=self.path, n_ctx=self.n_ctx, n_threads=threads, seed=0, verbose=False
                )
            except (ValueError, RuntimeError) as exc:
                raise ModelLoadError(f"llama.cpp could not load {self.path}: {exc}") from exc
        return self._llm

    def _grammar(self, schema: dict[str, Any]) -> Any:
        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            from llama_cpp.llama_grammar import LlamaGrammar

            capped = json.dumps(grammar_schema(schema), sort_keys=True)
            self._grammars[key] = LlamaGrammar.from_json_schema(capped, verbose=False)
        return self._grammars[key]

    def prompt_tokens(self, messages: list[dict[str, str]]) -> int:
        """Tokens of ``messages``; a prompt that cannot fit the window is a ContextTooLongError."""
        tokens = sum(len(self.llm.tokenize(m["content"].encode(), add_bos=False)) for m in messages)
        if tokens + 64 > self.n_ctx:
            raise ContextTooLongError(
                f"the prompt is about {tokens:,} tokens, more than {self.model_id}'s window of "
                f"{self.n_ctx:,}; shorten the context or use a judge with a larger window"
            )
        return tokens

    def complete(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any] | None,
        max_tokens: int,
        temperature: float,
        seed: int | None,
        retry: bool,
    ) -> dict[str, Any]:
        """A completion, free first and under the schema's grammar when the free answer is invalid
        (or straight away on a ``retry``)."""
        prompt_tokens = self.prompt_tokens(messages)
        budget = min(max_tokens, self.n_ctx - prompt_tokens - 32)
        kwargs: dict[str, Any] = {"temperature": temperature, "max_tokens": budget, "seed": seed or 0}
        use_grammar = schema is not None and retry
        attempts = used_prompt = used_completion = 0
        while True:
            grammar = {"grammar": self._grammar(schema)} if use_grammar and schema is not None else {}
            text, finish, prompt_used, completion_used = _unpack(
                self.llm.create_chat_completion(messages=messages, **grammar, **kwargs)
            )
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
        return {
            "text": text,
            "finish_reason": finish,
            "prompt_tokens": used_prompt,
            "completion_tokens": used_completion,
            "attempts": attempts,
        }

    def _choice_tokens(self, choices: list[str]) -> dict[str, set[int]]:
        """First token of each choice as written, capitalised, and after a space."""
        tokens: dict[str, set[int]] = {}
        for choice in choices:
            variants = {choice, choice.capitalize(), " " + choice, " " + choice.capitalize()}
            tokens[choice] = {self.llm.tokenize(v.encode(), add_bos=False)[0] for v in variants}
        for a in choices:
            for b in choices:
                if a < b and tokens[a] & tokens[b]:
                    raise ValueError(f"choices {a!r} and {b!r} start with the same token; use distinct words")
        return tokens

    def choose(self, messages: list[dict[str, str]], choices: list[str]) -> dict[str, Any]:
        """The probabilities of each one-word answer in ``choices``, from one forward pass."""
        self.prompt_tokens(messages)
        tokens = self._choice_tokens(choices)
        captured: list[Any] = []

        def capture(input_ids: Any, logits: Any) -> Any:
            if not captured:  # the first generated position: the answer's first token
                captured.append(logits.astype("float64"))
            return logits

        response = self.llm.create_chat_completion(
            messages=messages, max_tokens=1, temperature=0.0, seed=0, logits_processor=[capture]
        )
        prompt_used = _unpack(response)[2]
        logits = captured[0]
        top = float(logits.max())
        mass = {c: sum(math.exp(float(logits[t]) - top) for t in ids) for c, ids in tokens.items()}
        total = sum(mass.values())
        return {"probabilities": {c: m / total for c, m in mass.items()}, "prompt_tokens": prompt_used}

    def close(self) -> None:
        if self._llm is not None:
            self._llm.close()  # before interpreter teardown: late frees print tracebacks from llama.cpp
            self._llm = None


def answer(handler: Handler, line: str) -> dict[str, Any]:
    """The answer to one request line: the handler's result, or the error it raised."""
    try:
        request = json.loads(line)
        return {"ok": handler(request["op"], request.get("args") or {})}
    except Exception as exc:  # sent back to the caller, which raises it there
        return {"error": {"type": type(exc).__name__, "message": str(exc)}}


def protocol_streams() -> tuple[IO[str], IO[str]]:
    """Standard input, and a private copy of standard output; file descriptor 1 then points at
    standard error, so that what llama.cpp prints cannot corrupt the answers."""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return sys.stdin, out


def serve(handler: Handler, requests: IO[str], answers: IO[str]) -> None:
    """Answer each request line until standard input closes."""
    for line in requests:
        if line.strip():
            answers.write(json.dumps(answer(handler, line)) + "\n")
            answers.flush()


def main(argv: list[str] | None = None) -> int:
    path, n_ctx, model_id = (argv if argv is not None else sys.argv[1:])[:3]
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the caller's: this process ends when its input closes
    requests, answers = protocol_streams()
    model = LlamaModel(path, int(n_ctx), model_id)
    try:
        serve(model, requests, answers)
    finally:
        model.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
