"""The verifier benchmark runs end to end (quick mode) and reports every row it promises."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.common import DATA_DIR
from bench.verifier import ece, main, overlap_baseline


def test_overlap_baseline_and_ece() -> None:
    row = {"context": ["The cat sat on the mat."], "output": "The cat sat. The dog barked loudly."}
    assert overlap_baseline(row) == 0.0  # "dog barked loudly": none of its words is in the context
    assert ece([1, 0], [1.0, 0.0]) == 0.0 and ece([1, 1], [0.5, 0.5]) == pytest.approx(0.5)


@pytest.mark.skipif(not (DATA_DIR / "qags-all.jsonl").is_file(), reason="labeled data not available")
def test_quick_run_reports_baseline_and_verifier(tmp_path: Path) -> None:
    assert main(["--quick", "--out", str(tmp_path / "v")]) == 0
    report = json.loads((tmp_path / "v.json").read_text())
    assert report["cold_start_s"] > 0 and report["peak_rss_mb"] > 0
    for methods in report["files"].values():
        assert set(methods) == {"baseline", "verifier"}
        assert methods["verifier"]["items"] == 8 and methods["verifier"]["claims_per_s"] > 0
        assert 0 <= methods["verifier"]["roc_auc"] <= 1
    assert "| cliff-val | verifier |" in (tmp_path / "v.md").read_text()
