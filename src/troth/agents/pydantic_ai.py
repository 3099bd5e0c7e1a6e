"""A pydantic-ai ``Agent`` as a target: ``agent.run``; tool calls read from the run's messages
(``ToolCallPart`` and ``ToolReturnPart``, paired by call id)."""

from __future__ import annotations

import inspect
from typing import Any

from troth.agents.run import AgentRun, as_text, assemble


async def run(agent: Any, value: Any) -> AgentRun:
    """One run of ``agent`` on ``value``."""
    result = await agent.run(value)
    calls: dict[str, dict[str, Any]] = {}
    for message in result.all_messages():
        for part in message.parts:
            kind = type(part).__name__
            if kind == "ToolCallPart":
                calls[part.tool_call_id] = {"name": part.tool_name, "arguments": part.args}
            elif kind == "ToolReturnPart":
                calls.setdefault(part.tool_call_id, {"name": part.tool_name, "arguments": None})["output"] = as_text(
                    part.content
                )
    usage = result.usage() if inspect.ismethod(result.usage) else result.usage  # a method before pydantic-ai 2
    return assemble("pydantic-ai", result.output, calls, usage, getattr(result, "run_id", None))
