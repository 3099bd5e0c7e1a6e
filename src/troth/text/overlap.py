"""Lexical evidence of a claim in a passage: how many of its words, numbers and names occur there.

The verifier's calibration head combines these with the classifier's probabilities: a claim
whose numbers or names are absent from the passage is rarely supported, whatever the model says.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from troth.text.windows import terms

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-zA-Z]+")

FEATURES = ("logit_supported", "logit_contradicted", "word_share", "missing_words", "missing_number", "missing_name")


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in _NUMBER.findall(text)}


def log_odds(p: float, floor: float = 1e-6) -> float:
    """``log(p / (1 - p))``, with ``p`` kept within [floor, 1 - floor]."""
    p = min(max(p, floor), 1 - floor)
    return math.log(p / (1 - p))


def features(passage: str, claim: str, probabilities: tuple[float, float, float]) -> list[float]:
    """The head's inputs for one pair: the classifier's log-odds of supported and contradicted,
    the share and count of the claim's content words missing from the passage, and whether a
    number or a capitalised name of the claim is missing."""
    supported, contradicted, _ = probabilities
    words = set(terms(claim))
    present = set(terms(passage))
    missing = len(words - present)
    share = 1 - missing / len(words) if words else 1.0
    lower = passage.lower()
    no_number = any(n not in _numbers(passage) for n in _numbers(claim))
    no_name = any(n.lower() not in lower for n in _NAME.findall(claim))
    return [
        log_odds(supported),
        log_odds(contradicted),
        share,
        math.log1p(missing),
        float(no_number),
        float(no_name),
    ]


def apply_head(values: Sequence[float], weights: Sequence[float], bias: float) -> float:
    """P(supported) from the head's logistic regression."""
    z = bias + sum(w * x for w, x in zip(weights, values, strict=True))
    return 1 / (1 + math.exp(-max(min(z, 30.0), -30.0)))
