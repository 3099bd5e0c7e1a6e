"""A claim's P(supported) stacked from the pair classifier and the claim's alignment in its context.

The classifier reads one (window, claim) pair at a time, and misses a fact swapped for another of
the same context: "lost 4-5" where the window says 4-2. The head (a logistic regression fitted at
development time, ``train/stack.py``; its coefficients ship in the verifier's card) adds what
:mod:`troth.text.alignment` sees: numbers and names of the claim missing from its aligned window
but found elsewhere, a negation mismatch, how much of the claim the window covers, and how much
likelier the window makes the claim with one of its names or numbers replaced by another of the
window's (:mod:`troth.text.substitutes`): a faithful claim's own names and numbers fit best; and
how many of the claim's numbers, names and other words the context holds nowhere (the word
counter's evidence, which a small classifier reading one window weighs too little).
"""

from __future__ import annotations

from collections.abc import Sequence

from troth.judges.base import PairScores
from troth.judges.capabilities import ClaimHead
from troth.text.alignment import Alignment
from troth.text.overlap import apply_head, log_odds
from troth.text.substitutes import substitutes

FEATURES = (
    "logit_supported",
    "logit_contradicted",
    "coverage",
    "swapped_number",
    "swapped_name",
    "negation_mismatch",
    "substitute_gain",
    "absent_names_numbers",
    "absent_words",
)


def uses(head: ClaimHead | None, feature: str) -> bool:
    """Whether ``head`` gives ``feature`` a weight (a feature it ignores need not be computed)."""
    return head is not None and feature in head.features and head.weights[head.features.index(feature)] != 0


def substitute_pairs(claims: list[str], runs: list[str]) -> tuple[list[tuple[str, str]], list[range]]:
    """For each claim with substitutes in its aligned run: the pair (run, claim), then a pair
    (run, substitute) for each; and the range of each claim's pairs (empty for a claim without)."""
    pairs: list[tuple[str, str]] = []
    spans = []
    for claim, run in zip(claims, runs, strict=True):
        found = substitutes(claim, run) if run else []
        start = len(pairs)
        pairs += [(run, text) for text in ([claim, *found] if found else [])]
        spans.append(range(start, len(pairs)))
    return pairs, spans


def substitute_gain(scores: Sequence[PairScores]) -> float:
    """How much likelier the classifier finds the likeliest substitute supported than the claim
    itself (``scores[0]``): P(supported) of the one less the other's, 0 when no substitute fits
    better or none was made."""
    if len(scores) < 2:
        return 0.0
    return max(max(s.supported for s in scores[1:]) - scores[0].supported, 0.0)


def absent_counts(alignment: Alignment) -> tuple[int, int]:
    """How many of the claim's numbers and names its context holds nowhere, and how many of its
    other content words past the first (a paraphrase or a synonym brings one in)."""
    return len(alignment.absent_names_numbers), max(len(alignment.absent_words) - 1, 0)


def claim_features(supported: float, contradicted: float, alignment: Alignment, gain: float = 0.0) -> list[float]:
    """The head's inputs, in :data:`FEATURES` order: the classifier's best P(supported) and
    P(contradicted) over the claim's windows as log-odds, the alignment's signs, the
    substitute gain (:func:`substitute_gain`), and the claim's words absent from its context
    (:func:`absent_counts`)."""
    return [
        log_odds(supported),
        log_odds(contradicted),
        alignment.coverage,
        float(bool(alignment.swapped_numbers)),
        float(bool(alignment.swapped_names)),
        float(alignment.negation_mismatch),
        gain,
        *map(float, absent_counts(alignment)),
    ]


def stacked(head: ClaimHead, values: list[float]) -> float:
    """P(supported) from the head's logistic regression. A head fitted before the later features
    were added (its features the first of :data:`FEATURES`) reads the values it knows."""
    count = len(head.features)
    if head.features != FEATURES[:count]:
        raise ValueError(f"the claim head expects features {head.features}, this troth computes {FEATURES}")
    return apply_head(values[:count], head.weights, head.bias)
