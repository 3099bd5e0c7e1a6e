"""An OpenAI Agents SDK ``Agent`` as a target (``Runner.run`` inside a trace of its own, so the
run's trace id is known; tool calls paired with their outputs by call id), and watched live by a
Monitor through the SDK's own hook, a tracing processor: ``add_trace_processor(TrothProcessor(monitor))``."""

from __future__ import annotations

import logging
import threading
import uuid
from collections import OrderedDict
from typing import Any

from agents.tracing import TracingProcessor

from troth.agents.run import AgentRun, Recorder, ToolCall, as_text, assemble, tool_arguments

log = logging.getLogger("troth.live.monitor")
warn = logging.getLogger("troth.agents")
NO_OP = "no-op"  # the trace id of every run while the SDK's tracing is disabled
_warned = False
MAX_OPEN_TRACES = 10_000  # traces started and not ended that are tracked at most (the oldest are let go)


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
    return assemble("openai-agents", result.final_output, calls, usage, _run_id(current))


def _run_id(current: Any) -> str:
    """The run's trace id; with the SDK's tracing disabled (a no-op trace), an id of troth's own,
    and a warning, once, that live hooks see nothing then."""
    trace_id = getattr(current, "trace_id", None)
    if trace_id and trace_id != NO_OP:
        return str(trace_id)
    global _warned
    if not _warned:
        _warned = True
        warn.warning(
            "the Agents SDK's tracing is disabled: runs get troth's own ids, and a TrothProcessor records "
            "nothing; to keep traces local instead, leave tracing on and call "
            "agents.set_trace_processors([TrothProcessor(monitor)])"
        )
    return f"troth-{uuid.uuid4().hex}"


class _Trace:
    """What the spans of one trace said so far: the first input, the last answer, tool calls, usage."""

    def __init__(self) -> None:
        self.input: Any = None
        self.output: str | None = None
        self.tool_calls: list[ToolCall] = []
        self.usage = {"input_tokens": 0, "output_tokens": 0, "requests": 0}

    def add(self, data: Any) -> None:
        kind = type(data).__name__
        if kind == "FunctionSpanData":
            output = None if data.output is None else as_text(data.output)
            self.tool_calls.append(ToolCall(data.name, tool_arguments(data.input), output))
        elif kind in ("GenerationSpanData", "ResponseSpanData"):
            self.usage["requests"] += 1
            if kind == "GenerationSpanData":
                counted, answer = data.usage or {}, _answer(data.output)
            else:
                counted, answer = _response_usage(data.response), getattr(data.response, "output_text", "")
            self.usage["input_tokens"] += int(counted.get("input_tokens", 0) or 0)
            self.usage["output_tokens"] += int(counted.get("output_tokens", 0) or 0)
            if self.input is None:
                self.input = _first_user_text(data.input)
            self.output = answer or self.output


class TrothProcessor(TracingProcessor):
    """Records each finished trace (an agent run) on ``monitor``: the first user message, the last
    model answer, what the function tools returned as context, usage and the trace id. Needs the
    SDK's tracing on and its sensitive data kept in spans (the defaults)."""

    def __init__(self, monitor: Recorder) -> None:
        self.monitor = monitor
        self._lock = threading.Lock()
        self._open: OrderedDict[str, _Trace] = OrderedDict()

    def on_trace_start(self, trace: Any) -> None:
        with self._lock:
            self._open[trace.trace_id] = _Trace()
            if len(self._open) > MAX_OPEN_TRACES:  # a trace that never ended
                self._open.popitem(last=False)

    def on_span_start(self, span: Any) -> None:
        """Nothing to note until a span ends."""

    def on_span_end(self, span: Any) -> None:
        try:
            with self._lock:
                found = self._open.get(span.trace_id)
                if found is not None:
                    found.add(span.span_data)
        except Exception:  # the agent's run is never affected
            log.exception("troth monitor could not read an Agents SDK span")

    def on_trace_end(self, trace: Any) -> None:
        with self._lock:
            found = self._open.pop(trace.trace_id, None)
        if found is None or found.output is None:
            return  # no model answer in its spans: nothing to score
        try:
            agent_run = AgentRun("openai-agents", found.output, found.tool_calls, found.usage, trace.trace_id)
            self.monitor.record_run(found.input, agent_run)
        except Exception:
            log.exception("troth monitor could not record an Agents SDK run")

    def shutdown(self) -> None:
        with self._lock:
            self._open.clear()

    def force_flush(self) -> None:
        """Runs are queued on the monitor as they end; ``Monitor.flush`` waits for their scores."""


def _first_user_text(messages: Any) -> Any:
    """The first user message's text of a model call's input (a string input is the question)."""
    if isinstance(messages, str):
        return messages
    for message in messages or []:
        if isinstance(message, dict) and message.get("role") == "user":
            return _content(message.get("content"))
    return None


def _answer(messages: Any) -> str | None:
    """The text of the last assistant message of a model call's output, if it has text."""
    for message in reversed(messages or []):
        if isinstance(message, dict) and message.get("role") == "assistant" and message.get("content"):
            return _content(message["content"])
    return None


def _content(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict)).strip()
    return as_text(content)


def _response_usage(response: Any) -> dict[str, Any]:
    usage = getattr(response, "usage", None)
    return {"input_tokens": getattr(usage, "input_tokens", 0), "output_tokens": getattr(usage, "output_tokens", 0)}
