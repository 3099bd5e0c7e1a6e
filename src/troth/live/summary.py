"""The summary of one scorer's live runs over a window (one computation for the CLI and the report)."""

from __future__ import annotations

from dataclasses import dataclass

from troth.store.base import RunRecord


@dataclass(frozen=True)
class WindowSummary:
    """Counts, mean, 10th percentile, share under a threshold and spend (None: a price unknown)."""

    runs: int
    failed: int
    mean: float | None
    p10: float | None
    under: float | None
    spend_usd: float | None


def summarise_window(runs: list[RunRecord], threshold: float) -> WindowSummary:
    scores = sorted(r.score for r in runs if r.score is not None)
    costs = [r.cost_usd for r in runs]
    spend = None if any(c is None for c in costs) else sum(c for c in costs if c is not None)
    if not scores:
        return WindowSummary(len(runs), len(runs), None, None, None, spend)
    p10 = scores[min(len(scores) - 1, int(0.1 * len(scores)))]
    under = sum(s < threshold for s in scores) / len(scores)
    return WindowSummary(len(runs), len(runs) - len(scores), sum(scores) / len(scores), p10, under, spend)


def worst_runs(runs: list[RunRecord], n: int) -> list[RunRecord]:
    """The ``n`` lowest-scored runs, lowest first."""
    return sorted((r for r in runs if r.score is not None), key=lambda r: r.score or 0.0)[:n]


def by_scorer(records: list[RunRecord]) -> dict[str, list[RunRecord]]:
    """Runs grouped by scorer id, in scorer order."""
    groups: dict[str, list[RunRecord]] = {}
    for r in records:
        groups.setdefault(r.scorer_id, []).append(r)
    return dict(sorted(groups.items()))
