"""``compare_evals(a, b)``: did evaluation B get worse than A? Items matched by id and scorer;
per scorer the means, the mean difference with its 95% paired bootstrap interval and a paired
test's p-value; per item the scores and the claims whose verdict changed, worst first."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from troth.compare.diff import ItemDiff, item_diff, newest
from troth.compare.stats import Paired, paired
from troth.store import Store, open_store
from troth.store.base import RunRecord

ALL = 2**62  # every run of an evaluation
ALPHA = 0.05  # the headline's significance level
COVERAGE = 0.9  # fewer shared items than this share of either side: a warning


@dataclass
class ScorerComparison:
    """One scorer's runs in A and B: the paired statistics over the items scored in both, the
    items that failed in one, and what differs in how they were scored (judge, prompt)."""

    scorer_id: str
    stats: Paired | None  # None: no item was scored in both
    failed_a: int
    failed_b: int
    judge_a: str | None
    judge_b: str | None
    prompt_a: str | None
    prompt_b: str | None

    def worse(self, delta: float, alpha: float) -> bool:
        """B's mean lower than A's by more than ``delta``, and the difference significant."""
        s = self.stats
        return s is not None and s.mean_diff < -delta and s.p_value is not None and s.p_value < alpha

    def verdict(self, alpha: float = ALPHA) -> str:
        """ "worse", "better" (significantly, at ``alpha``), "no change", or "not compared"."""
        s = self.stats
        if s is None:
            return "not compared"
        if s.p_value is None or s.p_value >= alpha or s.mean_diff == 0:
            return "no change"
        return "worse" if s.mean_diff < 0 else "better"

    def headline(self, alpha: float = ALPHA) -> str:
        """Which way B went, by how much and how sure, in one sentence."""
        s, verdict = self.stats, self.verdict(alpha)
        if s is None:
            return f"{self.scorer_id}: not compared (no item was scored in both)"
        told = {
            "worse": "B is significantly worse",
            "better": "B is significantly better",
            "no change": "no significant change",
        }[verdict]
        interval = "" if s.ci_low is None else f", 95% CI [{s.ci_low:+.3f}, {s.ci_high:+.3f}]"
        p = "" if s.p_value is None else f", p {s.p_value:.2g}"
        change = f"{s.mean_diff:+.3f}{interval}{p}, n {s.n}"
        return f"{self.scorer_id}: {told}: mean {s.mean_a:.3f} -> {s.mean_b:.3f} ({change})"


@dataclass
class Comparison:
    """Evaluation ``b`` against ``a``: per scorer, per item (worst first), and what is in one only."""

    a: str
    b: str
    scorers: dict[str, ScorerComparison]
    items: list[ItemDiff]
    only_a: list[tuple[str, str]] = field(default_factory=list)  # (item id, scorer id)
    only_b: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    coverage: dict[str, int] = field(default_factory=dict)  # items in A, in B, in both

    def headline(self, alpha: float = ALPHA) -> str:
        """One line per scorer: which way B went, by how much and how sure."""
        return "\n".join(s.headline(alpha) for s in self.scorers.values())

    def worse(self, delta: float = 0.0, alpha: float = 0.05) -> list[str]:
        """The scorers on which B is worse than A by more than ``delta``, significantly at ``alpha``."""
        return [sid for sid, s in self.scorers.items() if s.worse(delta, alpha)]

    def gate(self, delta: float = 0.0, alpha: float = 0.05, failed_tolerance: int = 0) -> list[str]:
        """Why B fails a CI gate, one line per scorer (none: it passes). It fails closed: a scorer
        with no item scored in both evaluations, or with more items failed in B than in A beyond
        ``failed_tolerance``, fails it as surely as a mean lower by more than ``delta`` at ``alpha``."""
        found = []
        for sid, s in self.scorers.items():
            if s.stats is None:
                found.append(f"{sid}: no item was scored in both evaluations, so nothing shows B is not worse")
            elif s.worse(delta, alpha):
                lower = -s.stats.mean_diff
                found.append(f"{sid}: B's mean is lower by {lower:.3g}, more than {delta:g} (p < {alpha:g})")
            if s.failed_b > s.failed_a + failed_tolerance:
                found.append(
                    f"{sid}: {s.failed_b} item(s) failed in B, {s.failed_a} in A (more than {failed_tolerance} more)"
                )
        return found

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "headline": self.headline(),
            "coverage": dict(self.coverage),
            "verdicts": {sid: s.verdict() for sid, s in self.scorers.items()},
            "notes": list(self.notes),
            "scorers": {sid: asdict(s) for sid, s in self.scorers.items()},
            "items": [i.to_dict() for i in self.items],
            "only_a": [list(k) for k in self.only_a],
            "only_b": [list(k) for k in self.only_b],
        }


def compare_evals(a: str, b: str, *, store: Any = True, scorers: list[str] | None = None) -> Comparison:
    """Compare evaluation ``b`` with ``a`` as stored in ``store`` (as for ``run_evals``: True is
    ``$TROTH_STORE`` or ``./.troth/troth.db``). ValueError for an unknown evaluation id or no
    item in common."""
    opened = open_store(store, read_only=True)
    if opened is None:
        raise ValueError("compare_evals needs a store to read the evaluations from")
    try:
        runs_a, runs_b = _runs(opened, a, scorers), _runs(opened, b, scorers)
    finally:
        if opened is not store:
            opened.close()
    common = sorted(runs_a.keys() & runs_b.keys())
    if not common:
        raise ValueError(f"evaluations {a!r} and {b!r} have no (item, scorer) in common")
    diffs = [item_diff(runs_a[k], runs_b[k]) for k in common]
    by_scorer = {
        sid: _scorer(sid, [d for d in diffs if d.scorer_id == sid], runs_a, runs_b)
        for sid in sorted({k[1] for k in common})
    }
    notes = [note for s in by_scorer.values() for note in _notes(s)]
    missing = sorted({k[1] for k in runs_a} ^ {k[1] for k in runs_b})
    if missing:
        notes.append(f"scorers in one evaluation only, not compared: {', '.join(missing)}")
    coverage = _coverage(runs_a, runs_b)
    notes += _coverage_note(coverage)
    return Comparison(
        a,
        b,
        by_scorer,
        sorted(diffs, key=_worst_first),
        sorted(runs_a.keys() - runs_b.keys()),
        sorted(runs_b.keys() - runs_a.keys()),
        notes,
        coverage,
    )


def _coverage(runs_a: dict[tuple[str, str], RunRecord], runs_b: dict[tuple[str, str], RunRecord]) -> dict[str, int]:
    items_a, items_b = {k[0] for k in runs_a}, {k[0] for k in runs_b}
    return {"a": len(items_a), "b": len(items_b), "both": len(items_a & items_b)}


def _coverage_note(coverage: dict[str, int]) -> list[str]:
    """A warning when the shared items are fewer than ``COVERAGE`` of either side."""
    both, a, b = coverage["both"], coverage["a"], coverage["b"]
    if both >= COVERAGE * a and both >= COVERAGE * b:
        return []
    return [
        f"only {both} item(s) are in both: {both / a:.0%} of A's {a} and {both / b:.0%} of B's {b}; "
        "the rest is not compared"
    ]


def _runs(store: Store, eval_id: str, scorers: list[str] | None) -> dict[tuple[str, str], RunRecord]:
    found = newest(store.list_runs(eval_id=eval_id, limit=ALL))
    if not found:
        raise ValueError(f"no evaluation {eval_id!r} in the store")
    return {k: r for k, r in found.items() if scorers is None or k[1] in scorers}


def _scorer(
    sid: str, diffs: list[ItemDiff], runs_a: dict[tuple[str, str], RunRecord], runs_b: dict[tuple[str, str], RunRecord]
) -> ScorerComparison:
    pairs = [(d.score_a, d.score_b) for d in diffs if d.score_a is not None and d.score_b is not None]
    stats = paired([p[0] for p in pairs], [p[1] for p in pairs]) if pairs else None
    first_a = next(r for k, r in runs_a.items() if k[1] == sid)
    first_b = next(r for k, r in runs_b.items() if k[1] == sid)
    return ScorerComparison(
        sid,
        stats,
        sum(d.score_a is None for d in diffs),
        sum(d.score_b is None for d in diffs),
        first_a.judge_model,
        first_b.judge_model,
        first_a.prompt_version,
        first_b.prompt_version,
    )


def _notes(s: ScorerComparison) -> list[str]:
    found = []
    if s.stats is None:
        found.append(f"{s.scorer_id}: no item was scored in both evaluations")
    if s.failed_b > s.failed_a:
        found.append(f"{s.scorer_id}: {s.failed_b} item(s) failed in B, {s.failed_a} in A")
    if s.judge_a != s.judge_b:
        found.append(f"{s.scorer_id}: the judge differs (A: {s.judge_a}, B: {s.judge_b})")
    if s.prompt_a != s.prompt_b:
        found.append(f"{s.scorer_id}: the prompt version differs (A: {s.prompt_a}, B: {s.prompt_b})")
    return found


def _worst_first(d: ItemDiff) -> tuple[int, float, str, str]:
    """Newly failed first, then by how much the score fell, then the rest."""
    rank = {"failed in B": 0, "worse": 1}.get(d.status, 2)
    return rank, d.delta if d.delta is not None else 0.0, d.item_id, d.scorer_id
