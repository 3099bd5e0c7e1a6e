"""``troth eval`` and ``troth runs`` as subprocesses against the loopback server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.commands import troth
from troth.store import SQLiteStore
from troth.testing import FakeOpenAIServer, ScriptedJudge

CONTEXT = ["The museum opens at 10:00 and entry costs 12 euros."]


@pytest.fixture
def data_file(tmp_path: Path, server: FakeOpenAIServer) -> Path:
    server.responder = ScriptedJudge(verdicts={"10:00": ("yes", "opens at 10:00"), "free": ("no", "12 euros")})
    rows = [
        {"id": "good", "input": "When?", "output": "The museum opens at 10:00.", "context": CONTEXT},
        {"id": "bad", "input": "Cost?", "output": "The museum opens at 10:00. Entry is free.", "context": CONTEXT},
    ]
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_eval_writes_store_out_and_report(data_file: Path, server: FakeOpenAIServer, tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    proc = troth(
        "eval",
        str(data_file),
        "--model",
        "m",
        "--base-url",
        server.base_url,
        "--store",
        str(store),
        "--eval-id",
        "ci-1",
        "--out",
        "rows.jsonl",
        "--report",
        "report.html",
        "-q",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "evaluation ci-1" in proc.stdout
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert [(r["item_id"], r["score"]) for r in rows] == [("good", 1.0), ("bad", 0.5)]
    assert "<!DOCTYPE html>" in (tmp_path / "report.html").read_text()

    listed = troth("runs", "list", "--store", str(store), "--eval-id", "ci-1", cwd=tmp_path)
    assert listed.returncode == 0 and "good" in listed.stdout and "bad" in listed.stdout
    run_id = rows[1]["run_id"]
    shown = troth("runs", "show", run_id, "--store", str(store), "--json", cwd=tmp_path)
    record = json.loads(shown.stdout)
    assert record["score"] == 0.5 and record["item_id"] == "bad"
    assert [v["verdict"] for v in record["verdicts"]] == ["yes", "no"]
    table = troth("runs", "show", run_id, "--store", str(store), cwd=tmp_path)
    assert "Entry is free." in table.stdout and "no" in table.stdout


def test_threshold_sets_exit_code(data_file: Path, server: FakeOpenAIServer, tmp_path: Path) -> None:
    args = ["eval", str(data_file), "--model", "m", "--base-url", server.base_url, "--no-store", "-q"]
    assert troth(*args, "--threshold", "0.5", cwd=tmp_path).returncode == 0
    failing = troth(*args, "--threshold", "0.8", cwd=tmp_path)
    assert failing.returncode == 1
    assert "below threshold 0.8" in failing.stdout


def test_errors_are_one_line(tmp_path: Path) -> None:
    proc = troth("eval", str(tmp_path / "nope.jsonl"), "--no-store", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.startswith("error: cannot read") and "Traceback" not in proc.stderr
    proc = troth("runs", "show", "xyz", "--store", str(tmp_path / "none.db"), cwd=tmp_path)
    assert proc.returncode == 2 and "no store at" in proc.stderr
    for args in (
        ["eval", "--help"],
        ["runs", "list", "--help"],
        ["runs", "show", "--help"],
        ["models", "list", "--help"],
    ):
        assert troth(*args, cwd=tmp_path).returncode == 0


def test_eval_on_a_ray_cluster_with_a_rate_limit(data_file: Path, server: FakeOpenAIServer, tmp_path: Path) -> None:
    pytest.importorskip("ray")  # tests/engines fails instead when TROTH_REQUIRE_RAY=1
    store = tmp_path / "s.db"
    args = ["--model", "m", "--base-url", server.base_url, "--store", str(store), "--out", "rows.jsonl", "-q"]
    proc = troth("eval", str(data_file), *args, "--engine", "ray", "--workers", "1", "--rpm", "600", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert sorted((r["item_id"], r["score"]) for r in rows) == [("bad", 0.5), ("good", 1.0)]
    missing = troth("eval", "nope.jsonl", *args, "--engine", "ray", cwd=tmp_path)
    assert missing.returncode == 2 and missing.stderr == "error: cannot read nope.jsonl: no such file or folder\n"


def test_stored_text_the_terminal_cannot_take_is_printed_escaped(server: FakeOpenAIServer, tmp_path: Path) -> None:
    server.responder = ScriptedJudge(verdicts={"10:00": ("yes", "opens at 10:00")})
    data = tmp_path / "odd.jsonl"
    data.write_text(json.dumps({"id": "odd", "output": "It opens at 10:00 \ud800.", "context": CONTEXT}) + "\n")
    store = tmp_path / "s.db"
    proc = troth(
        "eval", str(data), "--model", "m", "--base-url", server.base_url, "--store", str(store), "-q", cwd=tmp_path
    )
    assert proc.returncode == 1 and "InvalidTextError" in proc.stdout  # a typed failure, stored
    listed = troth("runs", "list", "--store", str(store), cwd=tmp_path)
    assert listed.returncode == 0 and listed.stderr == "" and "surroga" in listed.stdout
    (record,) = SQLiteStore(store).list_runs()
    shown = troth("runs", "show", record.run_id, "--store", str(store), cwd=tmp_path)
    assert shown.returncode == 0 and "InvalidTextError" in shown.stdout, shown.stderr
    as_json = troth("runs", "show", record.run_id, "--json", "--store", str(store), cwd=tmp_path)
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["output"] == "It opens at 10:00 \ud800."  # lossless: JSON's own escape
