"""What ``run_evals`` returns: per-item results and errors, per-scorer summaries, and the run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from troth.evals.entries import ScorerEntry
from troth.prices import total_cost
from troth.values import ScoreResult


@dataclass
class ItemError:
    """Why an item (or one scorer on it) failed."""

    type: str
    message: str
    step: str | None = None


@dataclass
class ItemResult:
    """One item: what went in, what came out, and each scorer's result or error."""

    id: str
    input: Any
    output: Any = None
    context: list[str] | None = None
    ground_truth: Any = None
    metadata: dict[str, Any] = field(default_factory=dict)
    results: dict[str, ScoreResult] = field(default_factory=dict)
    errors: dict[str, ItemError] = field(default_factory=dict)  # key: scorer id, or "target"
    resumed: bool = False
    rescored: bool = False  # the evaluation had a result for this id but for other content: scored again

    @property
    def failed(self) -> bool:
        """True when anything about the item failed (its scoring, or saving it)."""
        return bool(self.errors)

    @property
    def scored(self) -> bool:
        """True when every scorer gave a result, saved or not (no error but the store's)."""
        return not (set(self.errors) - {"store"})

    @property
    def saved(self) -> bool:
        """False when the store could not keep this item's results."""
        return "store" not in self.errors


@dataclass
class ScorerSummary:
    mean: float | None
    scored: int
    failed: int
    threshold: float | None
    passed: int | None
    below_threshold: int | None


@dataclass
class EvalSummary:
    """Counts of a run: ``scored_items`` have every score (``unsaved_items`` of them could not be
    stored: their scores are in the result only); ``failed_items`` lack a score."""

    total_items: int
    scored_items: int
    failed_items: int
    resumed_items: int
    judge_calls: int
    cached_calls: int
    prompt_tokens: int
    completion_tokens: int
    wall_s: float
    scorers: dict[str, ScorerSummary]
    cost_usd: float | None = None  # None when a judge's price is unknown
    unsaved_items: int = 0
    rescored_items: int = 0  # items whose stored results were for other content (resuming an eval id)


@dataclass
class EvalResult:
    """The outcome of ``run_evals``."""

    eval_id: str
    items: list[ItemResult]
    summary: EvalSummary

    @property
    def scores(self) -> dict[str, float | None]:
        """Mean score per scorer over the items it scored (failed items left out)."""
        return {sid: s.mean for sid, s in self.summary.scorers.items()}

    def rows(self) -> list[dict[str, Any]]:
        """One flat row per item and scorer: its score or the error that kept it from one, and
        whether the store kept it (``saved``)."""
        out = []
        for item in self.items:
            for sid in self.summary.scorers:
                res = item.results.get(sid)
                err = next((item.errors[k] for k in (sid, "target", "data", "item") if k in item.errors), None)
                out.append(
                    {
                        "item_id": item.id,
                        "scorer_id": sid,
                        "score": res.score if res else None,
                        "reason": res.reason if res else None,
                        "error": f"{err.type}: {err.message}" if err else None,
                        "error_step": err.step if err else None,
                        "input": item.input,
                        "output": item.output,
                        "run_id": res.run_id if res else None,
                        "saved": item.saved,
                    }
                )
        return out

    def failure_line(self) -> str | None:
        """What failed, in one line: per step, how many items failed there and the first error;
        None when nothing failed. ``run_evals`` logs it (a warning, on stderr by default)."""
        firsts: dict[str, str] = {}
        counts: dict[str, set[str]] = {}
        for item in self.items:
            for key, err in item.errors.items():
                step = err.step or key
                firsts.setdefault(step, _first(item.id, err))
                counts.setdefault(step, set()).add(item.id)
        if not firsts:
            return None
        failed = sum(1 for item in self.items if item.failed)
        parts = [f"{step} {len(counts[step])} ({first})" for step, first in firsts.items()]
        return f"troth: {failed} of {len(self.items)} item(s) failed: " + "; ".join(parts)

    def to_pandas(self) -> Any:
        """A pandas DataFrame with one row per item x scorer (needs pandas)."""
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError("to_pandas() needs pandas: pip install pandas") from exc
        return pd.DataFrame(self.rows())


OnItemComplete = Callable[[ItemResult, Any, dict[str, ScoreResult]], Any]


def _first(item_id: str, err: ItemError, width: int = 200) -> str:
    """The first error of a step, named by its item, cut to ``width`` characters."""
    text = f"first: item {item_id!r}: {err.type}: {' '.join(err.message.split())}"
    return text if len(text) <= width else text[: width - 1] + "…"


def summarise(items: list[ItemResult], entries: list[ScorerEntry], wall: float) -> EvalSummary:
    per: dict[str, ScorerSummary] = {}
    for e in entries:
        sid = e.scorer.id
        scores = [it.results[sid].score for it in items if sid in it.results and it.scored]
        failed = sum(1 for it in items if sid in it.errors or "target" in it.errors)
        passed = sum(1 for s in scores if s >= e.threshold) if e.threshold is not None else None
        per[sid] = ScorerSummary(
            mean=sum(scores) / len(scores) if scores else None,
            scored=len(scores),
            failed=failed,
            threshold=e.threshold,
            passed=passed,
            below_threshold=len(scores) - passed if passed is not None else None,
        )
    usages = [u for it in items if not it.resumed for r in it.results.values() for u in r.usage.values()]
    return EvalSummary(
        total_items=len(items),
        scored_items=sum(1 for it in items if it.scored),
        failed_items=sum(1 for it in items if not it.scored),
        unsaved_items=sum(1 for it in items if not it.saved),
        resumed_items=sum(1 for it in items if it.resumed),
        rescored_items=sum(1 for it in items if it.rescored),
        judge_calls=sum(u.calls for u in usages),
        cached_calls=sum(u.cached_calls for u in usages),
        prompt_tokens=sum(u.prompt_tokens for u in usages),
        completion_tokens=sum(u.completion_tokens for u in usages),
        wall_s=round(wall, 3),
        cost_usd=total_cost(usages),
        scorers=per,
    )
