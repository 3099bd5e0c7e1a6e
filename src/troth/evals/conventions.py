"""The span conventions a trace file is read with, told apart span by span: the OpenTelemetry
GenAI semantic conventions (and pydantic-ai's own attributes) and OpenInference (Arize Phoenix's:
``openinference.span.kind``, ``llm.input_messages.N.message.*``, a tool span's ``output.value``).
Each gives a span's operation in GenAI terms, the messages it saw and wrote, and what a tool
returned; the reader (:mod:`troth.evals.otlp`) needs nothing else of a convention."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from troth.text.transcripts import as_segment

AGENT, LLM, TOOL = "invoke_agent", "chat", "execute_tool"
OPENINFERENCE_KINDS = {"AGENT": AGENT, "LLM": LLM, "TOOL": TOOL, "RETRIEVER": "retrieval", "CHAIN": "chain"}
GENAI_TOOL_RESULTS = ("gen_ai.tool.call.result", "tool_response")
_FLAT = re.compile(r"llm\.(input|output)_messages\.(\d+)\.message\.(role|content|name|tool_call_id)$")


def operation(attributes: Mapping[str, Any], *, root: bool) -> str | None:
    """The span's operation in GenAI terms (``invoke_agent``, ``chat``, ``execute_tool``, ...);
    an OpenInference chain with no parent is an agent run (LangGraph's graph)."""
    found = attributes.get("gen_ai.operation.name")
    if found is not None:
        return str(found)
    kind = OPENINFERENCE_KINDS.get(str(attributes.get("openinference.span.kind", "")).upper())
    return AGENT if kind == "chain" and root else kind


def flat_messages(attributes: Mapping[str, Any], direction: str) -> list[dict[str, Any]] | None:
    """OpenInference's flattened ``llm.<direction>_messages.N.message.*`` as messages (``role``,
    ``content``), in order; None when the span has none."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        match = _FLAT.match(key)
        if match and match.group(1) == direction:
            found.setdefault(int(match.group(2)), {})[match.group(3)] = value
    return [found[i] for i in sorted(found)] if found else None


def tool_result(attributes: Mapping[str, Any], operation_name: str | None) -> str | None:
    """What a tool span returned, as text: the GenAI attribute or an OpenInference tool span's
    ``output.value``, unwrapped from the framework's serialization (a message's ``content``)."""
    for key in GENAI_TOOL_RESULTS:
        if attributes.get(key) is not None:
            return unwrap(attributes[key])
    if operation_name == TOOL and attributes.get("output.value") is not None:
        return unwrap(attributes["output.value"])
    return None


def unwrap(value: Any) -> str:
    """A tool's output as its text: JSON holding a message (``content``, LangChain's ``kwargs``
    or ``update.messages``) gives that message's content; other text is kept as it is."""
    if not isinstance(value, str):
        content = _content(value)
        return content if content is not None else as_segment(value)
    try:
        parsed = json.loads(value)
    except (json.JSONDecodeError, RecursionError):
        return value
    content = _content(parsed) if isinstance(parsed, (dict, list)) else None
    return content if content is not None else value  # other JSON: the text as written


def _content(value: Any) -> str | None:
    if isinstance(value, list):
        found = [c for c in (_content(v) for v in value) if c]
        return "\n".join(found) if found else None
    if not isinstance(value, dict):
        return None
    content = value.get("content")
    if isinstance(content, str):
        return content
    inner = [value.get(k) for k in ("output", "kwargs", "data")]  # OpenLLMetry's {"output": ...}; LangChain's
    if isinstance(value.get("update"), dict):
        inner.append(value["update"].get("messages"))  # a LangGraph Command
    return next((c for v in inner if isinstance(v, (dict, list)) and (c := _content(v)) is not None), None)
