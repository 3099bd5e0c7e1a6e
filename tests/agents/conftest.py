"""Agents of three frameworks against the loopback model: scripted to call one tool, then answer."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from troth.testing import FakeOpenAIServer, ToolCallingModel

REQUIRED = os.environ.get("TROTH_REQUIRE_AGENTS") == "1"
TOOL_RESULT = "The Harbour Bridge opened in 1932 and is 134 m high."
ANSWER = "The Harbour Bridge opened in 1932."
TOOL_ARGUMENTS = {"topic": "bridge"}  # what the scripted model asks lookup for


def scripted_agent_model(answer: str = ANSWER, call_tool: bool = True) -> ToolCallingModel:
    """A model that asks for ``lookup(topic="bridge")`` once, then answers once the tool's result is in."""
    return ToolCallingModel(answer, call_tool=call_tool)


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
