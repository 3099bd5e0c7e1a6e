"""train.lift: a bias on the claim head, a share of it taken from the signs, chosen cross-fitted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.train.conftest import write_dev_files
from train.lift import answer_score, best, edit_drops, lifted, main, own_ba
from troth import Judge
from troth.judges.backends.verifier import find_verifier

CUT = 0.0


def test_a_lift_supports_the_unsure_claims_but_not_those_with_a_sign() -> None:
    claims = [(-0.5, 0), (2.0, 0), (-0.5, 1)]
    assert answer_score(claims, 0.0, 0.0, CUT) == pytest.approx(1 / 3)
    assert answer_score(claims, 1.0, 0.0, CUT) == 1.0
    assert answer_score(claims, 1.0, 1.0, CUT) == pytest.approx(2 / 3)  # the sign keeps its claim below
    assert answer_score([], 1.0, 1.0, CUT) == 1.0


def test_balanced_accuracy_and_edit_drops_at_the_own_cut() -> None:
    labels = [1, 1, 0, 0]
    answers = [[(-0.5, 0)], [(1.0, 0)], [(-3.0, 0)], [(-0.2, 1)]]
    assert own_ba(labels, answers, 0.0, 0.0, CUT) == 0.75  # one faithful answer below the cut
    assert own_ba(labels, answers, 1.0, 1.0, CUT) == 1.0
    groups = [
        {"original": [(1.0, 0)], "number swap": [(-2.0, 1)], "synonym": [(-0.5, 0)]},
        {"original": [(-1.0, 0)], "negation": [(-4.0, 1)]},  # scored 0 without a lift: not counted
    ]
    assert edit_drops(groups, 0.0, 0.0, CUT) == (1.0, 1)
    assert edit_drops(groups, 1.0, 0.0, CUT) == (1.0, 0)  # the synonym's claim lifted above the cut
    assert edit_drops(groups, 2.0, 0.0, CUT) == (0.5, 0)  # lifted too far: the swap no longer drops


def figures(ba: float, qags: float, fact: float, kept: int, bias: float) -> dict[str, object]:
    own = {"wice-dev": ba, "cliff-val": ba, "begin-dev": ba, "qags-all": qags, "qags-sentences": qags}
    return {
        "bias": bias,
        "share": 0.5,
        "own_ba": own,
        "target_mean": ba,
        "mean": sum(own.values()) / 5,
        "fact_edits_lowered": fact,
        "kept_edits_lowered": kept,
    }


def test_the_rule_bounds_the_choice() -> None:
    base = figures(0.70, 0.70, 0.80, 3, 0.0)
    assert best([base, figures(0.80, 0.60, 0.80, 3, 1.0)]) is base  # QAGS falls by 0.10
    assert best([base, figures(0.80, 0.70, 0.70, 3, 1.0)]) is base  # fewer fact edits noticed
    assert best([base, figures(0.80, 0.70, 0.80, 4, 1.0)]) is base  # a meaning-kept edit more lowered
    assert best([base, figures(0.705, 0.70, 0.80, 3, 1.0)]) is base  # a gain under 0.01
    small, large = figures(0.799, 0.70, 0.80, 3, 1.0), figures(0.80, 0.70, 0.80, 3, 2.0)
    assert best([base, large, small]) is small  # within 0.002: the smaller lift


def test_a_lift_replaces_the_one_the_head_carries() -> None:
    features = ["logit_supported", "swapped_number", "swapped_name", "negation_mismatch"]
    head: dict[str, Any] = {"features": features, "weights": [1.0, -3.0, -3.0, -3.0], "bias": 0.0}
    once = lifted(head, 2.0, 0.5)
    assert once["bias"] == 2.0 and once["weights"] == [1.0, -4.0, -4.0, -4.0]
    again = lifted(once | {"lift": {"bias": 2.0, "share": 0.5}}, 1.0, 1.0)
    assert again["bias"] == 1.0 and again["weights"] == [1.0, -4.0, -4.0, -4.0]
    assert lifted(once | {"lift": {"bias": 2.0, "share": 0.5}}, 0.0, 0.0)["weights"] == head["weights"]


def test_the_chosen_lift_goes_into_the_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fold_copies: list[str]
) -> None:
    def answer(i: int) -> tuple[list[str], str, int]:
        context = [f"Team {i} won {i + 3} of its {i + 20} games under coach Maria Lopez. Its rival is Porto."]
        return context, f"Team {i} won {i + 3} of its {i + 20} games." if i % 2 else f"Team {i} lost every game.", i % 2

    write_dev_files(tmp_path / "data", 8, answer)
    model = tmp_path / "verifier"
    shutil.copytree(find_verifier(None).path, model)
    before = json.loads((model / "card.json").read_text())["stack"]
    argv = ["--model", str(model), "--folds", *fold_copies, "--data-dir", str(tmp_path / "data")]
    assert main([*argv, "--per-label", "2", "--limit", "2", "--write"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert len(found["grid"]) == 81 and found["grid"][0]["bias"] == 0.0
    assert found["chosen"] in found["grid"]
    written = json.loads((model / "card.json").read_text())["stack"]
    assert written["lift"]["folds"] == ["0/2", "1/2"] and written["lift"]["chosen"] == found["chosen"]
    assert written["bias"] == before["bias"] + found["chosen"]["bias"]
    head = Judge(f"local/{model}").capabilities.claim_head
    assert head is not None and head.bias == written["bias"]
