"""train.absent: the absent-word weights chosen by the ROC AUC of whole answers, cross-fitted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench.splits import fold_of
from tests.train.conftest import write_dev_files
from train.absent import NAMES, WORDS, main, mean_auc
from troth import Judge
from troth.judges.backends.verifier import find_verifier


def test_the_counts_lower_the_answers_that_bring_in_absent_words() -> None:
    # log-odds alone rank an unfaithful answer (a name and a word the context lacks) above a faithful one
    faithful = [[(1.0, 0, 0), (2.0, 0, 1)], [(0.5, 0, 0)]]
    unfaithful = [[(1.5, 1, 0)], [(3.0, 0, 3)]]
    files = {"f": ([1, 1, 0, 0], faithful + unfaithful)}
    assert mean_auc(files, 0.0, 0.0) == 0.0
    assert mean_auc(files, 4.0, 0.0) == 0.5  # the name: one unfaithful answer falls below both
    assert mean_auc(files, 4.0, 1.0) == 1.0  # the words past the first: the other one too


def crafted(folder: Path) -> None:
    """Each dev file: faithful answers, and unfaithful ones that bring in a place and a year the
    context never mentions."""

    def answer(i: int) -> tuple[list[str], str, int]:
        context = [f"Team {i} won {i + 3} of its {i + 20} games. Its coach is {i + 40} years old."]
        added = "" if i % 2 else f" in Lisbon in {1950 + i}"
        return context, f"Team {i} won {i + 3} of its {i + 20} games{added}.", i % 2

    write_dev_files(folder, 24, answer)


def test_the_best_cell_goes_into_the_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fold_copies: list[str]
) -> None:
    crafted(tmp_path / "data")
    rows = [json.loads(line) for line in (tmp_path / "data" / "cliff-val.jsonl").read_text().splitlines()]
    assert {fold_of(r, 2) for r in rows} == {0, 1}
    folds = fold_copies
    model = tmp_path / "verifier"
    shutil.copytree(find_verifier(None).path, model)
    argv = ["--model", str(model), "--folds", *folds, "--data-dir", str(tmp_path / "data"), "--per-label", "8"]
    assert main([*argv, "--write"]) == 0
    found = json.loads(capsys.readouterr().out)
    grid = found["mean_roc_auc"]
    assert len(grid) == 42 and grid[
        f"{-found['weights']['absent_names_numbers']}/{-found['weights']['absent_words']}"
    ] == max(grid.values())
    if len(set(grid.values())) == 1:  # the classifier alone tells these apart: a tie, the smallest weights
        assert found["weights"] == {"absent_names_numbers": -0.0, "absent_words": -0.0}
    written = json.loads((model / "card.json").read_text())["stack"]
    assert written["weights"][NAMES] == found["weights"]["absent_names_numbers"]
    assert written["weights"][WORDS] == found["weights"]["absent_words"]
    assert written["absent"]["mean_roc_auc"] == grid
    head = Judge(f"local/{model}").capabilities.claim_head
    assert head is not None and head.weights[NAMES] == written["weights"][NAMES]
