"""An OpenAI Agents SDK ``Agent`` as a target: ``Runner.run`` inside a trace of its own, so the
run's trace id is known; tool calls paired with their outputs by call id."""

from __future__ import annotations

from typing import Any

from troth.agents.run import AgentRun, ToolCall, as_text


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
    return AgentRun(
        framework="openai-agents",
        output=as_text(result.final_output),
        tool_calls=[ToolCall(c["name"], c["arguments"], c.get("output"), i) for i, c in calls.items()],
        usage={"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens, "requests": usage.requests},
        run_id=getattr(current, "trace_id", None),
    )
