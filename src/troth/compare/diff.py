"""Two evaluations' stored runs side by side: matched by item and scorer, each pair's scores and
the claims whose verdict changed (matched by the claim's text)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from troth.store.base import RunRecord
from troth.values import Verdict

_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class ClaimChange:
    """A claim whose verdict differs between A and B (None: the claim was not extracted there)."""

    claim: str
    verdict_a: str | None
    verdict_b: str | None
    evidence_a: str | None = None
    evidence_b: str | None = None
    reason_b: str | None = None


@dataclass
class ItemDiff:
    """One item under one scorer in both evaluations: scores (None: it failed, with its error)."""

    item_id: str
    scorer_id: str
    score_a: float | None
    score_b: float | None
    error_a: str | None = None
    error_b: str | None = None
    input: Any = None
    output_a: Any = None
    output_b: Any = None
    reason_a: str | None = None
    reason_b: str | None = None
    changes: list[ClaimChange] = field(default_factory=list)
    run_a: str | None = None  # the two scorer runs, to link to
    run_b: str | None = None

    @property
    def delta(self) -> float | None:
        """B's score minus A's (None unless both scored)."""
        return None if self.score_a is None or self.score_b is None else self.score_b - self.score_a

    @property
    def status(self) -> str:
        """``worse``, ``better``, ``same``, ``failed in B``, ``fixed in B`` or ``failed in both``."""
        if self.score_b is None:
            return "failed in both" if self.score_a is None else "failed in B"
        if self.score_a is None:
            return "fixed in B"
        delta = self.score_b - self.score_a
        return "worse" if delta < 0 else "better" if delta > 0 else "same"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "delta": self.delta, "status": self.status}


def newest(records: Iterable[RunRecord]) -> dict[tuple[str, str], RunRecord]:
    """The newest record of each (item, scorer)."""
    found: dict[tuple[str, str], RunRecord] = {}
    for record in sorted(records, key=lambda r: r.finished_at or ""):
        found[(str(record.item_id), record.scorer_id)] = record
    return found


def item_diff(a: RunRecord, b: RunRecord) -> ItemDiff:
    """The pair of runs as one item's difference, with the claims whose verdict changed."""
    return ItemDiff(
        str(a.item_id),
        a.scorer_id,
        None if a.error else a.score,
        None if b.error else b.score,
        a.error,
        b.error,
        a.input,
        a.output,
        b.output,
        a.reason,
        b.reason,
        claim_changes(a.verdicts, b.verdicts),
        a.run_id,
        b.run_id,
    )


def claim_changes(a: list[Verdict] | None, b: list[Verdict] | None) -> list[ClaimChange]:
    """Claims (matched by their text, spaces and case aside) whose verdicts differ, in B's order
    and then A's claims that B no longer has."""
    in_a, in_b = _by_claim(a), _by_claim(b)
    changes = []
    for key, vb in in_b.items():
        va = in_a.get(key)
        if va is None or va.verdict != vb.verdict:
            changes.append(ClaimChange(vb.claim, _label(va), vb.verdict, _quote(va), _quote(vb), vb.reason))
    for key, va in in_a.items():
        if key not in in_b:
            changes.append(ClaimChange(va.claim, va.verdict, None, _quote(va), None, None))
    return changes


def _by_claim(verdicts: list[Verdict] | None) -> dict[str, Verdict]:
    return {_SPACE.sub(" ", v.claim).strip().lower(): v for v in verdicts or []}


def _label(found: Verdict | None) -> str | None:
    return None if found is None else found.verdict


def _quote(found: Verdict | None) -> str | None:
    return None if found is None or found.evidence is None else found.evidence.quote
