"""train.cosine: the embedding-cosine probe's arithmetic on hand-made answers."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

from tests.train.conftest import write_dev_files
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


@pytest.mark.train
def test_the_probe_scores_crafted_answers_through_the_folds(tmp_path: Path, fold_copies: list[str]) -> None:
    from train.cosine import Embedder, main

    embedder = Embedder()
    claim = "The Hawks beat the Owls 3 to 1."
    assert embedder.cosine(claim, "The Hawks beat the Owls 3 to 1 in 1990.") > 0.8
    assert embedder.cosine(claim, "Bananas are rich in potassium.") < 0.3

    def answer(i: int) -> tuple[list[str], str, int]:
        context = [f"The Hawks beat the Owls {i + 3} to {i + 1} in {1990 + i}. Coach Rivera was pleased."]
        return context, (f"The Hawks beat the Owls {i + 3} to {i + 1}." if i % 2 else "Bananas grow in Iceland."), i % 2

    write_dev_files(tmp_path / "data", 8, answer)
    out = tmp_path / "probe"
    argv = ["--folds", *fold_copies, "--data-dir", str(tmp_path / "data"), "--per-label", "2", "--out", str(out)]
    assert main(argv) == 0
    report = json.loads(out.with_suffix(".json").read_text())
    assert set(report) == set(variants())
    assert report["shipped"]["mean"]["roc_auc"] == 1.0  # the classifier alone tells these apart
    assert "train halves through" in out.with_suffix(".md").read_text()
