"""A LangGraph graph, or any LangChain runnable that takes ``{"messages": [...]}``, as a target:
``ainvoke`` with a run id of troth's; the answer is the last AI message, the tool results are
the tool messages (a retriever tool's documents too), usage summed over the AI messages."""

from __future__ import annotations

import uuid
from typing import Any

from troth.agents.run import AgentRun, as_text, assemble


async def run(runnable: Any, value: Any) -> AgentRun:
    """One run of ``runnable`` on ``value`` (a question, or a list of messages)."""
    run_id = uuid.uuid4()
    messages = value if isinstance(value, list) else [("user", value)]
    result = await runnable.ainvoke({"messages": messages}, config={"run_id": run_id})
    found = result.get("messages", []) if isinstance(result, dict) else [result]
    calls: dict[str, dict[str, Any]] = {}
    usage = {"input_tokens": 0, "output_tokens": 0, "requests": 0}
    answer = ""
    for message in found:
        kind = getattr(message, "type", None)
        if kind == "ai":
            for call in getattr(message, "tool_calls", None) or []:
                calls[str(call.get("id"))] = {"name": call.get("name", "tool"), "arguments": call.get("args")}
            counted = getattr(message, "usage_metadata", None) or {}
            usage["input_tokens"] += int(counted.get("input_tokens", 0))
            usage["output_tokens"] += int(counted.get("output_tokens", 0))
            usage["requests"] += 1
            answer = _text(message.content) or answer
        elif kind == "tool":
            call_id = str(getattr(message, "tool_call_id", len(calls)))
            calls.setdefault(call_id, {"name": getattr(message, "name", None) or "tool", "arguments": None})
            calls[call_id]["output"] = _text(message.content)
    return assemble("langgraph", answer, calls, usage, run_id)


def _text(content: Any) -> str:
    """A message's content as text: a string, or the text parts of a list of parts."""
    if isinstance(content, list):
        return "\n".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content).strip()
    return as_text(content)
