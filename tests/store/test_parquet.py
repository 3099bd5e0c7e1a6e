"""ParquetStore: parts written whole, read back as the records saved, resume by eval id."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from troth import Judge, MissingDependencyError, create_faithfulness_scorer, run_evals
from troth.store import ParquetStore, RunRecord, open_store
from troth.testing import FakeOpenAIServer, ScriptedJudge

pq = pytest.importorskip("pyarrow.parquet")

SCRIPT = ScriptedJudge(verdicts={"paris": ("yes", "Paris is big")}, default=("no", ""))


def data(n: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"i{i}",
            "output": "Paris is big." if i % 2 else "Paris is big. Rome is small.",
            "context": ["Paris is big."],
        }
        for i in range(n)
    ]


def test_records_round_trip_and_parts_are_written_whole(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path / "runs.parquet", rows_per_file=2)
    records = [
        RunRecord(
            run_id=f"r{i}",
            scorer_id="s",
            eval_id="e",
            item_id=str(i),
            score=i / 4,
            input={"q": "x"},
            context=["c"],
            finished_at=f"2026-12-03T00:00:0{i}",
        )
        for i in range(5)
    ]
    for r in records:
        store.save_run(r)
    parts = sorted((tmp_path / "runs.parquet").glob("part-*.parquet"))
    assert len(parts) == 2 and not list((tmp_path / "runs.parquet").glob(".*tmp"))  # 4 written, 1 buffered
    assert [r.run_id for r in store.list_runs(eval_id="e")] == ["r4", "r3", "r2", "r1", "r0"]  # buffer included
    store.close()
    assert len(list((tmp_path / "runs.parquet").glob("part-*.parquet"))) == 3
    again = ParquetStore(tmp_path / "runs.parquet")
    assert again.get_run("r2") == records[2]
    assert pq.read_table(parts[0]).column("score").to_pylist() == [0.0, 0.25]


def test_a_resumed_failure_is_superseded_by_its_newer_success(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path / "p.parquet")
    store.save_run(RunRecord(run_id="a", scorer_id="s", eval_id="e", item_id="1", error="X: y", finished_at="1"))
    store.save_run(RunRecord(run_id="b", scorer_id="s", eval_id="e", item_id="1", score=1.0, finished_at="2"))
    store.save_run(RunRecord(run_id="c", scorer_id="s", eval_id="e", item_id="2", error="X: y", finished_at="3"))
    assert {k: r.run_id for k, r in store.completed("e").items()} == {("1", "s"): "b"}


def test_run_evals_writes_parquet_and_resumes_from_it(tmp_path: Path) -> None:
    folder = tmp_path / "runs.parquet"
    with FakeOpenAIServer(SCRIPT, record=False) as srv:
        scorer = create_faithfulness_scorer(Judge("fake", base_url=srv.base_url, api_key="k"))
        first = run_evals(data(6)[:4], scorer, store=str(folder), eval_id="e", quiet=True)
        served = srv.served
        second = run_evals(data(6), scorer, store=str(folder), eval_id="e", quiet=True)
        assert second.summary.resumed_items == 4 and srv.served - served == second.summary.judge_calls > 0
    table = pq.read_table(folder)
    assert table.num_rows == 6
    assert sorted(table.column("item_id").to_pylist()) == [f"i{i}" for i in range(6)]
    assert first.scores == {"faithfulness": 0.75} and second.scores == {"faithfulness": 0.75}
    assert isinstance(open_store(str(folder)), ParquetStore)


def test_without_pyarrow_the_error_names_what_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(MissingDependencyError, match=r"pip install \"troth\[parquet\]\""):
        ParquetStore(tmp_path / "x.parquet")


def test_the_cli_lists_runs_from_a_parquet_folder(tmp_path: Path) -> None:
    import json
    import subprocess

    folder = tmp_path / "runs.parquet"
    store = ParquetStore(folder)
    store.save_run(
        RunRecord(
            run_id="r1",
            scorer_id="faithfulness",
            eval_id="e",
            item_id="a",
            score=0.5,
            finished_at="2026-12-03T00:00:01",
        )
    )
    store.close()
    proc = subprocess.run(
        [sys.executable, "-m", "troth", "runs", "show", "r1", "--store", str(folder), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["score"] == 0.5
