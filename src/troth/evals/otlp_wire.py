"""The OTLP/JSON encoding, read defensively: the JSON's nesting is bounded before it is parsed,
each request's shape is checked by one typed model, and each span is read on its own, so that a
malformed part fails only itself, with the file, the line and the span in its message."""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel, to_snake

from troth.errors import InvalidTraceError
from troth.evals import conventions

MAX_DEPTH = 64  # an OTLP request nests about 12 deep; attribute values add a few levels
ERROR = "InvalidTraceError"
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")


class _Wire(BaseModel):
    """The JSON mapping's lowerCamelCase names, and the proto field names it also allows (what
    Phoenix's ``/spans/otlpv1`` writes)."""

    model_config = ConfigDict(extra="ignore", frozen=True, alias_generator=to_snake, populate_by_name=True)


class _Values(_Wire):
    values: list[AnyValue] | None = None


class _KeyValues(_Wire):
    values: list[KeyValue] | None = None


class AnyValue(_Wire):
    """An OTLP ``AnyValue``: one of its fields is set."""

    stringValue: str | None = None
    intValue: int | str | None = None  # the JSON mapping writes 64-bit integers as strings
    doubleValue: float | str | None = None
    boolValue: bool | None = None
    arrayValue: _Values | None = None
    kvlistValue: _KeyValues | None = None

    def python(self) -> Any:
        """The value as Python (None when no field is set)."""
        if self.stringValue is not None:
            return self.stringValue
        if self.intValue is not None:
            return int(self.intValue)
        if self.doubleValue is not None:
            return float(self.doubleValue)
        if self.boolValue is not None:
            return self.boolValue
        if self.arrayValue is not None:
            return [v.python() for v in self.arrayValue.values or []]
        if self.kvlistValue is not None:
            return {kv.key: kv.python() for kv in self.kvlistValue.values or []}
        return None


class KeyValue(_Wire):
    key: str
    value: AnyValue | None = None

    def python(self) -> Any:
        return self.value.python() if self.value is not None else None


class WireSpan(_Wire):
    """The fields of a span the reader uses."""

    traceId: str = Field(min_length=1)
    spanId: str = Field(min_length=1)
    parentSpanId: str | None = None
    name: str = ""
    startTimeUnixNano: int | str = 0
    attributes: list[KeyValue] | None = None


class _Scope(_Wire):
    spans: list[Any] | None = None


class _Resource(_Wire):
    scopeSpans: list[_Scope] | None = None
    instrumentationLibrarySpans: list[_Scope] | None = None


class ExportRequest(_Wire):
    """One ``ExportTraceServiceRequest`` (one line of the Collector's file exporter)."""

    resourceSpans: list[_Resource]

    def raw_spans(self) -> Iterator[Any]:
        for resource in self.resourceSpans:
            for scope in resource.scopeSpans or resource.instrumentationLibrarySpans or []:
                yield from scope.spans or []


for _model in (_Values, _KeyValues, AnyValue, KeyValue):
    _model.model_rebuild()


@dataclass
class Span:
    """One span as the reader needs it, with where it was read (``file:line span n``)."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start: int
    attributes: dict[str, Any]
    where: str = ""
    children: list[Span] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str]:
        return self.trace_id, self.span_id

    @property
    def label(self) -> str:
        return f"{self.where}: span {self.name!r} ({self.span_id})"

    @property
    def operation(self) -> str | None:
        """What the span did, in GenAI terms, whichever convention wrote it."""
        return conventions.operation(self.attributes, root=self.parent_id is None)


def loads(text: str, where: str) -> Any:
    """``json.loads`` with the nesting bounded (JSONDecodeError for text that is not JSON,
    InvalidTraceError for JSON nested deeper than ``MAX_DEPTH``). The depth is counted only for
    text that parses (or that the parser finds too deep), so text that is not one document (JSON
    lines read whole first) is not scanned for it."""
    try:
        value = json.loads(text)
    except RecursionError:
        _check_depth(text, where)
        raise
    _check_depth(text, where)
    return value


def _check_depth(text: str, where: str) -> None:
    """InvalidTraceError when ``text`` nests brackets deeper than ``MAX_DEPTH`` (strings aside)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    deepest = max(accumulate(1 if c in "[{" else -1 for c in brackets), default=0)
    if deepest > MAX_DEPTH:
        raise InvalidTraceError(f"{where}: JSON nested {deepest} deep (at most {MAX_DEPTH} is read)")


