"""Comparing two evaluations: :func:`compare_evals` (``troth compare A B``)."""

from troth.compare.diff import ClaimChange, ItemDiff
from troth.compare.evals import Comparison, ScorerComparison, compare_evals
from troth.compare.stats import Paired

__all__ = ["ClaimChange", "Comparison", "ItemDiff", "Paired", "ScorerComparison", "compare_evals"]
