"""The rule that turns answer probabilities into a verdict (local judge)."""

from __future__ import annotations

import pytest

from troth.judges.strategies.choice import decide


@pytest.mark.parametrize(
    ("probs", "threshold", "expected"),
    [
        ({"yes": 0.95, "no": 0.03, "unsure": 0.02}, 0.9, "yes"),
        ({"yes": 0.90, "no": 0.05, "unsure": 0.05}, 0.9, "yes"),  # at the threshold counts
        ({"yes": 0.85, "no": 0.10, "unsure": 0.05}, 0.9, "no"),  # likely yes, but not sure enough
        ({"yes": 0.85, "no": 0.05, "unsure": 0.10}, 0.9, "unsure"),
        ({"yes": 0.40, "no": 0.30, "unsure": 0.30}, 0.5, "no"),  # tie between no and unsure: no
        ({"yes": 0.55, "no": 0.40, "unsure": 0.05}, 0.5, "yes"),
    ],
)
def test_decide(probs: dict[str, float], threshold: float, expected: str) -> None:
    assert decide(probs, threshold) == expected