def requests(text: str, where: str) -> Iterator[tuple[str, Any]]:
    """(``file:line``, parsed JSON) for a document or for JSON lines; a part that cannot be
    parsed gives its problem as a string."""
    try:
        yield f"{where}:1", loads(text, where)
        return
    except json.JSONDecodeError:
        pass
    except InvalidTraceError as exc:
        if "\n" not in text.strip():
            yield f"{where}:1", str(exc)
            return
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                yield f"{where}:{n}", loads(line, f"{where}:{n}")
            except json.JSONDecodeError as exc:
                yield f"{where}:{n}", f"{where}:{n}: not valid JSON ({exc.msg})"
            except InvalidTraceError as exc:
                yield f"{where}:{n}", str(exc)


def is_request(value: Any) -> bool:
    """Whether parsed JSON is an OTLP trace export request (an object with ``resourceSpans``)."""
    return isinstance(value, dict) and "resourceSpans" in value


def spans(parts: Iterable[tuple[str, Any]]) -> tuple[list[Span], list[dict[str, Any]]]:
    """Every readable span of the parts ``requests`` gave, and an error row for each part that
    could not be read."""
    found: list[Span] = []
    broken: list[dict[str, Any]] = []
    for at, request in parts:
        if isinstance(request, str):
            broken.append(broken_row(at, request))
            continue
        try:
            raw_spans = list(ExportRequest.model_validate(request).raw_spans())
        except ValidationError as exc:
            broken.append(broken_row(at, f"{at}: {_problem(exc)}"))
            continue
        for i, raw in enumerate(raw_spans, 1):
            try:
                found.append(_span(raw, f"{at} span {i}"))
            except InvalidTraceError as exc:
                broken.append(broken_row(f"{at} span {i}", str(exc)))
    return found, broken


def broken_row(row_id: str, message: str) -> dict[str, Any]:
    """An item for a part of the file that could not be read: failed, with its error."""
    return {"id": row_id, "input": None, "output": None, "metadata": {}, "error": {"type": ERROR, "message": message}}


def _span(raw: Any, where: str) -> Span:
    named = f"{where} ({raw.get('spanId')})" if isinstance(raw, dict) and isinstance(raw.get("spanId"), str) else where
    if not isinstance(raw, dict):
        raise InvalidTraceError(f"{where}: a span must be an object, not {type(raw).__name__}")
    try:
        wire = WireSpan.model_validate(raw)
        start = int(wire.startTimeUnixNano)
    except ValidationError as exc:
        raise InvalidTraceError(f"{named}: {_problem(exc)}") from None
    except ValueError:
        raise InvalidTraceError(f"{named}: startTimeUnixNano {wire.startTimeUnixNano!r} is not a number") from None
    try:
        attributes = {kv.key: kv.python() for kv in wire.attributes or []}
    except ValueError as exc:
        raise InvalidTraceError(f"{named}: an attribute value is not a number ({exc})") from None
    trace_id, span_id = _id(wire.traceId, "traceId", named), _id(wire.spanId, "spanId", named)
    parent = _id(wire.parentSpanId, "parentSpanId", named) if wire.parentSpanId else None
    return Span(trace_id, span_id, parent, wire.name, start, attributes, where)


def _problem(exc: ValidationError) -> str:
    """The first of pydantic's errors as ``field.path: message`` (and how many more there are)."""
    errors = exc.errors()
    first = errors[0]
    path = ".".join(to_camel(p) if isinstance(p, str) else str(p) for p in first["loc"]) or "the request"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    missing = first["type"] == "missing"
    return f"{path} is missing{more}" if missing else f"{path}: {first['msg']}{more}"


def _id(value: str, name: str, where: str) -> str:
    """A trace or span id as hex (OTLP/JSON writes hex; the protobuf JSON mapping, base64)."""
    if len(value) in (16, 32) and all(c in "0123456789abcdefABCDEF" for c in value):
        return value.lower()
    try:
        return base64.b64decode(value, validate=True).hex()
    except (binascii.Error, ValueError):
        raise InvalidTraceError(f"{where}: {name} {value!r} is neither hex nor base64") from None
