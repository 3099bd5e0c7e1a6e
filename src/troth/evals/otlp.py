"""Items from traces already collected: an OTLP/JSON trace export (what the OpenTelemetry
Collector's file exporter writes: one ``{"resourceSpans": [...]}`` request per line, or one
document) read with the GenAI semantic conventions or OpenInference's, told apart span by span
(:mod:`troth.evals.conventions`). Each agent run (the outermost ``invoke_agent``: agent spans
nested in it fold into it), and each LLM call (``chat``, ...) not inside one, is an item: its
input and output from its messages (pydantic-ai's ``final_result`` and
``pydantic_ai.all_messages`` too), its context from what its tool and retrieval spans returned
(or the tool messages its last LLM call was given), its trace and span ids in ``metadata``. A span that cannot be
read is an item with its error, so nothing in the file goes uncounted.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping
from itertools import chain
from typing import Any

from troth.errors import InvalidTraceError
from troth.evals.conventions import flat_messages, tool_result, unwrap
from troth.evals.otlp_wire import ERROR, Span, broken_row, is_request, loads, requests, spans
from troth.evals.trace_options import TraceOptions
from troth.text.transcripts import as_segment

AGENT_OPERATIONS = frozenset({"invoke_agent"})
LLM_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
Key = tuple[str, str]


def read_otlp(text: str, where: str, options: TraceOptions | None = None) -> list[dict[str, Any]] | None:
    """The rows (items) of an OTLP/JSON export, or None when the text is not one (told by
    parsing it); InvalidTraceError when the export has no item to read. ``options``: which spans
    are items and where their fields are (default: an item per agent run)."""
    parts = requests(text, where)
    head = []
    for part in parts:
        head.append(part)
        if not isinstance(part[1], str):
            break
    if not head or not is_request(head[-1][1]):
        return None
    found, broken = spans(chain(head, parts))
    options = options or TraceOptions()
    rows = _items(found, options) + broken
    if not rows and options.filtered:
        raise InvalidTraceError(f"{where}: no span is kept by the span name, attribute and sample asked for")
    if not rows:
        raise InvalidTraceError(
            f"{where}: no agent or LLM operation in its spans (gen_ai.operation.name, or openinference.span.kind); "
            "name the spans to score and where their fields are: --span-name NAME --input-attr A --output-attr B "
            "--context-attr C (span_name=, input_attr=... in troth.read_traces)"
        )
    return rows


def _items(found: list[Span], options: TraceOptions) -> list[dict[str, Any]]:
    """An item for each agent run and each LLM call outside one (each LLM call at level
    ``llm``), as the options filter them; a failed item for a span in a parent cycle, a
    duplicated span id, or an LLM call whose parent is not in the file."""
    counts = Counter(s.key for s in found)
    rows = [
        _failed(s, f"span id {s.span_id} appears {counts[s.key]} times in trace {s.trace_id}", by_place=True)
        for s in found
        if counts[s.key] > 1
    ]
    by_key = {s.key: s for s in found if counts[s.key] == 1}
    for span in by_key.values():
        if span.parent_id is not None and (parent := by_key.get((span.trace_id, span.parent_id))) is not None:
            parent.children.append(span)
    above, cycle = _above(by_key)
    for span in by_key.values():
        if not options.wanted(span.name, span.attributes, span.trace_id):
            continue
        if span.key in cycle:
            rows.append(_failed(span, "it is its own ancestor (its parent ids form a cycle)"))
        elif options.span_name is not None:  # the spans asked for by name are the items, whatever they did
            rows.append(_row(span, options))
        elif options.level == "llm":
            if span.operation in LLM_OPERATIONS and not _asked_tools_only(span):
                rows.append(_llm_row(span, "cycle" if above[span.key] == "cycle" else "root", options))
        elif span.operation in AGENT_OPERATIONS and above[span.key] != "agent":  # the outermost agent span
            rows.append(_row(span, options))
        elif span.operation in LLM_OPERATIONS and above[span.key] != "agent":
            rows.append(_llm_row(span, above[span.key], options))
    return rows


def _llm_row(span: Span, above: str, options: TraceOptions) -> dict[str, Any]:
    if above == "orphan":
        return _failed(
            span,
            f"its parent span {span.parent_id} is not in the file, so whether it ran inside an agent run is unknown",
        )
    if above == "cycle":
        return _failed(span, "a span above it is its own ancestor (its parent ids form a cycle)")
    return _row(span, options)


def _above(by_key: Mapping[Key, Span]) -> tuple[dict[Key, str], set[Key]]:
    """For each span, what is above it: "agent" (an agent run), "root" (nothing), "orphan" (a
    parent not in the file) or "cycle"; and the spans that are their own ancestors. Iterative,
    each span visited once, so a long chain or a cycle cannot hang or overflow the stack."""
    above: dict[Key, str] = {}
    cycle: set[Key] = set()
    for start in by_key.values():
        path: list[Span] = []
        index: dict[Key, int] = {}
        node = start
        while node.key not in above:
            if node.key in index:  # back at a span of this path: a cycle
                for member in path[index[node.key] :]:
                    cycle.add(member.key)
                    above[member.key] = "cycle"
                del path[index[node.key] :]
                break
            index[node.key] = len(path)
            path.append(node)
            parent = by_key.get((node.trace_id, node.parent_id)) if node.parent_id else None
            if parent is None:
                above[path.pop().key] = "orphan" if node.parent_id else "root"
                break
            node = parent
        for child in reversed(path):  # each below the one now known
            above[child.key] = _through(node, above, cycle)
            node = child
    return above, cycle


def _through(parent: Span, above: Mapping[Key, str], cycle: set[Key]) -> str:
    if parent.key in cycle:
        return "cycle"
    return "agent" if parent.operation in AGENT_OPERATIONS else above[parent.key]


def descendants(span: Span) -> Iterator[Span]:
    """The spans under ``span``, depth first in start order, each once."""
    seen = {span.key}
    stack = sorted(span.children, key=lambda s: s.start, reverse=True)
    while stack:
        child = stack.pop()
        if child.key not in seen:
            seen.add(child.key)
            yield child
            stack.extend(sorted(child.children, key=lambda s: s.start, reverse=True))


def _failed(span: Span, problem: str, *, by_place: bool = False) -> dict[str, Any]:
    row_id = span.where if by_place else f"{span.trace_id}/{span.span_id}"
    row = broken_row(row_id, f"{span.label}: {problem}")
    row["metadata"] = {"trace_id": span.trace_id, "span_id": span.span_id, "span": span.name}
    return row


def _row(span: Span, options: TraceOptions) -> dict[str, Any]:
    meta = {"trace_id": span.trace_id, "span_id": span.span_id, "operation": span.operation, "span": span.name}
    if (response_id := span.attributes.get("gen_ai.response.id")) is not None:
        meta["response_id"] = str(response_id)
    row: dict[str, Any] = {"id": f"{span.trace_id}/{span.span_id}", "metadata": meta}
    try:
        messages = _messages(span)
        row["input"] = _named(span, options.input_attr, "input") or _first_text(messages, "user")
        row["output"] = _named(span, options.output_attr, "output") or _output(span, messages)
        found = _gathered(span, options.context_attr) if options.context_attr else _context(span, messages)
        row["context"] = found or None
    except InvalidTraceError as exc:
        return {**row, "input": None, "output": None, "error": {"type": ERROR, "message": str(exc)}}
    if row["output"] is None:
        problem = (
            f"{span.label}: has no output (final_result, gen_ai.output.messages or llm.output_messages); "
            "name the attribute that holds it: --output-attr NAME (output_attr= in troth.read_traces)"
        )
        return {**row, "output": None, "error": {"type": ERROR, "message": problem}}
    return row


def _asked_tools_only(span: Span) -> bool:
    """An LLM call whose answer is tool calls and no text: a step of an agent run, not an answer."""
    try:
        said = _said(span, "output")
    except InvalidTraceError:
        return False  # unreadable: it is an item, failed with why
    if not said or any(_text(m) for m in said):
        return False
    parts = [p for m in said for p in m.get("parts") or [] if isinstance(p, dict)]
    return any(p.get("type") == "tool_call" for p in parts) or any(".tool_calls." in k for k in span.attributes)


def _named(span: Span, name: str | None, field: str) -> str | None:
    """The text of attribute ``name`` of the span, when the options name one for ``field``."""
    if name is None:
        return None
    if span.attributes.get(name) is None:
        raise InvalidTraceError(f"{span.label}: has no attribute {name!r} (--{field}-attr)")
    return as_segment(span.attributes[name])


def _gathered(span: Span, name: str) -> list[str]:
    """Attribute ``name`` of the span and of the spans under it, one segment each."""
    found = [s.attributes.get(name) for s in (span, *descendants(span))]
    return [text for value in found if value is not None and (text := unwrap(value)).strip()]


def _messages(span: Span) -> list[dict[str, Any]]:
    """The conversation the span saw: its own message attributes, else its first LLM call's."""
    for key in ("pydantic_ai.all_messages", "gen_ai.input.messages"):
        if key in span.attributes:
            return _json_list(span, key)
    for call in (span, *(c for c in descendants(span) if c.operation in LLM_OPERATIONS)):
        if "gen_ai.input.messages" in call.attributes:
            return _json_list(call, "gen_ai.input.messages")
        if (flat := flat_messages(call.attributes, "input")) is not None:
            return flat
    return []


