"""Resuming an eval id after its data changed: the changed items are scored again (and said so),
never answered from the stale stored score; ``resume="strict"`` refuses before any judge call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SECRET_KEY
from tests.faults.conftest import ITEMS, fault_judge
from troth import ChangedItemsError, create_faithfulness_scorer, run_evals
from troth.store import SQLiteStore
from troth.testing import FakeOpenAIServer

EDITED = [dict(ITEMS[0]), {**ITEMS[1], "output": "The bridge opened in 1932."}, dict(ITEMS[2])]


def scores(db: Path, eval_id: str) -> dict[str, float | None]:
    return {str(r.item_id): r.score for r in SQLiteStore(db).list_runs(eval_id=eval_id, limit=100)}


def test_an_edited_answer_is_scored_again_not_answered_from_the_stale_score(
    fault_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    db = tmp_path / "s.db"
    scorer = create_faithfulness_scorer(fault_judge(fault_server), reason="template")
    first = run_evals(ITEMS, [scorer], store=db, eval_id="x", quiet=True)
    assert scores(db, "x") == {"ok-yes": 1.0, "ok-no": 0.0, "faulted": 1.0} and first.summary.rescored_items == 0
    again = run_evals(EDITED, [scorer], store=db, eval_id="x", quiet=True)
    by_id = {i.id: i for i in again.items}
    assert by_id["ok-no"].results["faithfulness"].score == 1.0 and by_id["ok-no"].rescored
    assert not by_id["ok-no"].resumed and by_id["ok-yes"].resumed and by_id["faulted"].resumed
    assert (again.summary.rescored_items, again.summary.resumed_items) == (1, 2)
    assert scores(db, "x") == {"ok-yes": 1.0, "ok-no": 1.0, "faulted": 1.0}  # one row each, the new one


def test_changed_scorer_settings_score_every_item_again(fault_server: FakeOpenAIServer, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    judge = fault_judge(fault_server)
    run_evals(ITEMS, [create_faithfulness_scorer(judge, reason="template")], store=db, eval_id="x", quiet=True)
    scaled = create_faithfulness_scorer(judge, reason="template", scale=10)
    again = run_evals(ITEMS, [scaled], store=db, eval_id="x", quiet=True)
    assert again.summary.rescored_items == 3 and scores(db, "x") == {"ok-yes": 10.0, "ok-no": 0.0, "faulted": 10.0}


def test_resume_strict_refuses_before_any_judge_call(fault_server: FakeOpenAIServer, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    scorer = create_faithfulness_scorer(fault_judge(fault_server), reason="template")
    run_evals(ITEMS, [scorer], store=db, eval_id="x", quiet=True)
    calls = len(fault_server.requests)
    changed = r"1 item\(s\) of evaluation 'x' changed since they were scored \(ok-no\)"
    with pytest.raises(ChangedItemsError, match=changed):
        run_evals(EDITED, [scorer], store=db, eval_id="x", quiet=True, resume="strict")
    assert len(fault_server.requests) == calls and scores(db, "x")["ok-no"] == 0.0
    unchanged = run_evals(ITEMS, [scorer], store=db, eval_id="x", quiet=True, resume="strict")
    assert unchanged.summary.resumed_items == 3 and len(fault_server.requests) == calls
    with pytest.raises(ValueError, match="resume must be one of rescore, strict, not 'never'"):
        run_evals(ITEMS, [scorer], store=db, eval_id="x", quiet=True, resume="never")  # type: ignore[typeddict-item]


def test_the_cli_says_how_many_changed_and_strict_exits_2(fault_server: FakeOpenAIServer, tmp_path: Path) -> None:
    data, db = tmp_path / "data.jsonl", tmp_path / "s.db"
    env = {**os.environ, "TROTH_API_KEY": SECRET_KEY, "COLUMNS": "200"}

    def troth(*extra: str) -> subprocess.CompletedProcess[str]:
        argv = [
            sys.executable,
            "-m",
            "troth",
            "eval",
            str(data),
            "--model",
            "m",
            "--base-url",
            fault_server.base_url,
            "--store",
            str(db),
            "--eval-id",
            "x",
            "-q",
            *extra,
        ]
        return subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)

    data.write_text("".join(json.dumps(r) + "\n" for r in ITEMS[:2]))
    assert troth().returncode == 0
    data.write_text("".join(json.dumps(r) + "\n" for r in EDITED[:2]))
    strict = troth("--resume", "strict")
    assert strict.returncode == 2 and strict.stderr.startswith("error: 1 item(s) of evaluation 'x' changed")
    rescored = troth()
    assert "1 item(s) changed since evaluation x scored them: scored again" in rescored.stdout
    assert scores(db, "x") == {"ok-yes": 1.0, "ok-no": 1.0}
