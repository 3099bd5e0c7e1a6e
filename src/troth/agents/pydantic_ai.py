"""A pydantic-ai ``Agent`` as a target (``agent.run``), and watched live by a Monitor through
its own hook, a capability: ``Agent(..., capabilities=[troth_hooks(monitor)])``. Tool calls are
read from the run's messages (``ToolCallPart`` and ``ToolReturnPart``, paired by call id)."""

from __future__ import annotations

import inspect
import logging
from typing import Any

from troth.agents.run import AgentRun, Recorder, as_text, assemble

log = logging.getLogger("troth.live.monitor")


async def run(agent: Any, value: Any) -> AgentRun:
    """One run of ``agent`` on ``value``."""
    return read_result(await agent.run(value))


def read_result(result: Any) -> AgentRun:
    """An ``AgentRunResult`` as a run: its output, its tool calls and results, usage and run id."""
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


def troth_hooks(monitor: Recorder) -> Any:
    """A pydantic-ai ``Hooks`` capability recording each finished run of the agent on
    ``monitor`` (its prompt, answer, tool results as context, usage and run id)."""
    from pydantic_ai.capabilities import Hooks

    async def after_run(ctx: Any, *, result: Any) -> Any:
        try:
            question = ctx.prompt if isinstance(ctx.prompt, str) else as_text(ctx.prompt)
            monitor.record_run(question, read_result(result))
        except Exception:  # the agent's run is never affected
            log.exception("troth monitor could not record a pydantic-ai run")
        return result

    return Hooks(after_run=after_run)
