"""What one agent run came to, whatever the framework: the answer, the tool calls and what
they returned, the tokens it used and the framework's own run id."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from troth.telemetry import SpanRef
from troth.text.transcripts import as_segment


class Recorder(Protocol):
    """What a framework's live hook records a finished run on: a :class:`~troth.live.Monitor`."""

    def record_run(self, question: Any, run: AgentRun) -> bool: ...


@dataclass(frozen=True)
class ToolCall:
    """One tool call of a run and what it returned (``output`` None: no result came back)."""

    name: str
    arguments: dict[str, Any]
    output: str | None = None
    id: str | None = None


@dataclass(frozen=True)
class AgentRun:
    """One run of an agent: its final answer, its tool calls, its token usage, its run id."""

    framework: str
    output: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)  # input_tokens, output_tokens, requests
    run_id: str | None = None
    framework_run_id: str | None = None  # the framework's own id, when run_id is the trace's

    @property
    def context(self) -> list[str]:
        """What the tool calls returned, one segment each, in order (the context to score against)."""
        return [c.output for c in self.tool_calls if c.output is not None and c.output.strip()]

    def in_trace(self, trace: SpanRef | None) -> AgentRun:
        """The run under the id of the trace it ran in (a span being recorded), the framework's
        own id kept as ``framework_run_id``, so that a stored run joins its trace; unchanged
        without one."""
        if trace is None:
            return self
        return replace(self, run_id=f"{trace.trace_id:032x}", framework_run_id=self.run_id)

    def summary(self) -> dict[str, Any]:
        """What an evaluated item keeps of the run (in its ``metadata["agent"]``)."""
        calls = [{"name": c.name, "arguments": c.arguments, "output": c.output, "id": c.id} for c in self.tool_calls]
        found = {"framework": self.framework, "run_id": self.run_id, "tool_calls": calls, "usage": dict(self.usage)}
        return found | ({"framework_run_id": self.framework_run_id} if self.framework_run_id else {})


def as_text(value: Any) -> str:
    """A tool's result or an answer as text, as a transcript's tool result is (a model's fields as JSON)."""
    return as_segment(value.model_dump() if hasattr(value, "model_dump") else value)


def assemble(framework: str, output: Any, calls: dict[str, dict[str, Any]], usage: Any, run_id: Any) -> AgentRun:
    """A run from the calls gathered by call id (``name``, ``arguments``, ``output`` when it came
    back) and a usage with ``input_tokens``, ``output_tokens`` and ``requests`` (object or dict)."""
    keys = ("input_tokens", "output_tokens", "requests")
    found = usage if isinstance(usage, dict) else {key: getattr(usage, key, 0) for key in keys}
    counts = {key: int(found.get(key, 0) or 0) for key in keys}
    tool_calls = [ToolCall(c["name"], tool_arguments(c["arguments"]), c.get("output"), i) for i, c in calls.items()]
    return AgentRun(framework, as_text(output), tool_calls, counts, None if run_id is None else str(run_id))


def tool_arguments(raw: Any) -> dict[str, Any]:
    """A tool call's arguments as a dict whatever the framework gave: a JSON object as text is
    parsed, nothing is ``{}``, and anything else is kept under ``"input"``."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            return {"input": raw}
    if isinstance(raw, Mapping):
        return {str(k): v for k, v in raw.items()}
    return {"input": raw.model_dump() if hasattr(raw, "model_dump") else raw}
