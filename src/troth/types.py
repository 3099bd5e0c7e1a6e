"""Typed values that flow through a scorer: runs, usage, evidence and results."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

VerdictLabel = Literal["yes", "no", "unsure"]
DictStyle = Literal["snake", "camel"]


def to_camel(name: str) -> str:
    """``preprocess_step_result`` -> ``preprocessStepResult``."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


@dataclass(frozen=True)
class ScorerRun:
    """One item to score: what went in, what came out, and optional context."""

    input: Any
    output: Any
    run_id: str
    context: list[str] | None = None
    ground_truth: Any = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class StepUsage:
    """What one pipeline step spent on judge calls (summed over its calls)."""

    model: str
    calls: int = 0
    cached_calls: int = 0
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0

    def add(self, other: StepUsage) -> None:
        self.calls += other.calls
        self.cached_calls += other.cached_calls
        self.attempts += other.attempts
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.latency_s += other.latency_s

    def to_dict(self, style: DictStyle = "snake") -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["latency_s"] = round(self.latency_s, 4)
        return {to_camel(k): v for k, v in data.items()} if style == "camel" else data


@dataclass(frozen=True)
class Evidence:
    """A quote from the context and where it was found.

    ``verified`` is False when the quote does not occur in the context; then
    ``context_index``, ``start`` and ``end`` are None and the quote must not be
    trusted as evidence.
    """

    quote: str
    verified: bool
    context_index: int | None = None
    start: int | None = None
    end: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class ScoreResult:
    """The outcome of one scorer run (field names follow the reference design)."""

    run_id: str
    scorer_id: str
    prompt_version: str | None
    preprocess_step_result: Any
    preprocess_prompt: str | None
    analyze_step_result: Any
    analyze_prompt: str | None
    score: float
    reason: str | None
    generate_reason_prompt: str | None
    usage: dict[str, StepUsage] = field(default_factory=dict)

    def to_dict(self, style: DictStyle = "snake") -> dict[str, Any]:
        """Plain-dict form; ``style="camel"`` uses the reference's key names (``runId`` ...)."""
        if style not in ("snake", "camel"):
            raise ValueError(f"style must be 'snake' or 'camel', not {style!r}")
        data: dict[str, Any] = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "usage"}
        data["usage"] = {step: u.to_dict(style) for step, u in self.usage.items()}
        if style == "camel":
            data = {to_camel(k): v for k, v in data.items()}
        return data
