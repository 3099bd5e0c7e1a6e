"""How a trace file is read into items: which spans become items (agent runs, or every LLM
call), filters by span name and attribute, sampling by trace, and the attributes that hold the
input, output and context when the span's convention is not one troth reads."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Level = Literal["agent", "llm"]
LEVELS = ("agent", "llm")


@dataclass(frozen=True)
class TraceOptions:
    """``level``: ``"agent"`` (an item per agent run, and per LLM call outside one) or ``"llm"``
    (an item per LLM call that answers); ``span_name``: the spans with that name are the items,
    whatever their operation; ``attributes``: only the spans with those attribute values;
    ``sample``: the share of traces kept (drawn from the trace id, so a trace is kept or left
    whole); ``input_attr``/``output_attr``/``context_attr``: the attribute holding each (the
    context one gathered from the span and the spans under it)."""

    level: Level = "agent"
    span_name: str | None = None
    attributes: Mapping[str, str] = field(default_factory=dict)
    sample: float | None = None
    input_attr: str | None = None
    output_attr: str | None = None
    context_attr: str | None = None

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {self.level!r}")
        sample = self.sample
        if sample is not None and (
            isinstance(sample, bool) or not isinstance(sample, (int, float)) or not 0 < sample <= 1
        ):
            raise ValueError(f"sample must be a share of traces in (0, 1], not {sample!r}")
        if sample is not None and not math.isfinite(sample):
            raise ValueError(f"sample must be a share of traces in (0, 1], not {sample!r}")
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in self.attributes.items()):
            raise TypeError("attributes must map attribute names to the string values wanted")

    @property
    def filtered(self) -> bool:
        """Whether a span name, an attribute or a sample narrows the spans read."""
        return self.span_name is not None or bool(self.attributes) or self.sample is not None

    def wanted(self, name: str, attributes: Mapping[str, Any], trace_id: str) -> bool:
        """Whether a span that would be an item is kept by the filters and the sample."""
        if self.span_name is not None and name != self.span_name:
            return False
        if any(str(attributes.get(k)) != v for k, v in self.attributes.items()):
            return False
        return self.sample is None or _draw(trace_id) < self.sample


def parse_attributes(pairs: list[str] | None) -> dict[str, str]:
    """``key=value`` options as a dict; ValueError naming the first that is not one."""
    found = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--attr wants key=value, not {pair!r}")
        found[key] = value
    return found


def _draw(trace_id: str) -> float:
    """A trace's place in [0, 1), the same in every run and process."""
    return int(hashlib.sha256(trace_id.encode()).hexdigest()[:12], 16) / 16**12
