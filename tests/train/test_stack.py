"""The claim head's fitting script runs end to end on crafted dev files and writes its head into a
copy of the verifier's card, which the verifier then declares."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("numpy")

from tests.train.conftest import write_dev_files
from train.stack import main
from troth import Judge
from troth.judges.backends.verifier import find_verifier


def crafted(folder: Path) -> None:
    """Each dev file: faithful one-sentence answers with numbers, and unfaithful ones."""

    def answer(i: int) -> tuple[list[str], str, int]:
        context = [f"Team {i} won {i + 3} of its {i + 20} games in {1990 + i}. Its coach is {i + 40} years old."]
        return context, f"Team {i} won {i + 3 if i % 2 else i + 9} games in {1990 + i}.", i % 2

    write_dev_files(folder, 40, answer)


def test_the_fitted_head_is_written_into_the_card(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    crafted(tmp_path / "data")
    model = tmp_path / "verifier"
    shutil.copytree(find_verifier(None).path, model)
    card = json.loads((model / "card.json").read_text())
    del card["stack"]
    (model / "card.json").write_text(json.dumps(card))
    assert main(["--model", str(model), "--data-dir", str(tmp_path / "data"), "--per-file", "6", "--write"]) == 0
    printed = json.loads(capsys.readouterr().out)
    written = json.loads((model / "card.json").read_text())
    assert written["stack"] == printed["stack"] and written["yes_threshold"] == card["yes_threshold"]
    weights = written["stack"]["weights"]
    assert weights[0] == 1.0 and weights[3] < 0 and weights[1:3] == [0.0, 0.0] and weights[6] == 0.0
    assert written["stack"]["fitted"] == ["swapped_number", "swapped_name", "negation_mismatch"]
    assert written["stack"]["edited"] > 0 and written["stack"]["fit"]["real_examples"] > 0
    head = Judge(f"local/{model}").capabilities.claim_head
    assert head is not None and list(head.weights) == weights


def test_a_cross_fitted_head_reads_each_example_through_the_verifier_that_left_it_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fold_copies: list[str]
) -> None:
    crafted(tmp_path / "data")
    folds = fold_copies
    base = ["--model", str(find_verifier(None).path), "--data-dir", str(tmp_path / "data"), "--per-file", "6"]
    with pytest.raises(SystemExit, match=r"fold1 was trained without fold 1/2; expected 0/2"):
        main([*base, "--folds", *reversed(folds)])
    with pytest.raises(SystemExit, match=r"expected 0/1"):
        main([*base, "--folds", folds[0]])
    assert main([*base, "--folds", *folds, "--signs", "swapped_number", "absent_names_numbers"]) == 0
    printed = json.loads(capsys.readouterr().out)["stack"]
    assert printed["cross_fitted"] == folds and printed["fitted"] == ["swapped_number", "absent_names_numbers"]
    assert printed["weights"][3] < 0 and printed["weights"][7] < 0 and printed["weights"][8] == 0.0
