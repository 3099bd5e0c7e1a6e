"""The throughput and side-by-side benchmarks end to end (troth only: peers need their venvs)."""

from __future__ import annotations

import json
from pathlib import Path

from bench import compare, throughput
from troth.scorers.claims import SINGLE_PASS_BY_DEFAULT
from troth.testing import FakeOpenAIServer, ScriptedJudge

# One synthetic claim per item: one request by default, else claims, verdicts and the judge's reason
DEFAULT_CALLS = 1.0 if SINGLE_PASS_BY_DEFAULT else 2.0  # claims and verdicts; the reason by template


def test_throughput_quick_for_troth(tmp_path: Path) -> None:
    stem = tmp_path / "tp"
    argv = ["--quick", "--tools", "troth", "--rate-429", "0", "--rate-500", "0", "--data", str(tmp_path / "none")]
    assert throughput.main([*argv, "--out", str(stem)]) == 0
    report = json.loads(Path(f"{stem}.json").read_text())
    runs = {r["concurrency"]: r for r in report["runs"]}
    assert set(runs) == {1, 8}
    for run in runs.values():
        assert run["tool"] == "troth" and run["failed_items"] == 0 and run["items"] == 12
        assert run["calls_per_item"] == DEFAULT_CALLS and run["prompt_chars_per_item"] > 0
        assert run["share_of_ideal"] > 0 and run["ideal_items_per_s"] > 0
        assert run["cpu_s"] > 0 and run["peak_rss_mb"] > 0
    assert "| troth |" in Path(f"{stem}.md").read_text()


def test_compare_scores_labeled_items_through_the_proxy(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "context": ["The bridge opened in 1932."], "output": "The bridge opened in 1932.", "label": 1},
        {"id": "b", "context": ["The bridge opened in 1932."], "output": "The bridge opened in 1950.", "label": 0},
        {"id": "c", "context": ["The dam is 80 m high."], "output": "The dam is 80 m high.", "label": 1},
        {"id": "d", "context": ["The dam is 80 m high."], "output": "The dam is 95 m high.", "label": 0},
    ]
    data = tmp_path / "tiny.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    script = ScriptedJudge(verdicts={"1932": ("yes", ""), "80 m": ("yes", "")}, default=("no", ""))
    stem = tmp_path / "cmp"
    with FakeOpenAIServer(script) as upstream:
        argv = ["--base-url", upstream.base_url, "--tools", "troth", "--data", str(data), "--limit", "4"]
        assert compare.main([*argv, "--out", str(stem)]) == 0
        upstream_prompt_tokens = sum(len(r.prompt) // 4 for r in upstream.requests)
        upstream_calls = len(upstream.requests)
    report = json.loads(Path(f"{stem}.json").read_text())
    (result,) = report["files"]["tiny"]
    assert result["tool"] == "troth" and result["failed_items"] == 0
    assert result["balanced_accuracy"] == 1.0 and result["roc_auc"] == 1.0
    assert result["calls_per_item"] == upstream_calls / 4 == DEFAULT_CALLS
    assert result["prompt_tokens_per_item"] == upstream_prompt_tokens / 4
    assert "| tiny | troth |" in Path(f"{stem}.md").read_text()
