"""Items from traces already collected: an OTLP/JSON trace export (what the OpenTelemetry
Collector's file exporter writes: one ``{"resourceSpans": [...]}`` request per line, or one
document) read with the GenAI semantic conventions. Each agent run (``invoke_agent``), and each
LLM call (``chat``, ...) not inside one, is an item: its input and output from its messages
(pydantic-ai's ``final_result`` and ``pydantic_ai.all_messages`` too), its context from what its
tool and retrieval spans returned, its trace and span ids in ``metadata``. A span that cannot be
read is an item with its error, so nothing in the file goes uncounted.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from troth.errors import InvalidTraceError
from troth.text.transcripts import as_segment

AGENT_OPERATIONS = frozenset({"invoke_agent"})
LLM_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
TOOL_RESULT_KEYS = ("gen_ai.tool.call.result", "tool_response")
ERROR = "InvalidTraceError"


def looks_like_otlp(text: str) -> bool:
    """Whether a file's text is an OTLP/JSON trace export (checked on its start)."""
    return '"resourceSpans"' in text[:4096]


@dataclass
class Span:
    """One span as the reader needs it."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start: int
    attributes: dict[str, Any]
    children: list[Span] = field(default_factory=list)

    @property
    def operation(self) -> str | None:
        found = self.attributes.get("gen_ai.operation.name")
        return str(found) if found is not None else None

    def descendants(self) -> Iterator[Span]:
        for child in sorted(self.children, key=lambda s: s.start):
            yield child
            yield from child.descendants()


def read_otlp(text: str, where: str) -> list[dict[str, Any]]:
    """The rows (items) of an OTLP/JSON export; InvalidTraceError when there is none to read."""
    spans, broken = _spans(text, where)
    by_id = {s.span_id: s for s in spans}
    for span in spans:
        if span.parent_id in by_id:
            by_id[span.parent_id].children.append(span)
    rows = [_row(s) for s in spans if _is_item(s, by_id)] + broken
    if not rows:
        raise InvalidTraceError(f"{where}: no agent or LLM operation (gen_ai.operation.name) in its spans")
    return rows


def _is_item(span: Span, by_id: Mapping[str, Span]) -> bool:
    """An agent run, or an LLM call with no agent run above it."""
    if span.operation in AGENT_OPERATIONS:
        return True
    if span.operation not in LLM_OPERATIONS:
        return False
    parent = by_id.get(span.parent_id or "")
    while parent is not None:
        if parent.operation in AGENT_OPERATIONS:
            return False
        parent = by_id.get(parent.parent_id or "")
    return True


def _row(span: Span) -> dict[str, Any]:
    meta = {"trace_id": span.trace_id, "span_id": span.span_id, "operation": span.operation, "span": span.name}
    if (response_id := span.attributes.get("gen_ai.response.id")) is not None:
        meta["response_id"] = str(response_id)
    row: dict[str, Any] = {"id": f"{span.trace_id}/{span.span_id}", "metadata": meta}
    try:
        messages = _messages(span)
        row["input"] = _first_text(messages, "user")
        row["output"] = _output(span, messages)
        row["context"] = _context(span, messages) or None
    except InvalidTraceError as exc:
        return {**row, "input": None, "output": None, "error": {"type": ERROR, "message": str(exc)}}
    if row["output"] is None:
        problem = f"span {span.name!r} ({span.span_id}) has no output (final_result or gen_ai.output.messages)"
        return {**row, "output": None, "error": {"type": ERROR, "message": problem}}
    return row


def _messages(span: Span) -> list[dict[str, Any]]:
    """The conversation the span saw: its own message attributes, else its first LLM call's."""
    for key in ("pydantic_ai.all_messages", "gen_ai.input.messages"):
        if key in span.attributes:
            return _json_list(span, key)
    for child in span.descendants():
        if child.operation in LLM_OPERATIONS and "gen_ai.input.messages" in child.attributes:
            return _json_list(child, "gen_ai.input.messages")
    return []


def _output(span: Span, messages: list[dict[str, Any]]) -> str | None:
    if span.attributes.get("final_result") is not None:
        return as_segment(span.attributes["final_result"])
    calls = [span] + [c for c in span.descendants() if c.operation in LLM_OPERATIONS]
    for call in reversed(calls):
        if "gen_ai.output.messages" in call.attributes:
            return _last_text(_json_list(call, "gen_ai.output.messages"), "assistant")
    return _last_text(messages, "assistant") if span.operation in AGENT_OPERATIONS else None


