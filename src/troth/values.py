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


@dataclass(frozen=True)
class Prices:
    """US dollars per million prompt and completion tokens."""

    input_per_million: float
    output_per_million: float


FREE = Prices(0.0, 0.0)
"""What an in-process backend declares: its calls cost nothing."""


@dataclass
class StepUsage:
    """What one pipeline step spent on judge calls (summed over its calls); ``prices``: what the
    backend declared its calls cost (None: the model's list price applies)."""

    model: str
    calls: int = 0
    cached_calls: int = 0
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    prices: Prices | None = None

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
        if self.prices is None:
            del data["prices"]
        else:
            data["prices"] = [self.prices.input_per_million, self.prices.output_per_million]
        return {to_camel(k): v for k, v in data.items()} if style == "camel" else data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StepUsage:
        """The stored (snake-case) form back; ``prices`` as ``[input, output]``."""
        values = {f.name: data[f.name] for f in dataclasses.fields(cls) if f.name in data}
        if values.get("prices") is not None:
            values["prices"] = Prices(*values["prices"])
        return cls(**values)


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


@dataclass(frozen=True)
class Verdict:
    """One claim's verdict: ``"yes"`` (supported), ``"no"`` (contradicted) or ``"unsure"``.

    ``evidence`` is the located quote or sentence that decided it (None when there is none);
    ``probabilities`` are the backend's, when it reports them; ``retrieved`` is True when the
    claim was judged against selected sentences of a context too long for the model;
    ``decided_by`` names the stage of a cascade that gave the verdict; ``unquoted`` is True when
    the judge said supported but its evidence quote is empty or not found in the context.
    ``to_dict`` / ``from_dict`` are its stored (JSON) form.
    """

    claim: str
    verdict: VerdictLabel
    reason: str
    evidence: Evidence | None = None
    probabilities: dict[str, float] | None = None
    retrieved: bool = False
    decided_by: str | None = None
    unquoted: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The stored form: optional fields only when set."""
        data: dict[str, Any] = {
            "claim": self.claim,
            "verdict": self.verdict,
            "reason": self.reason,
            "evidence": self.evidence.to_dict() if self.evidence else None,
        }
        if self.probabilities is not None:
            data["probabilities"] = self.probabilities
        if self.retrieved:
            data["retrieved"] = True
        if self.decided_by is not None:
            data["decided_by"] = self.decided_by
        if self.unquoted:
            data["unquoted"] = True
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Verdict:
        evidence = data.get("evidence")
        return cls(
            claim=data["claim"],
            verdict=data["verdict"],
            reason=data.get("reason", ""),
            evidence=Evidence(**evidence) if evidence else None,
            probabilities=data.get("probabilities"),
            retrieved=bool(data.get("retrieved", False)),
            decided_by=data.get("decided_by"),
            unquoted=bool(data.get("unquoted", False)),
        )

    @property
    def p_supported(self) -> float | None:
        """The backend's probability that the claim is supported, when it reports one."""
        if not self.probabilities:
            return None
        return self.probabilities.get("supported", self.probabilities.get("yes"))


@dataclass(frozen=True)
class Verdicts:
    """The analyze step's result of a claim scorer: one verdict per claim, in claim order."""

    verdicts: list[Verdict]

    def to_dict(self) -> dict[str, Any]:
        return {"verdicts": [v.to_dict() for v in self.verdicts]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Verdicts:
        return cls([Verdict.from_dict(v) for v in data.get("verdicts", [])])


def decode_verdicts(value: Any) -> list[Verdict] | None:
    """Stored verdicts (a list of ``Verdict.to_dict()`` forms) as Verdicts; None when ``value``
    is not such a list (a custom scorer's own analyze result)."""
    if not isinstance(value, list):
        return None
    if not all(isinstance(v, dict) and {"claim", "verdict"} <= v.keys() for v in value):
        return None
    return [Verdict.from_dict(v) for v in value]


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data: typed results through their ``to_dict``, pydantic models dumped."""
    if hasattr(value, "model_dump"):
        return value.model_dump()
    if isinstance(value, (Verdict, Verdicts, Evidence, StepUsage)):
        return value.to_dict()
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


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
    flags: list[str] = field(default_factory=list)  # e.g. "instructions-in-output"
    context: list[str] | None = None  # what the scorer judged against, however it was found

    @property
    def verdicts(self) -> list[Verdict]:
        """The claim verdicts of a claim scorer's analyze step (none for other scorers)."""
        analyze = self.analyze_step_result
        return list(analyze.verdicts) if isinstance(analyze, Verdicts) else []

    def to_dict(self, style: DictStyle = "snake") -> dict[str, Any]:
        """Plain-dict form; ``style="camel"`` uses the reference's key names (``runId`` ...)."""
        if style not in ("snake", "camel"):
            raise ValueError(f"style must be 'snake' or 'camel', not {style!r}")
        data: dict[str, Any] = {
            f.name: jsonable(getattr(self, f.name)) for f in dataclasses.fields(self) if f.name != "usage"
        }
        data["usage"] = {step: u.to_dict(style) for step, u in self.usage.items()}
        if style == "camel":
            data = {to_camel(k): v for k, v in data.items()}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScoreResult:
        """A result from its stored (snake-case) form; claim verdicts come back typed."""
        fields = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in data.items() if k in fields and k != "usage"}
        analyze = values.get("analyze_step_result")
        verdicts = decode_verdicts(analyze.get("verdicts")) if isinstance(analyze, dict) else None
        if verdicts is not None:
            values["analyze_step_result"] = Verdicts(verdicts)
        usage = {k: StepUsage.from_dict(v) for k, v in (data.get("usage") or {}).items()}
        return cls(**values, usage=usage)
