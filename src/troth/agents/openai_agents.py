"""An OpenAI Agents SDK ``Agent`` as a target: ``Runner.run`` inside a trace of its own, so the
run's trace id is known; tool calls paired with their outputs by call id."""

from __future__ import annotations

from typing import Any

from troth.agents.run import AgentRun, as_text, assemble


async def run(agent: Any, value: Any) -> AgentRun:
    """One run of ``agent`` on ``value``."""
    from agents import Runner, trace

    with trace("troth evaluation") as current:
        result = await Runner.run(agent, value)
    calls: dict[str, dict[str, Any]] = {}
    for item in result.new_items:
        raw = getattr(item, "raw_item", None)
        kind = type(item).__name__
        if kind == "ToolCallItem":
            call_id = str(getattr(raw, "call_id", None) or getattr(raw, "id", None) or len(calls))
            calls[call_id] = {"name": getattr(raw, "name", "tool"), "arguments": getattr(raw, "arguments", None)}
        elif kind == "ToolCallOutputItem":
            call_id = str(raw.get("call_id") if isinstance(raw, dict) else getattr(raw, "call_id", len(calls)))
            calls.setdefault(call_id, {"name": "tool", "arguments": None})["output"] = as_text(item.output)
    usage = result.context_wrapper.usage
    return assemble("openai-agents", result.final_output, calls, usage, getattr(current, "trace_id", None))
