"""What train.package records of a run: its settings, and the fold it left out."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from train.package import run_settings, training


def test_the_card_records_the_fold_a_run_left_out(tmp_path: Path) -> None:
    args = argparse.Namespace(synthetic=8000, seed=0)
    assert run_settings(tmp_path) == {}
    (tmp_path / "log.jsonl").write_text(json.dumps({"step": 1800}) + "\n")
    (tmp_path / "args.json").write_text(json.dumps({"leave_fold": "1/2", "max_tokens": 128, "without": []}))
    found = training(tmp_path, args)
    assert found["left_out_fold"] == "1/2" and found["steps"] == 1800 and found["max_tokens"] == 128
    assert "training half of the dev files (bench/splits.py) less fold 1/2" in found["data"]
    (tmp_path / "args.json").write_text(json.dumps({"without": ["dev"]}))
    assert "left_out_fold" not in training(tmp_path, args) and "dev files (" not in training(tmp_path, args)["data"]


def test_the_card_records_factcg_pairs_and_their_share(tmp_path: Path) -> None:
    args = argparse.Namespace(synthetic=8000, seed=0)
    (tmp_path / "log.jsonl").write_text(json.dumps({"step": 1000}) + "\n")
    (tmp_path / "args.json").write_text(json.dumps({"factcg": "CG2C_doc.json", "factcg_share": 0.25}))
    found = training(tmp_path, args)
    assert found["mix"]["factcg"] == 0.25 and "FactCG's CG2C_doc pairs" in found["data"]
    (tmp_path / "args.json").write_text(json.dumps({"factcg": None, "factcg_share": 0.25}))
    assert "factcg" not in training(tmp_path, args)["mix"]
