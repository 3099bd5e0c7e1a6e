"""The local LLM's child process: a native crash costs the call in flight, not the caller.

The worker here is ``crashing_llm_worker.py``: the real worker loop and protocol around a scripted
model that kills its own process with SIGSEGV on a prompt containing ``CRASH``. The scorers,
runner, CLI, Monitor and cascade are troth's own, unchanged.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from troth import (
    ConfigError,
    Judge,
    JudgeBrokenError,
    JudgeCrashedError,
    JudgeError,
    Monitor,
    create_faithfulness_scorer,
    run_evals,
)
from troth.judges.backends.llama import LlamaBackend
from troth.judges.backends.llama_models import resolve_model
from troth.judges.backends.llama_process import ENV_WORKER, LlamaProcess, WorkerSpec, process_for, signal_name

WORKER = Path(__file__).with_name("crashing_llm_worker.py")
COMMAND = f"{sys.executable} {WORKER}"
CONTEXT = ["The bridge opened in 1932. It is 80 m high."]


@pytest.fixture
def model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A file that looks like a GGUF model, answered by the crashing worker; its process ends after the test."""
    monkeypatch.setenv(ENV_WORKER, COMMAND)
    path = tmp_path / "scripted.gguf"
    path.write_bytes(b"GGUF" + bytes(64))
    yield path
    for restarts in range(4):
        process_for(WorkerSpec(tuple(COMMAND.split()), str(path), 8192, "llm/scripted", restarts)).close()


def items(n: int, crash: set[int]) -> list[dict[str, object]]:
    """``n`` items; those numbered in ``crash`` (from 1) crash the model. Each output differs: the
    judge answers a prompt it has answered from memory, without the model."""
    return [
        {
            "id": f"i{k:02d}",
            "output": f"{'CRASH' if k in crash else 'Item'} {k}: the bridge opened in 1932.",
            "context": CONTEXT,
        }
        for k in range(1, n + 1)
    ]


def test_signal_names() -> None:
    assert signal_name(-11) == "SIGSEGV"
    assert signal_name(-4) == "SIGILL"
    assert signal_name(3) == "exit status 3"


def test_a_crash_fails_that_call_and_a_new_process_answers_the_next(model: Path) -> None:
    scorer = create_faithfulness_scorer(f"llm/{model}", context=CONTEXT, reason="template")
    assert scorer.run(output="The bridge opened in 1932.").score == 1.0
    first = process_for(LlamaBackend(resolve_model(str(model))).spec).pid
    with pytest.raises(Exception) as info:
        scorer.run(output="CRASH: the bridge opened in 1932.")
    crash = info.value.__cause__
    assert isinstance(crash, JudgeCrashedError)
    assert crash.signal == "SIGSEGV" and crash.returncode == -11 and crash.model == "llm/scripted"
    assert crash.step == "preprocess" and str(crash) == (
        "llm/scripted crashed (SIGSEGV) while answering; a new process answers the next call (restart 1 of 2)"
    )
    assert scorer.run(output="The bridge opened in 1932.").score == 1.0
    assert process_for(LlamaBackend(resolve_model(str(model))).spec).pid not in (None, first)