def _context(span: Span, messages: list[dict[str, Any]]) -> list[str]:
    """What the span's tools and retrievers returned (its tool spans, else the tool results in
    its messages), one segment each."""
    found = []
    for child in span.descendants():
        for key in TOOL_RESULT_KEYS:
            if child.attributes.get(key) is not None:
                found.append(as_segment(child.attributes[key]))
        found += [str(v) for k, v in sorted(child.attributes.items()) if k.endswith(".document.content")]
    if not found:  # an LLM call on its own: the tool results it was given
        found = [as_segment(p.get("result")) for m in messages for p in m.get("parts") or []
                 if isinstance(p, dict) and p.get("type") == "tool_call_response"]  # fmt: skip
    return [text for text in found if text.strip()]


def _text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = message.get("parts") or content or []
    texts = [p.get("content") or p.get("text") for p in parts if isinstance(p, dict) and p.get("type") == "text"]
    return "\n".join(str(t) for t in texts if t)


def _first_text(messages: list[dict[str, Any]], role: str) -> str | None:
    return next((t for m in messages if m.get("role") == role and (t := _text(m))), None)


def _last_text(messages: list[dict[str, Any]], role: str) -> str | None:
    return next((t for m in reversed(messages) if m.get("role") == role and (t := _text(m))), None)


def _json_list(span: Span, key: str) -> list[dict[str, Any]]:
    value = span.attributes[key]
    try:
        found = json.loads(value) if isinstance(value, str) else value
    except json.JSONDecodeError as exc:
        raise InvalidTraceError(f"span {span.name!r} ({span.span_id}): {key} is not valid JSON ({exc.msg})") from None
    if not isinstance(found, list) or not all(isinstance(m, dict) for m in found):
        raise InvalidTraceError(f"span {span.name!r} ({span.span_id}): {key} must be a list of messages")
    return found


# -- the OTLP/JSON encoding ----------------------------------------------------------------------
def _spans(text: str, where: str) -> tuple[list[Span], list[dict[str, Any]]]:
    """Every span of the export, and an error row for each part that could not be read."""
    spans: list[Span] = []
    broken: list[dict[str, Any]] = []
    for n, request in _requests(text, where):
        if isinstance(request, str):
            broken.append(_broken(f"{where}:{n}", request))
            continue
        for i, raw in enumerate(_raw_spans(request)):
            try:
                spans.append(_span(raw))
            except (InvalidTraceError, TypeError, ValueError, AttributeError) as exc:
                broken.append(_broken(f"{where}:{n} span {i + 1}", f"{where}:{n} span {i + 1}: {exc}"))
    return spans, broken


def _broken(row_id: str, message: str) -> dict[str, Any]:
    return {"id": row_id, "input": None, "output": None, "metadata": {}, "error": {"type": ERROR, "message": message}}


def _requests(text: str, where: str) -> Iterator[tuple[int, Any]]:
    """(line, request) for a document or JSON lines; a line that is not JSON gives its problem."""
    try:
        yield 1, json.loads(text)
        return
    except json.JSONDecodeError:
        pass
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                yield n, json.loads(line)
            except json.JSONDecodeError as exc:
                yield n, f"{where}:{n}: not valid JSON ({exc.msg})"


def _raw_spans(request: Any) -> Iterator[Any]:
    for resource in request.get("resourceSpans") or [] if isinstance(request, dict) else []:
        for scope in resource.get("scopeSpans") or resource.get("instrumentationLibrarySpans") or []:
            yield from scope.get("spans") or []


def _span(raw: Any) -> Span:
    if not isinstance(raw, dict):
        raise InvalidTraceError(f"a span must be an object, not {type(raw).__name__}")
    trace_id, span_id = _id(raw.get("traceId"), "traceId"), _id(raw.get("spanId"), "spanId")
    parent = raw.get("parentSpanId")
    attributes = {a["key"]: _value(a.get("value") or {}) for a in raw.get("attributes") or []}
    return Span(trace_id, span_id, _id(parent, "parentSpanId") if parent else None, str(raw.get("name") or ""),
                int(raw.get("startTimeUnixNano") or 0), attributes)  # fmt: skip


def _id(value: Any, name: str) -> str:
    """A trace or span id as hex (OTLP/JSON writes hex; the protobuf JSON mapping, base64)."""
    if not isinstance(value, str) or not value:
        raise InvalidTraceError(f"{name} is missing")
    if len(value) in (16, 32) and all(c in "0123456789abcdefABCDEF" for c in value):
        return value.lower()
    try:
        return base64.b64decode(value, validate=True).hex()
    except (binascii.Error, ValueError):
        raise InvalidTraceError(f"{name} {value!r} is neither hex nor base64") from None


def _value(value: Mapping[str, Any]) -> Any:
    """An OTLP ``AnyValue`` as Python."""
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return int(value["intValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [_value(v) for v in (value["arrayValue"] or {}).get("values") or []]
    if "kvlistValue" in value:
        return {kv["key"]: _value(kv.get("value") or {}) for kv in (value["kvlistValue"] or {}).get("values") or []}
    return None
