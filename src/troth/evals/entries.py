"""The scorers of an evaluation: each with its pass threshold, checked once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from troth.scorers.base import Scorer


@dataclass
class ScorerEntry:
    """A scorer and its pass threshold (``score >= threshold`` passes; None: no threshold)."""

    scorer: Scorer
    threshold: float | None = None


def scorer_entries(scorers: Any) -> list[ScorerEntry]:
    """Scorers, or ``{"scorer": s, "threshold": t}`` dicts, checked."""
    if isinstance(scorers, (Scorer, Mapping)):
        scorers = [scorers]
    entries = []
    for i, s in enumerate(scorers or []):
        if isinstance(s, Scorer):
            entries.append(ScorerEntry(s))
        elif isinstance(s, Mapping) and isinstance(s.get("scorer"), Scorer):
            t = s.get("threshold")
            if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float))):
                raise TypeError(f"scorers[{i}]['threshold'] must be a number")
            entries.append(ScorerEntry(s["scorer"], t))
        else:
            raise TypeError(f"scorers[{i}] must be a Scorer or {{'scorer': Scorer, 'threshold': float}}")
    if not entries:
        raise ValueError("no scorers given")
    ids = [e.scorer.id for e in entries]
    if len(set(ids)) != len(ids):
        raise ValueError(f"scorer ids must be unique, got {ids}")
    return entries