def test_ten_items_with_a_crash_in_the_third_score_nine_and_save_all(model: Path, tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    scorer = create_faithfulness_scorer(f"llm/{model}", reason="template")
    result = run_evals(items(10, {3}), [scorer], store=db, quiet=True, concurrency=1)
    assert result.summary.scored_items == 9 and result.summary.failed_items == 1
    failed = [it for it in result.items if it.errors]
    assert [it.id for it in failed] == ["i03"]
    error = failed[0].errors[scorer.id]
    assert (error.type, error.step) == ("JudgeCrashedError", "preprocess") and "SIGSEGV" in error.message
    with sqlite3.connect(db) as conn:
        rows = dict(conn.execute("SELECT item_id, error FROM runs"))
    assert len(rows) == 10 and rows["i03"].startswith("JudgeCrashedError")
    assert all(rows[f"i{k:02d}"] is None for k in range(1, 11) if k != 3)


def test_crashes_past_the_budget_leave_the_judge_broken(model: Path) -> None:
    backend = LlamaBackend(resolve_model(str(model)), restarts=1)
    scorer = create_faithfulness_scorer(Judge(f"llm/{model}", backend=backend), reason="template")
    result = run_evals(items(6, {1, 2}), [scorer], store=None, quiet=True, concurrency=1)
    errors = [(it.id, it.errors[scorer.id].type, it.errors[scorer.id].message) for it in result.items]
    assert errors[0][1] == "JudgeCrashedError" and "(restart 1 of 1)" in errors[0][2]
    assert errors[1][1] == "JudgeCrashedError"
    assert "the judge is now broken (2 crashes; restart budget 1)" in errors[1][2]
    assert {e[1] for e in errors[2:]} == {"JudgeBrokenError"}
    assert "crashed 2 times (last: SIGSEGV), more than its restart budget of 1" in errors[2][2]
    assert process_for(backend.spec).pid is None  # no process was started again


def test_the_cli_scores_the_rest_and_says_broken_once(model: Path, tmp_path: Path) -> None:
    data, db = tmp_path / "data.jsonl", tmp_path / "runs.db"
    data.write_text("".join(json.dumps(row) + "\n" for row in items(10, {3, 5, 6, 7})), encoding="utf-8")
    env = {**os.environ, "COLUMNS": "250"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "troth",
            "eval",
            str(data),
            "--model",
            f"llm/{model}",
            "--store",
            str(db),
            "-q",
            "--concurrency",
            "1",
            "--reason",
            "template",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    out = " ".join(proc.stdout.split())  # rich wraps long lines
    assert "item i03: faithfulness failed in preprocess: JudgeCrashedError: llm/scripted crashed (SIGSEGV)" in out
    assert (
        "item i06: faithfulness failed in preprocess: JudgeCrashedError: llm/scripted crashed (SIGSEGV) while "
        "answering; the judge is now broken (3 crashes; restart budget 2)" in out
    )
    broken = "items i07, i08, i09 and 1 more: faithfulness failed in preprocess: JudgeBrokenError: llm/scripted is "
    broken += "broken"
    assert broken in out and out.count("JudgeBrokenError") == 1
    last = proc.stderr.strip().splitlines()[-1]  # what failed, per step, with the first error: said last
    assert last.startswith("troth: 7 of 10 item(s) failed: preprocess 7 (first: item 'i03': JudgeCrashedError: ")
    with sqlite3.connect(db) as conn:
        rows = dict(conn.execute("SELECT item_id, error FROM runs"))
    assert len(rows) == 10 and [k for k, v in sorted(rows.items()) if v is None] == ["i01", "i02", "i04"]


def test_the_monitor_stores_the_crash_and_scores_the_next_calls(model: Path, tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    monitor = Monitor([create_faithfulness_scorer(f"llm/{model}", context=CONTEXT, reason="template")], store=db)

    @monitor.watch
    def answer(question: str) -> str:
        return "CRASH: it opened in 1932." if question == "q2" else "The bridge opened in 1932."

    assert [answer(f"q{i}") for i in range(1, 5)][1] == "CRASH: it opened in 1932."
    assert monitor.flush(timeout=60)
    monitor.close()
    with sqlite3.connect(db) as conn:
        found = conn.execute("SELECT input, score, error FROM runs")
        rows = sorted((json.loads(question), score, error) for question, score, error in found)
    assert [r[0] for r in rows] == ["q1", "q2", "q3", "q4"]
    assert rows[1][2].startswith("JudgeCrashedError") and rows[1][1] is None
    assert [r[1] for r in rows if r[0] != "q2"] == [1.0, 1.0, 1.0]


def test_a_crash_of_the_second_opinion_fails_that_item_of_the_cascade(model: Path) -> None:
    pytest.importorskip("onnxruntime")
    judge = Judge("local", second_opinion=Judge(f"llm/{model}"), uncertain_band=(0.0, 1.0))
    scorer = create_faithfulness_scorer(judge, reason="template")
    result = run_evals(items(4, {2}), [scorer], store=None, quiet=True, concurrency=1)
    assert [bool(it.errors) for it in result.items] == [False, True, False, False]
    error = result.items[1].errors[scorer.id]
    assert error.type == "JudgeCrashedError" and "llm/scripted crashed (SIGSEGV)" in error.message
    scored = [it.results[scorer.id] for it in result.items if not it.errors]
    assert all(v.decided_by == "llm/scripted" for res in scored for v in res.verdicts)


def test_errors_of_the_worker_are_raised_as_themselves(model: Path) -> None:
    process = LlamaProcess(WorkerSpec(tuple(COMMAND.split()), str(model), 8192, "llm/scripted"))
    try:
        with pytest.raises(ValueError, match="unknown operation 'nope'"):
            process.call("nope", {"messages": [{"role": "user", "content": "hi"}]})
        assert process.crashes == 0 and process.pid is not None  # an error is not a crash
    finally:
        process.close()
    assert process.pid is None


def test_a_worker_command_that_cannot_start_is_a_config_error(model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_WORKER, str(model.parent / "no-such-program"))
    scorer = create_faithfulness_scorer(f"llm/{model}", context=CONTEXT, reason="template")
    with pytest.raises(ConfigError, match=r"cannot start the local model's process .*no-such-program"):
        scorer.run(output="The bridge opened in 1932.")


def test_a_broken_judge_raises_at_once() -> None:
    process = LlamaProcess(WorkerSpec(("true",), "/nonexistent.gguf", 512, "llm/x", restarts=0))
    with pytest.raises(JudgeCrashedError, match=r"crashed \(exit status 0\) while answering; the judge is now broken"):
        process.call("complete", {})
    with pytest.raises(JudgeBrokenError, match="restart budget of 0"):
        process.call("complete", {})
    assert process.pid is None


def test_a_reply_that_is_not_the_protocol_is_a_judge_error(tmp_path: Path) -> None:
    script = tmp_path / "echo.py"
    script.write_text("import sys\nfor line in sys.stdin:\n    print('loading model...', flush=True)\n")
    process = LlamaProcess(WorkerSpec((sys.executable, str(script)), "/m.gguf", 512, "llm/echo"))
    try:
        with pytest.raises(JudgeError, match=r"llm/echo's process answered 'loading model...\\n', not a worker reply"):
            process.call("complete", {})
        assert process.crashes == 0
    finally:
        process.close()
