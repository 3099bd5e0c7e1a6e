"""Agents of three frameworks against the loopback model: scripted to call one tool, then answer."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from troth.testing import FakeOpenAIServer, Reply
from troth.testing.server import Request

REQUIRED = os.environ.get("TROTH_REQUIRE_AGENTS") == "1"
TOOL_RESULT = "The Harbour Bridge opened in 1932 and is 134 m high."
ANSWER = "The Harbour Bridge opened in 1932."


def completion(message: dict[str, Any], finish: str, tokens: tuple[int, int]) -> Reply:
    return Reply(body={"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                       "choices": [{"index": 0, "finish_reason": finish, "message": message}],
                       "usage": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1],
                                 "total_tokens": sum(tokens)}})  # fmt: skip


def scripted_agent_model(answer: str = ANSWER, call_tool: bool = True) -> Callable[[Request], Reply]:
    """A model that asks for ``lookup(topic="bridge")`` once, then answers once the tool's result is in."""

    def reply(request: Request) -> Reply:
        if not call_tool or any(m.get("role") == "tool" for m in request.body.get("messages", [])):
            return completion({"role": "assistant", "content": answer}, "stop", (20, 7))
        arguments = json.dumps({"topic": "bridge"})
        call = {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": arguments}}
        return completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls", (10, 5))

    return reply


def lookup(topic: str) -> str:
    """Look a topic up in the city's records."""
    return TOOL_RESULT if topic == "bridge" else "nothing found"


@pytest.fixture
def model_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(scripted_agent_model()) as server:
        yield server


def need(module: str) -> None:
    """Skip (or fail, with TROTH_REQUIRE_AGENTS=1) when a framework is not installed."""
    try:
        __import__(module)
    except ImportError:
        if REQUIRED:
            raise
        pytest.skip(f"{module} is not installed")
