"""A LangGraph graph, or any LangChain runnable that takes ``{"messages": [...]}``, as a target
(``ainvoke`` with a run id of troth's), and watched live by a Monitor through LangChain's own
hook, a callback handler: ``config={"callbacks": [TrothCallback(monitor)]}``. The answer is the
last AI message, the tool results are the tool messages, and a retriever's documents are
context too; usage is summed over the AI messages."""

from __future__ import annotations

import logging
import threading
import uuid
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

from troth.agents.run import AgentRun, Recorder, as_text, assemble

log = logging.getLogger("troth.live.monitor")
MAX_OPEN_RUNS = 10_000  # runs started and not ended that are tracked at most (the oldest are let go)


async def run(runnable: Any, value: Any) -> AgentRun:
    """One run of ``runnable`` on ``value`` (a question, or a list of messages)."""
    run_id = uuid.uuid4()
    messages = value if isinstance(value, list) else [("user", value)]
    result = await runnable.ainvoke({"messages": messages}, config={"run_id": run_id})
    return read_output(result, run_id)


def read_output(result: Any, run_id: Any, documents: list[str] | None = None) -> AgentRun:
    """A graph's output (its ``messages``, or one message) as a run; ``documents``: what its
    retrievers returned, kept as context after the tool results."""
    found = result.get("messages", []) if isinstance(result, dict) else [result]
    calls: dict[str, dict[str, Any]] = {}
    usage = {"input_tokens": 0, "output_tokens": 0, "requests": 0}
    answer = "" if not isinstance(result, str) else result
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
    for i, text in enumerate(documents or []):
        calls[f"retriever-{i}"] = {"name": "retriever", "arguments": None, "output": text}
    return assemble("langgraph", answer, calls, usage, run_id)


def _text(content: Any) -> str:
    """A message's content as text: a string, or the text parts of a list of parts."""
    if isinstance(content, list):
        return "\n".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content).strip()
    return as_text(content)


def _question(inputs: Any) -> Any:
    """What a run was asked: the first human message of its ``messages``, else its input."""
    messages = inputs.get("messages") if isinstance(inputs, dict) else None
    for message in messages or []:
        if isinstance(message, tuple) and len(message) == 2 and message[0] in ("user", "human"):
            return message[1]
        if getattr(message, "type", None) == "human":
            return _text(message.content)
    return inputs


class TrothCallback(BaseCallbackHandler):
    """Records each finished top-level run (a graph's invoke) on ``monitor``: its question, the
    last AI message as the answer, tool results and retrieved documents as context, run id."""

    run_inline = True  # a few dict operations: on the caller's event loop, not a thread pool

    def __init__(self, monitor: Recorder) -> None:
        self.monitor = monitor
        self._lock = threading.Lock()
        self._roots: dict[UUID, UUID] = {}  # run id -> its top-level run's id
        self._inputs: dict[UUID, Any] = {}  # top-level run id -> its inputs
        self._members: dict[UUID, list[UUID]] = {}  # top-level run id -> the runs under it
        self._documents: dict[UUID, list[str]] = {}

    def _started(self, run_id: UUID, parent_run_id: UUID | None, inputs: Any = None) -> None:
        with self._lock:
            if parent_run_id is None:
                self._inputs[run_id], self._members[run_id], self._roots[run_id] = inputs, [run_id], run_id
                if len(self._inputs) > MAX_OPEN_RUNS:  # a run that never ended
                    self._forget(next(iter(self._inputs)))
            elif (root := self._roots.get(parent_run_id)) is not None:
                self._roots[run_id] = root
                self._members[root].append(run_id)

    def _forget(self, root: UUID) -> None:
        self._inputs.pop(root, None)
        self._documents.pop(root, None)
        for run_id in self._members.pop(root, []):
            self._roots.pop(run_id, None)

    def on_chain_start(
        self, serialized: Any, inputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        self._started(run_id, parent_run_id, inputs)

    def on_tool_start(
        self, serialized: Any, input_str: str, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        self._started(run_id, parent_run_id)

    def on_retriever_start(
        self, serialized: Any, query: str, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        self._started(run_id, parent_run_id)

    def on_retriever_end(
        self, documents: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        with self._lock:
            root = self._roots.get(run_id)
            if root is not None:
                self._documents.setdefault(root, []).extend(str(d.page_content) for d in documents)

    def on_chain_error(
        self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        if parent_run_id is None:
            with self._lock:
                self._forget(run_id)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        if parent_run_id is not None:
            return
        with self._lock:
            inputs, documents = self._inputs.get(run_id), self._documents.get(run_id)
            self._forget(run_id)
        try:
            self.monitor.record_run(_question(inputs), read_output(outputs, run_id, documents))
        except Exception:  # the graph's run is never affected
            log.exception("troth monitor could not record a LangChain run")
