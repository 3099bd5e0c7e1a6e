"""train.cosine: the embedding-cosine probe's arithmetic on hand-made answers."""

from __future__ import annotations

from functools import partial

import pytest

from train.cosine import measured, penalty, symmetric, variants


def answer(label: int, *claims: tuple[float, float]) -> dict[str, object]:
    return {"label": label, "threshold": 0.0, "claims": list(claims)}


FILE = [answer(1, (1.0, 0.9)), answer(0, (0.5, 0.2)), answer(0, (2.0, 0.3))]


def test_without_a_gain_the_least_supported_claim_ranks_and_the_own_cut_decides() -> None:
    found = measured({"a": FILE}, variants()["shipped"])
    assert found["a"] == {"roc_auc": 0.5, "balanced_accuracy": 0.5}  # every claim above the threshold


def test_a_low_cosine_lowers_an_unfaithful_claim_below_the_threshold() -> None:
    found = measured({"a": FILE, "b": FILE}, partial(penalty, 10.0, 0.8))
    assert found["a"] == {"roc_auc": 1.0, "balanced_accuracy": 1.0}
    assert found["mean"] == {"roc_auc": 1.0, "balanced_accuracy": 1.0}


def test_a_penalty_never_raises_a_claim_and_the_symmetric_gain_does() -> None:
    assert penalty(10.0, 0.8, 0.95) == 0.0
    assert penalty(10.0, 0.8, 0.7) == pytest.approx(-1.0)
    assert symmetric(10.0, 0.8, 0.95) == pytest.approx(1.5)
    assert set(variants([(4.0, 0.5)])) == {"shipped", "symmetric 4/0.5", "penalty 4/0.5"}
