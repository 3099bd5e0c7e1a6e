"""A scorer run's verdicts are typed from the result to the store and back: stored once (the
``verdicts`` column), decoded once where a row is read, and a resumed result gets them back."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

from troth.evals.item import Item
from troth.evals.records import result_from_record, to_record
from troth.scorers.base import create_scorer
from troth.store import SQLiteStore
from troth.values import Evidence, ScoreResult, Verdict, Verdicts

VERDICTS = [
    Verdict("It opened in 1932.", "yes", "stated", Evidence("opened in 1932", True, 0, 11, 25)),
    Verdict("It is red.", "unsure", "not said", probabilities={"supported": 0.2}),
]


def result() -> ScoreResult:
    return ScoreResult(
        run_id="r1",
        scorer_id="faithfulness",
        prompt_version="v",
        preprocess_step_result=["a", "b"],
        preprocess_prompt=None,
        analyze_step_result=Verdicts(VERDICTS),
        analyze_prompt=None,
        score=0.5,
        reason="why",
        generate_reason_prompt=None,
    )


def test_verdicts_are_stored_once_and_read_back_typed(tmp_path: Path) -> None:
    item = Item("i1", "q", "It opened in 1932. It is red.", ["It opened in 1932."])
    record = to_record("e1", item, create_scorer(id="faithfulness"), result(), None, "2026-12-05T00:00:00+00:00")
    assert record.verdicts == VERDICTS
    store = SQLiteStore(tmp_path / "s.db")
    store.save_run(record)
    with closing(sqlite3.connect(tmp_path / "s.db")) as conn:
        verdicts, stored = conn.execute("SELECT verdicts, result FROM runs").fetchone()
    assert [v["claim"] for v in json.loads(verdicts)] == ["It opened in 1932.", "It is red."]
    assert json.loads(stored)["analyze_step_result"] is None  # not a second copy
    assert json.loads(stored)["context"] is None  # nor of the context
    read = store.get_run(record.run_id)
    store.close()
    assert read is not None and read.verdicts == VERDICTS  # Verdict objects, evidence and probabilities kept
    resumed = result_from_record(read)
    assert resumed.verdicts == VERDICTS and resumed.score == 0.5
    assert resumed.context == ["It opened in 1932."]


def test_a_custom_scorer_result_keeps_its_own_analyze_result(tmp_path: Path) -> None:
    custom = ScoreResult(
        run_id="r2",
        scorer_id="politeness",
        prompt_version=None,
        preprocess_step_result=None,
        preprocess_prompt=None,
        analyze_step_result={"tone": "kind"},
        analyze_prompt=None,
        score=1.0,
        reason=None,
        generate_reason_prompt=None,
    )
    item = Item("i", None, "x")
    record = to_record("e1", item, create_scorer(id="politeness"), custom, None, "2026-12-05T00:00:00+00:00")
    assert record.verdicts is None
    assert result_from_record(record).analyze_step_result == {"tone": "kind"}
