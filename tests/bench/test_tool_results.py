"""The JSON tool-result benchmark: its crafted data, its summary, and a run of the offline verifier."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.tool_results import DATA, main, summary


def test_each_crafted_item_is_a_json_result_with_a_faithful_and_a_changed_answer() -> None:
    rows = [json.loads(line) for line in DATA.read_text().splitlines()]
    assert len(rows) == 20
    for row in rows:
        assert isinstance(json.loads(row["context"]), dict | list)
        assert row["faithful"] != row["changed"]


def test_summary_counts_faithful_scores_and_changed_answers_scored_lower() -> None:
    def item(good: float, bad: float) -> dict[str, object]:
        scores = {"judge": good, "judge_p": good, "counter": 0.5, "counter_p": 0.5}
        return {"scores": {"faithful": scores, "changed": {**scores, "judge": bad, "judge_p": bad}}}

    found = summary([item(1.0, 0.0), item(0.5, 0.5)])  # type: ignore[list-item]
    assert found["judge"] == {"faithful_mean": 0.75, "faithful_full": 0.5, "changed_lower": 0.5, "roc_auc": 0.875}
    assert found["counter"]["changed_lower"] == 0.0 and found["counter"]["roc_auc"] == 0.5


def test_a_run_scores_every_item_and_writes_its_table(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    assert main(["--out", str(tmp_path / "t")]) == 0
    report = json.loads((tmp_path / "t.json").read_text())
    assert report["items"] == 20 and len(report["results"]) == 20
    assert report["summary"]["judge"]["faithful_mean"] >= 0.5  # the JSON read object by object
    assert "| judge |" in (tmp_path / "t.md").read_text()
