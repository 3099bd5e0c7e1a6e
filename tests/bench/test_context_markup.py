"""The Markdown and HTML context benchmark: its writings, its summary, and a short run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.common import DATA_DIR
from bench.context_markup import main, summary, written


def test_a_context_is_written_sentence_by_sentence_as_markdown_and_html() -> None:
    context = ["The tower is 330 m tall. It opened in 1889."]
    assert written(context, "plain") == context
    assert written(context, "markdown") == ["## Source\n- The tower is 330 m tall.\n- It opened in 1889."]
    assert written(context, "html") == ["<h2>Source</h2><p>The tower is 330 m tall.</p><p>It opened in 1889.</p>"]


def test_summary_counts_moves_from_the_plain_score_and_one_sentence_evidence() -> None:
    def item(label: int, plain: float, other: float) -> dict[str, object]:
        base = {"score": plain, "p": plain, "quotes": 2, "single": 1}
        moved = {**base, "score": other, "p": other, "single": 2}
        return {"label": label, "scores": {"plain": base, "markdown": moved, "html": base}}

    found = summary([item(1, 1.0, 0.5), item(0, 0.0, 0.0)])  # type: ignore[list-item]
    assert found["markdown"]["lower"] == 0.5 and found["markdown"]["higher"] == 0.0
    assert found["markdown"]["one_sentence_evidence"] == 1.0 and found["plain"]["one_sentence_evidence"] == 0.5
    assert found["plain"]["roc_auc"] == 1.0 and found["plain"]["balanced_accuracy"] == 1.0


@pytest.mark.skipif(not (DATA_DIR / "begin-dev.jsonl").is_file(), reason="labeled data not available")
def test_a_run_scores_each_writing_and_writes_its_table(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    assert main(["--files", "begin-dev", "--per-label", "2", "--out", str(tmp_path / "m")]) == 0
    report = json.loads((tmp_path / "m.json").read_text())
    assert len(report["results"]["begin-dev"]) == 4
    assert set(report["summary"]["begin-dev"]) == {"plain", "markdown", "html"}
    assert "| begin-dev | html |" in (tmp_path / "m.md").read_text()