def _said(call: Span, direction: str) -> list[dict[str, Any]] | None:
    """The messages an LLM call was given (``input``) or wrote (``output``), in either convention."""
    if f"gen_ai.{direction}.messages" in call.attributes:
        return _json_list(call, f"gen_ai.{direction}.messages")
    return flat_messages(call.attributes, direction)


def _output(span: Span, messages: list[dict[str, Any]]) -> str | None:
    if span.attributes.get("final_result") is not None:
        return as_segment(span.attributes["final_result"])
    calls = [span] + [c for c in descendants(span) if c.operation in LLM_OPERATIONS]
    for call in reversed(calls):
        if (said := _said(call, "output")) is not None and (text := _last_text(said, "assistant")):
            return text
    return _last_text(messages, "assistant") if span.operation in AGENT_OPERATIONS else None


def _context(span: Span, messages: list[dict[str, Any]]) -> list[str]:
    """What the span's tools and retrievers returned (its tool spans, else the tool results in
    its messages or in its last LLM call's), one segment each."""
    found = []
    for child in descendants(span):
        if (result := tool_result(child.attributes, child.operation)) is not None:
            found.append(result)
        found += [str(v) for k, v in sorted(child.attributes.items()) if k.endswith(".document.content")]
    calls = [c for c in descendants(span) if c.operation in LLM_OPERATIONS]
    for given in (messages, _said(calls[-1], "input") if calls else None):
        if not found and given:  # no tool span said what it returned: the tool results in the messages
            found = _tool_messages(given)
    return [text for text in found if text.strip()]


def _tool_messages(messages: list[dict[str, Any]]) -> list[str]:
    """The tool results in a conversation: GenAI ``tool_call_response`` parts, or ``tool`` messages."""
    found = [
        as_segment(p.get("result"))
        for m in messages
        for p in m.get("parts") or []
        if isinstance(p, dict) and p.get("type") == "tool_call_response"
    ]
    return found + [_text(m) for m in messages if m.get("role") == "tool" and _text(m)]


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
    """The messages in an attribute, each checked to be an object whose ``parts`` (if any) is a
    list and whose ``content`` is text or a list."""
    value = span.attributes[key]
    try:
        found = loads(value, f"{span.label}: {key}") if isinstance(value, str) else value
    except json.JSONDecodeError as exc:
        raise InvalidTraceError(f"{span.label}: {key} is not valid JSON ({exc.msg})") from None
    if not isinstance(found, list) or not all(_is_message(m) for m in found):
        raise InvalidTraceError(f"{span.label}: {key} must be a list of messages (objects with a list of parts)")
    return found


def _is_message(message: Any) -> bool:
    return (
        isinstance(message, dict)
        and isinstance(message.get("parts") or [], list)
        and isinstance(message.get("content") or "", (str, list))
    )
