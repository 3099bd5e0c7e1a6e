"""A claim's P(supported) stacked from the pair classifier and the claim's alignment in its context.

The classifier reads one (window, claim) pair at a time, and misses a fact swapped for another of
the same context: "lost 4-5" where the window says 4-2. The head (a logistic regression fitted at
development time, ``train/stack.py``; its coefficients ship in the verifier's card) adds what
:mod:`troth.text.alignment` sees: numbers and names of the claim missing from its aligned window
but found elsewhere, a negation mismatch, and how much of the claim the window covers.
"""

from __future__ import annotations

from troth.judges.capabilities import ClaimHead
from troth.text.alignment import Alignment
from troth.text.overlap import apply_head, log_odds

FEATURES = ("logit_supported", "logit_contradicted", "coverage", "swapped_number", "swapped_name", "negation_mismatch")


def claim_features(supported: float, contradicted: float, alignment: Alignment) -> list[float]:
    """The head's inputs, in :data:`FEATURES` order: the classifier's best P(supported) and
    P(contradicted) over the claim's windows as log-odds, and the alignment's signs."""
    return [
        log_odds(supported),
        log_odds(contradicted),
        alignment.coverage,
        float(bool(alignment.swapped_numbers)),
        float(bool(alignment.swapped_names)),
        float(alignment.negation_mismatch),
    ]


def stacked(head: ClaimHead, values: list[float]) -> float:
    """P(supported) from the head's logistic regression."""
    if head.features != FEATURES:
        raise ValueError(f"the claim head expects features {head.features}, this troth computes {FEATURES}")
    return apply_head(values, head.weights, head.bias)
