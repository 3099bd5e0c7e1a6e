"""A context segment that is JSON (a tool's result, as agents hand it over) read as sentences.

Each object becomes a sentence of its fields, each named by its key ("city: Paris; temperature
c: 21; conditions: sunny."), an object nested under a key named by that key too ("current: ...").
An object's long text fields (:data:`PROSE_WORDS` words or more) are prose: their sentences stand
alone. A date or time is written as people write it ("2026-12-09" as "9 December 2026"), true and
false as yes and no; null fields are left out. Each sentence keeps where its words stand in the
segment, what evidence quotes: its object (with the objects it holds), or a prose sentence's own
characters where the segment writes them as they read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from troth.text.sentences import sentence_spans
from troth.text.times import written_time

PROSE_WORDS = 8
"""A text field of this many words or more is prose, read sentence by sentence."""

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@dataclass(frozen=True)
class Record:
    """A sentence read from a JSON segment: its text and the ``start:end`` of its words there."""

    text: str
    start: int
    end: int


def readable_key(key: str) -> str:
    """A key as words: "temperature_c" as "temperature c", "orderId" as "order id"."""
    return " ".join(_CAMEL.sub(" ", key).replace("_", " ").replace("-", " ").split()).lower()


_KEY_UNITS = {"c": "°C", "celsius": "°C", "f": "°F", "fahrenheit": "°F", "pct": "%", "percent": "%"}
_KEY_UNITS |= {"km": " km", "kmh": " km/h", "kph": " km/h", "mph": " mph", "kg": " kg", "lb": " lb", "lbs": " lb"}
_KEY_UNITS |= {"ms": " ms", "sec": " seconds", "secs": " seconds", "seconds": " seconds", "min": " minutes"}
_KEY_UNITS |= {"mins": " minutes", "minutes": " minutes", "hours": " hours", "hrs": " hours", "days": " days"}
_KEY_UNITS |= {"usd": " US dollars", "eur": " euros", "gbp": " pounds", "musd": " million US dollars"}
_KEY_UNITS |= {"meur": " million euros", "busd": " billion US dollars", "beur": " billion euros"}


def with_unit(name: str, value: Any, text: str) -> tuple[str, str]:
    """A numeric field whose key ends with a unit read with the unit on its value ("temperature c:
    21" as "temperature: 21°C", "revenue musd: 812" as "revenue: 812 million US dollars")."""
    *words, last = name.split() or [""]
    unit = _KEY_UNITS.get(last)
    if not words or unit is None or isinstance(value, bool) or not isinstance(value, int | float):
        return name, text
    return " ".join(words), text + unit


def scalar(value: Any) -> str | None:
    """A field's value as words; None for null and for what is no scalar or list of scalars."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    if isinstance(value, str):
        return written_time(" ".join(value.split())) or None
    if isinstance(value, list) and value and not any(isinstance(v, dict | list) for v in value):
        found = [s for v in value if (s := scalar(v))]
        return ", ".join(found) or None
    return None


def object_spans(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each ``{...}`` of JSON ``text``, in the order they open."""
    spans, opened, in_string, escaped = [], [], False, False
    for at, char in enumerate(text):
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char == "{":
            opened.append(at)
        elif char == "}" and opened:
            spans.append((opened.pop(), at + 1))
    return sorted(spans)


def _objects(value: Any) -> Iterator[dict[str, Any]]:
    """Every object of a parsed JSON value, parents before their children, in document order."""
    if isinstance(value, dict):
        yield value
        children: Any = value.values()
    else:
        children = value if isinstance(value, list) else []
    for child in children:
        yield from _objects(child)


class _Reader:
    def __init__(self, segment: str, value: Any, max_chars: int) -> None:
        spans = object_spans(segment)
        if len(spans) != sum(1 for _ in _objects(value)):  # a key written twice: no exact places
            spans = [(0, len(segment))] * len(spans)
        self.segment, self.spans, self.max_chars = segment, iter(spans), max_chars
        self.out: list[Record] = []

    def read(self, value: Any, label: str) -> None:
        if isinstance(value, list):
            if (listed := scalar(value)) is not None:
                self._fields(label, [listed], (0, len(self.segment)))
            for item in value:
                if isinstance(item, dict | list):
                    self.read(item, label)
            return
        if not isinstance(value, dict):
            return
        span = next(self.spans, (0, len(self.segment)))
        fields, prose, nested = [], [], []
        for key, item in value.items():
            name = readable_key(str(key))
            if isinstance(item, dict) or (isinstance(item, list) and scalar(item) is None):
                nested.append((name, item))
            elif isinstance(item, str) and len(item.split()) >= PROSE_WORDS:
                prose.append(" ".join(item.split()))
            elif (text := scalar(item)) is not None:
                fields.append("{}: {}".format(*with_unit(name, item, text)))
        self._fields(label, fields, span)
        for text in prose:
            self.out += [Record(text[a:b], *self._place(text[a:b], span)) for a, b in sentence_spans(text)]
        for name, item in nested:
            self.read(item, name)

    def _fields(self, label: str, fields: list[str], span: tuple[int, int]) -> None:
        """``fields`` as sentences of at most ``max_chars`` (a field too long for one alone)."""
        lead = f"{label}: " if label else ""
        current: list[str] = []
        for field in fields:
            if current and len(lead) + len("; ".join([*current, field])) + 1 > self.max_chars:
                self.out.append(Record(lead + "; ".join(current).rstrip(".") + ".", *span))
                current = []
            current.append(field)
        if current:
            self.out.append(Record(lead + "; ".join(current).rstrip(".") + ".", *span))

    def _place(self, sentence: str, span: tuple[int, int]) -> tuple[int, int]:
        """Where the segment writes ``sentence`` within ``span``, escaped as JSON writes it; else
        the span."""
        for ascii_only in (False, True):
            written = json.dumps(sentence, ensure_ascii=ascii_only)[1:-1]
            if (at := self.segment.find(written, *span)) >= 0:
                return at, at + len(written)
        return span


def json_records(segment: str, max_chars: int) -> list[Record] | None:
    """The sentences of ``segment`` read as JSON (see the module's note); None when it is no
    JSON object or array."""
    stripped = segment.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    if not isinstance(value, dict | list):
        return None
    offset = segment.index(stripped[0])
    reader = _Reader(stripped, value, max_chars)
    reader.read(value, "")
    return [Record(r.text, r.start + offset, r.end + offset) for r in reader.out]
