"""bench.strategies: both strategies scored item by item, kept per item, and reusable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.strategies import main
from troth.testing import FakeOpenAIServer, Reply, ScriptedJudge
from troth.testing.server import Request

CONTEXT = ["The bridge opened in 1932 and spans 500 metres."]
OUTPUTS = [
    ("The bridge opened in 1932.", 1),
    ("The bridge opened in 1950.", 0),
    ("The bridge spans 500 metres.", 1),
    ("The bridge spans 900 metres.", 0),
]


def judge() -> ScriptedJudge:
    return ScriptedJudge(
        verdicts={"1950": ("no", "opened in 1932"), "900": ("no", "spans 500 metres")},
        default=("yes", "opened in 1932"),
    )


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.jsonl"
    lines = [json.dumps({"output": out, "context": CONTEXT, "label": label}) for out, label in OUTPUTS]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(server: FakeOpenAIServer, data: Path, out: Path, *extra: str) -> Any:
    assert main(["--base-url", server.base_url, "--data", str(data), "--limit", "4", "--out", str(out), *extra]) == 0
    return json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["files"]["tiny"]


def test_each_strategy_is_kept_per_item_with_its_prompt_version(data: Path, tmp_path: Path) -> None:
    with FakeOpenAIServer(responder=judge()) as server:
        found = run(server, data, tmp_path / "first")
        schemas = [r.schema_name for r in server.requests]
    assert schemas.count("ClaimsWithVerdicts") == 4 and schemas.count("ExtractedClaims") == 4
    assert found["prompt_versions"] == {
        "two-step": "claims-v1/faithfulness-v1",
        "single-pass": "single-pass-v1/faithfulness-v1",
    }
    runs = found["runs"]
    labels = found["labels"]
    for strategy in ("two-step", "single-pass"):
        assert [r["score"] for r in runs[strategy]] == [1.0 if label else 0.0 for label in labels]
        assert found[strategy]["balanced_accuracy"] == 1.0
    assert [r["calls"] for r in runs["single-pass"]] == [1, 1, 1, 1]


def test_a_reused_strategy_is_not_scored_again(data: Path, tmp_path: Path) -> None:
    with FakeOpenAIServer(responder=judge()) as server:
        first = run(server, data, tmp_path / "first")
    with FakeOpenAIServer(responder=judge()) as server:
        again = run(server, data, tmp_path / "again", "--reuse", f"two-step={tmp_path / 'first.json'}")
        assert {r.schema_name for r in server.requests} == {"ClaimsWithVerdicts"}
    assert again["runs"]["two-step"] == first["runs"]["two-step"]
    assert again["single_minus_two_step"]["difference"] == 0.0


def test_another_sample_is_scored_again(data: Path, tmp_path: Path) -> None:
    with FakeOpenAIServer(responder=judge()) as server:
        run(server, data, tmp_path / "first")
    report = json.loads((tmp_path / "first.json").read_text(encoding="utf-8"))
    report["seed"] = 1
    (tmp_path / "other.json").write_text(json.dumps(report), encoding="utf-8")
    with FakeOpenAIServer(responder=judge()) as server:
        run(server, data, tmp_path / "again", "--reuse", f"two-step={tmp_path / 'other.json'}")
        assert "ExtractedClaims" in {r.schema_name for r in server.requests}


def test_a_bad_reuse_is_a_usage_error(data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--base-url", "http://127.0.0.1:9/v1", "--data", str(data), "--reuse", "three-step=x.json"])
    assert "--reuse takes STRATEGY=REPORT.json with STRATEGY one of two-step, single-pass" in capsys.readouterr().err


def test_an_interrupted_run_resumes_where_it_stopped(data: Path, tmp_path: Path) -> None:
    with FakeOpenAIServer(responder=judge()) as server:
        first = run(server, data, tmp_path / "first")
    report = json.loads((tmp_path / "first.json").read_text(encoding="utf-8"))
    entry = report["files"]["tiny"]
    report["files"]["tiny"] = {
        "labels": entry["labels"],
        "prompt_versions": entry["prompt_versions"],
        "runs": {"two-step": entry["runs"]["two-step"], "single-pass": entry["runs"]["single-pass"][:2]},
    }
    (tmp_path / "cut.json").write_text(json.dumps(report), encoding="utf-8")
    cut = str(tmp_path / "cut.json")
    with FakeOpenAIServer(responder=judge()) as server:
        again = run(server, data, tmp_path / "cut", "--reuse", f"two-step={cut}", "--reuse", f"single-pass={cut}")
        assert [r.schema_name for r in server.requests] == ["ClaimsWithVerdicts"] * 2
    assert again["runs"]["two-step"] == first["runs"]["two-step"]
    resumed = [(r["score"], r["calls"]) for r in again["runs"]["single-pass"]]
    assert resumed == [(r["score"], r["calls"]) for r in first["runs"]["single-pass"]]
    assert "| tiny | single-pass | 1.000 |" in (tmp_path / "cut.md").read_text(encoding="utf-8")


def test_the_items_judged_in_one_pass_are_compared_apart(data: Path, tmp_path: Path) -> None:
    scripted = judge()

    def no_claims_about_spans(request: Request) -> Reply:
        if request.schema_name == "ClaimsWithVerdicts" and "<output>\nThe bridge spans" in request.prompt:
            return Reply(content={"claims": []})
        return scripted(request)

    with FakeOpenAIServer(responder=no_claims_about_spans) as server:
        found = run(server, data, tmp_path / "first")
    assert found["single-pass"]["fell_back"] == 2
    # a fallback pays its own extraction: the two-step run's judge is not shared
    assert [r["calls"] for r in found["runs"]["single-pass"]] == [1, 1, 3, 3]
    assert found["judged_in_one_pass"] == {"items": 2, "unfaithful": 1, "two-step": 1.0, "single-pass": 1.0}
    markdown = (tmp_path / "first.md").read_text(encoding="utf-8")
    assert "| tiny | 2 of 4 | 1 | 1.000 | 1.000 |  |" in markdown
