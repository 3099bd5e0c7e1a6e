"""The SQLite store: named migrations applied once and recorded, an old store migrated with its
rows, concurrent writers."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from troth.store import SQLiteStore

MIGRATIONS = ["0001_runs_and_cache", "0002_source_trace_latency_cost", "0003_input_hash"]


def test_a_store_of_the_first_schema_is_migrated_and_keeps_its_rows(tmp_path: Path) -> None:
    from troth.store import sqlite as store_module

    path = tmp_path / "old.db"
    first = store_module.MIGRATIONS[:1]
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    conn.executescript(first[0][1])
    conn.execute("INSERT INTO migrations VALUES ('0001_runs_and_cache', '2026-01-01')")
    conn.execute("INSERT INTO runs (run_id, scorer_id, eval_id, item_id, score) VALUES ('r1', 's', 'e', 'i', 0.5)")
    conn.commit()
    conn.close()
    store = SQLiteStore(path)
    assert store.migrations() == MIGRATIONS
    (old,) = store.list_runs(eval_id="e")
    assert (old.run_id, old.score, old.source, old.cost_usd) == ("r1", 0.5, "eval", None)
    assert store.list_runs(source="live") == [] and len(store.list_runs(source="eval")) == 1


def test_migrations_are_recorded_and_concurrent_writers(tmp_path: Path) -> None:
    import multiprocessing

    path = tmp_path / "m.db"
    assert SQLiteStore(path).migrations() == MIGRATIONS
    assert SQLiteStore(path).migrations() == MIGRATIONS  # applied once
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_write_many, args=(str(path), w)) for w in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=60)
    assert all(p.exitcode == 0 for p in procs)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 150
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def _write_many(path: str, worker: int) -> None:
    from troth.store import RunRecord, SQLiteStore

    store = SQLiteStore(path)
    for i in range(50):
        store.save_run(
            RunRecord(run_id=f"w{worker}-{i}", scorer_id="s", eval_id=f"x{worker}", item_id=str(i), score=1.0)
        )
