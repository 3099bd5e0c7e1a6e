"""One saved scorer run (:class:`RunRecord`), as every store keeps it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from troth.prices import total_cost, usage_cost
from troth.values import ScoreResult, Verdict, Verdicts, decode_verdicts


def now() -> str:
    """The current UTC time as stored (ISO 8601, milliseconds)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass
class RunRecord:
    """One saved scorer run (a result, or the error that ended it)."""

    run_id: str
    scorer_id: str
    eval_id: str | None = None
    item_id: str | None = None
    scorer_version: str | None = None
    prompt_version: str | None = None
    judge_model: str | None = None
    input: Any = None
    output: Any = None
    context: list[str] | None = None
    claims: Any = None
    verdicts: list[Verdict] | None = None
    score: float | None = None
    reason: str | None = None
    prompts: dict[str, str | None] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None
    error: str | None = None
    error_step: str | None = None
    created_at: str | None = None
    finished_at: str | None = None
    source: str = "eval"  # what produced it: eval, live or pytest
    trace_id: str | None = None
    latency_s: float | None = None  # the scorer's wall time
    cost_usd: float | None = None  # None when a judge's price is unknown
    input_hash: str | None = None  # what was scored (item and scorer settings), for resuming

    @classmethod
    def from_result(cls, result: ScoreResult, /, **fields: Any) -> RunRecord:
        """A record of ``result`` (claims, verdicts, score, reason, prompts, usage), finished now;
        ``fields`` add or override the rest (eval and item ids, input, output, ...)."""
        analyze = result.analyze_step_result
        data: dict[str, Any] = {
            "run_id": result.run_id,
            "scorer_id": result.scorer_id,
            "prompt_version": result.prompt_version,
            "claims": result.preprocess_step_result,
            "verdicts": _verdicts_of(analyze),
            "score": result.score,
            "reason": result.reason,
            "prompts": {
                "preprocess": result.preprocess_prompt,
                "analyze": result.analyze_prompt,
                "generate_reason": result.generate_reason_prompt,
            },
            "usage": {k: u.to_dict() | {"cost_usd": usage_cost(u)} for k, u in result.usage.items()},
            "finished_at": now(),
            "cost_usd": total_cost(result.usage.values()),
        }
        data.update(fields)
        return cls(**data)


def _verdicts_of(analyze: Any) -> list[Verdict] | None:
    """A claim scorer's verdicts; a custom scorer's ``{"verdicts": [...]}`` when it has that shape."""
    if isinstance(analyze, Verdicts):
        return list(analyze.verdicts)
    return decode_verdicts(analyze.get("verdicts")) if isinstance(analyze, dict) else None
