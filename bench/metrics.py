"""Detection metrics for labeled faithfulness data (label 1 = faithful, 0 = unfaithful)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence


def confusion(labels: Sequence[int], flagged: Sequence[bool]) -> tuple[int, int, int, int]:
    """(tp, fp, tn, fn) where positive = unfaithful (label 0) and ``flagged`` = predicted unfaithful."""
    tp = sum(1 for y, f in zip(labels, flagged, strict=True) if y == 0 and f)
    fp = sum(1 for y, f in zip(labels, flagged, strict=True) if y == 1 and f)
    tn = sum(1 for y, f in zip(labels, flagged, strict=True) if y == 1 and not f)
    fn = sum(1 for y, f in zip(labels, flagged, strict=True) if y == 0 and not f)
    return tp, fp, tn, fn


def detection(labels: Sequence[int], scores: Sequence[float], threshold: float) -> dict[str, float | None]:
    """Balanced accuracy, precision, recall and F1 of "score < threshold means unfaithful"."""
    tp, fp, tn, fn = confusion(labels, [s < threshold for s in scores])
    recall = tp / (tp + fn) if tp + fn else None
    specificity = tn / (tn + fp) if tn + fp else None
    precision = tp / (tp + fp) if tp + fp else None
    f1 = 2 * precision * recall / (precision + recall) if precision and recall else 0.0
    balanced = (recall + specificity) / 2 if recall is not None and specificity is not None else None
    return {"balanced_accuracy": balanced, "precision": precision, "recall": recall, "f1": f1}


def roc_auc(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    """AUC of the score for telling faithful (1) from unfaithful (0); ties count half."""
    pos = [s for y, s in zip(labels, scores, strict=True) if y == 1]
    neg = [s for y, s in zip(labels, scores, strict=True) if y == 0]
    if not pos or not neg:
        return None
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def best_threshold(labels: Sequence[int], scores: Sequence[float]) -> float:
    """The threshold (among midpoints of observed scores, and 1.0) with the best balanced accuracy."""
    values = sorted(set(scores))
    candidates = [(a + b) / 2 for a, b in itertools.pairwise(values)] + [max(values, default=0) + 1e-9]
    candidates.append(1.0)
    best, best_ba = 1.0, -1.0
    for t in candidates:
        ba = detection(labels, scores, t)["balanced_accuracy"]
        if ba is not None and ba > best_ba:
            best, best_ba = t, ba
    return best


def tuned_accuracy(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    """Balanced accuracy at the threshold tuned on one half, measured on the other (both ways, averaged)."""
    half = len(labels) // 2
    got = []
    for tune, test in ((slice(0, half), slice(half, None)), (slice(half, None), slice(0, half))):
        if labels[tune] and labels[test]:
            t = best_threshold(labels[tune], scores[tune])
            ba = detection(labels[test], scores[test], t)["balanced_accuracy"]
            if ba is not None:
                got.append(ba)
    return sum(got) / len(got) if got else None
