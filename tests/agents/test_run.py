"""What one agent run keeps, whatever the framework: tool arguments always a dict."""

from __future__ import annotations

from typing import Any

import pytest

from troth.agents.run import assemble, tool_arguments


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"topic": "bridge"}', {"topic": "bridge"}),  # the OpenAI Agents SDK, pydantic-ai: JSON text
        ({"topic": "bridge"}, {"topic": "bridge"}),  # LangGraph: a dict
        (None, {}),
        ("", {}),
        ("bridge", {"input": "bridge"}),  # text that is not JSON
        ("[1, 2]", {"input": [1, 2]}),  # JSON that is not an object
        (7, {"input": 7}),
    ],
)
def test_tool_arguments_are_a_dict_whatever_the_framework_gave(raw: Any, expected: dict[str, Any]) -> None:
    assert tool_arguments(raw) == expected


def test_a_run_assembled_from_json_arguments_keeps_them_as_a_dict() -> None:
    calls = {"c1": {"name": "lookup", "arguments": '{"topic": "bridge"}', "output": "It opened in 1932."}}
    run = assemble("openai-agents", "It opened in 1932.", calls, {"input_tokens": 3}, "r1")
    assert run.summary()["tool_calls"] == [
        {"name": "lookup", "arguments": {"topic": "bridge"}, "output": "It opened in 1932.", "id": "c1"}
    ]
