"""The local GGUF model behind an OpenAI-compatible endpoint on loopback, so that every tool
(troth over HTTP, RAGAS, DeepEval) can be measured against the same offline judge.

    python -m bench.local_server --model qwen2.5-coder-1.5b     # prints the base URL, serves until ^C

Requests are served one at a time, through the library's own llama.cpp backend. ``response_format`` is honoured
with llama.cpp's JSON grammar: a ``json_schema`` request is constrained to its schema, a
``json_object`` request to JSON. Completions are capped at 1024 tokens for every tool alike,
so that a looping small model stops.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from troth import Judge
from troth.judges.backends.llama import LlamaBackend, grammar_schema
from troth.testing import FakeOpenAIServer, Reply
from troth.testing.server import Request

MAX_TOKENS = 1024


def response_format(body: dict[str, Any]) -> dict[str, Any] | None:
    """llama-cpp-python's form of the request's ``response_format`` (None for free text)."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        schema = (fmt.get("json_schema") or {}).get("schema")
        return {"type": "json_object", "schema": grammar_schema(schema)} if schema else {"type": "json_object"}
    if fmt.get("type") == "json_object":
        return {"type": "json_object"}
    return None


def text_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages with list-of-parts content (``[{"type": "text", "text": ...}]``) joined into text,
    the only form llama.cpp's chat templates accept."""
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        out.append({**m, "content": content})
    return out


class LocalModelResponder:
    """Answers chat completions with the local model (loaded on first use)."""

    def __init__(self, model: str | None = None) -> None:
        self.backend = LlamaBackend.for_model(model)

    def __call__(self, request: Request) -> Reply:
        body = request.body
        asked = body.get("max_completion_tokens") or body.get("max_tokens") or MAX_TOKENS
        try:
            response = self.backend.chat_completion(
                text_messages(body.get("messages") or []),
                temperature=float(body.get("temperature") or 0.0),
                max_tokens=min(int(asked), MAX_TOKENS),
                response_format=response_format(body),
                seed=0,
            )
        except ValueError as exc:  # e.g. a prompt longer than the window
            return Reply(status=400, body={"error": {"message": str(exc), "type": "invalid_request_error"}})
        except Exception as exc:  # answer the client rather than drop its connection
            message = f"{type(exc).__name__}: {exc}"
            return Reply(status=500, body={"error": {"message": message, "type": "server_error"}})
        return Reply(body=response)


@contextmanager
def judge_endpoint(local: str | None, base_url: str | None, model: str) -> Iterator[tuple[str, str]]:
    """(base URL, judge's name) for a bench: the local model served on loopback while the ``with``
    block runs when ``local`` is given ("" for the default model), else ``base_url`` as it is."""
    if local is None:
        yield str(base_url), f"{model} at {base_url}"
        return
    responder = LocalModelResponder(local or None)
    server = FakeOpenAIServer(responder=responder, record=False).start()
    try:
        yield server.base_url, responder.backend.model_id
    finally:
        server.stop()


def endpoint_judge(base_url: str, model: str) -> Judge:
    """The HTTP judge a bench points at an endpoint: temperature 0, up to 10 minutes a request
    (a small local model on 2 cores is slow)."""
    return Judge(model, base_url=base_url, api_key="bench", temperature=0.0, timeout=600)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="local model name or .gguf path (default: the resolution order)")
    args = parser.parse_args(argv)
    with FakeOpenAIServer(responder=LocalModelResponder(args.model)) as server:
        print(server.base_url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
