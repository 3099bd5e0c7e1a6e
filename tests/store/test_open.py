"""``open_store`` is the one way in: a store to read must exist and is never written, and both
kinds of store answer the same listing queries (``browse``)."""

from __future__ import annotations

import os
from contextlib import closing
from pathlib import Path

import pytest

from troth.errors import NoStoreError, StoreError
from troth.store import ParquetStore, SQLiteStore, open_store, store_path
from troth.store.base import RunRecord, now
from troth.values import Verdict


def records() -> list[RunRecord]:
    return [
        RunRecord(
            run_id=f"r{i}",
            scorer_id="faithfulness",
            eval_id="e1" if i < 3 else "e2",
            item_id=f"i{i}",
            score=i / 4,
            input={"question": i},
            verdicts=[Verdict(f"Claim {i}.", "yes", "stated")],
            created_at=now(),
            finished_at=now(),
        )
        for i in range(5)
    ]


def test_a_store_to_read_must_exist_and_is_not_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(NoStoreError, match=r"no store at .*none\.db: run an evaluation first, or pass --store"):
        open_store(tmp_path / "none.db", read_only=True)
    assert not (tmp_path / "none.db").exists()
    with pytest.raises(ValueError, match="no store at"):
        open_store(tmp_path / "none.parquet", read_only=True)
    monkeypatch.setenv("TROTH_STORE", str(tmp_path / "env.db"))
    assert store_path() == tmp_path / "env.db"
    with closing(open_store(True)) as made:  # writable: created
        made.save_run(records()[0])
    with closing(open_store(True, read_only=True)) as read:
        assert isinstance(read, SQLiteStore) and read.get_run("r0") is not None
        with pytest.raises(StoreError):
            read.save_run(records()[1])
    assert open_store(None) is None and open_store(False) is None


def test_sqlite_and_parquet_stores_list_the_same(tmp_path: Path) -> None:
    sqlite, parquet = SQLiteStore(tmp_path / "s.db"), ParquetStore(tmp_path / "p.parquet")
    for record in records():
        sqlite.save_run(record)
        parquet.save_run(record)
    parquet.close()
    listed = []
    for path in (tmp_path / "s.db", tmp_path / "p.parquet"):
        with closing(open_store(path, read_only=True)) as store:
            browser = store.browse()
            summaries = sorted((s.eval_id, s.items, s.runs, s.mean) for s in browser.summaries())
            page = [(r.item_id, r.score, r.input) for r in browser.items("e1", "-score", 0, 2)]
            run = browser.run("r4")
            listed.append((summaries, page, browser.scores("e2"), run.verdicts if run else None))
            browser.close()
    sqlite.close()
    assert listed[0] == listed[1]
    assert listed[0][0] == [("e1", 3, 3, 0.25), ("e2", 2, 2, 0.875)]
    assert listed[0][1] == [("i2", 0.5, '{"question": 2}'), ("i1", 0.25, '{"question": 1}')]
    assert listed[0][3] == [Verdict("Claim 4.", "yes", "stated")]
    assert os.path.isdir(tmp_path / "p.parquet")
