"""The store failing under a run: locked by another writer, read-only, full. The batch finishes
with every score in hand, the items whose row could not be written say so (step "store"), the
judge-call cache degrades to misses, and a resume once the store is healthy saves each item once."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.faults.conftest import EXPECTED, ITEMS, fault_judge, rows
from troth import create_faithfulness_scorer, run_evals
from troth.store import SQLiteStore
from troth.testing import FakeOpenAIServer


def evaluate(server: FakeOpenAIServer, store: SQLiteStore) -> Any:
    scorer = create_faithfulness_scorer(fault_judge(server), reason="template")
    return run_evals(ITEMS, [scorer], store=store, eval_id="store-faults", quiet=True)


@pytest.mark.parametrize(
    ("pragma", "cause"),
    [("PRAGMA query_only = 1", "it is read-only"), ("PRAGMA max_page_count = 1", "the disk is full")],
)
def test_unwritable_store_keeps_scores_and_names_the_cause(
    pragma: str, cause: str, fault_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    db = tmp_path / "s.db"
    store = SQLiteStore(db)
    store._conn.execute(pragma)  # SQLite itself refuses every write: read-only, or no page left to grow into
    result = evaluate(fault_server, store)
    assert {it.id: it.results["faithfulness"].score for it in result.items} == EXPECTED
    for item in result.items:
        error = item.errors["store"]
        assert (error.type, error.step) == ("StoreError", "store")
        assert error.message.startswith(f"cannot write the store at {db}: {cause}"), error.message
        assert "cannot rollback" not in error.message  # the real cause, not the failed rollback after it
    summary = result.summary
    assert (summary.scored_items, summary.unsaved_items, summary.failed_items) == (len(ITEMS), len(ITEMS), 0)
    assert summary.scorers["faithfulness"].mean is not None and rows(db) == []
    store._conn.execute(pragma.replace("= 1", "= 0") if "query_only" in pragma else "PRAGMA max_page_count = 100000")

    again = evaluate(fault_server, store)  # healthy now: every item scored and saved once
    assert {it.id: it.results["faithfulness"].score for it in again.items} == EXPECTED
    assert again.summary.failed_items == 0 and [r[0] for r in rows(db)] == sorted(EXPECTED)


def test_store_locked_by_another_writer(fault_server: FakeOpenAIServer, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = SQLiteStore(db, timeout=0.2)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another process holds the write lock for the whole run
    try:
        result = evaluate(fault_server, store)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert {it.id: it.results["faithfulness"].score for it in result.items} == EXPECTED
    assert {it.errors["store"].type for it in result.items} == {"StoreError"}
    assert all("it is locked by another writer" in it.errors["store"].message for it in result.items)
    again = evaluate(fault_server, store)
    assert again.summary.failed_items == 0 and [r[0] for r in rows(db)] == sorted(EXPECTED)


def test_text_utf8_cannot_encode_fails_its_item_and_is_stored(fault_server: FakeOpenAIServer, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    item = {**ITEMS[0], "id": "surrogate", "metadata": {"note": "half a pair: \ud800"}, "input": "Q \udc00?"}
    scorer = create_faithfulness_scorer(fault_judge(fault_server), reason="template")
    result = run_evals([item, ITEMS[1]], [scorer], store=db, eval_id="s", quiet=True)
    error = result.items[0].errors["faithfulness"]
    assert (error.type, error.step) == ("InvalidTextError", "prepare") and "input is not valid text" in error.message
    assert result.items[1].results["faithfulness"].score == 0.0 and fault_server.requests  # the other item was judged
    assert all("Q " not in r.prompt for r in fault_server.requests)  # the bad item never reached the judge
    stored = {r.item_id: r for r in SQLiteStore(db).list_runs(eval_id="s")}
    assert stored["surrogate"].input == "Q \udc00?" and stored["surrogate"].error_step == "prepare"
