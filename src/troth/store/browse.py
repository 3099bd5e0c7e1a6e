"""The read side that lists a store's runs (the web UI's pages): evaluation summaries, pages of
items, scores, failures and live scores, as indexed SQL over the runs table. A SQLite store
answers on its own connection (``SQLiteStore.browse()``); a Parquet store through a copy of its
runs in an in-memory SQLite database (``ParquetStore.browse()``)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from troth.store.record import RunRecord
from troth.store.rows import COLUMNS, from_row, to_row

EVALS = """
SELECT eval_id, MIN(created_at), COUNT(DISTINCT item_id), COUNT(*), AVG(score), SUM(error IS NOT NULL),
       SUM(cost_usd), SUM(cost_usd IS NULL AND error IS NULL), GROUP_CONCAT(DISTINCT judge_model),
       GROUP_CONCAT(DISTINCT scorer_id)
FROM runs WHERE eval_id IS NOT NULL AND source != 'live' {only} GROUP BY eval_id
"""
ITEM_COLUMNS = "run_id, item_id, scorer_id, score, error, error_step, reason, input, cost_usd"
SORTS = {
    "score": "score IS NULL, score ASC, item_id",
    "-score": "score IS NULL, score DESC, item_id",
    "item": "item_id, scorer_id",
}


@dataclass(frozen=True)
class EvalSummary:
    """One evaluation as listed: when it started, its size, judge(s), mean, failures and cost."""

    eval_id: str
    started: str | None
    items: int
    runs: int
    mean: float | None
    failures: int
    cost_usd: float | None  # None: a price unknown
    judges: str
    scorers: str


@dataclass(frozen=True)
class ItemRow:
    """One scorer run as listed (its input as stored: JSON text)."""

    run_id: str
    item_id: str | None
    scorer_id: str
    score: float | None
    error: str | None
    error_step: str | None
    reason: str | None
    input: str | None
    cost_usd: float | None


class Browser:
    """Read-only listing queries over one SQLite connection: its store's, under the store's lock,
    or one of its own (``owned``: closed by :meth:`close`)."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.Lock, *, owned: bool = False) -> None:
        self._conn, self._lock, self._owned = conn, lock, owned

    def close(self) -> None:
        """Close the connection if it is the browser's own (a store closes its own)."""
        if self._owned:
            with self._lock:
                self._conn.close()

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def last_row(self) -> int:
        """The newest row's number: a summary is stale when this moved."""
        return int(self._query("SELECT MAX(rowid) FROM runs")[0][0] or 0)

    def changed_evals(self, after_row: int) -> list[str]:
        """The evaluations with a run written after row ``after_row``."""
        return [
            r[0]
            for r in self._query(
                "SELECT DISTINCT eval_id FROM runs WHERE rowid > ? AND eval_id IS NOT NULL", (after_row,)
            )
        ]

    def summaries(self, eval_ids: Sequence[str] | None = None) -> list[EvalSummary]:
        """The summaries of ``eval_ids`` (None: of every evaluation)."""
        if eval_ids is not None and not eval_ids:
            return []
        only = "" if eval_ids is None else f"AND eval_id IN ({', '.join('?' * len(eval_ids))})"
        rows = self._query(EVALS.format(only=only), tuple(eval_ids or ()))
        return [
            EvalSummary(r[0], r[1], r[2], r[3], r[4], r[5], None if r[7] else r[6], r[8] or "", r[9] or "")
            for r in rows
        ]

    def items(self, eval_id: str, sort: str, offset: int, limit: int) -> list[ItemRow]:
        """A page of an evaluation's runs, sorted by score (``score``, ``-score``) or ``item``."""
        order = SORTS.get(sort, SORTS["score"])
        sql = f"SELECT {ITEM_COLUMNS} FROM runs WHERE eval_id = ? ORDER BY {order} LIMIT ? OFFSET ?"
        return [ItemRow(*r) for r in self._query(sql, (eval_id, limit, offset))]

    def scores(self, eval_id: str) -> list[float]:
        return [r[0] for r in self._query("SELECT score FROM runs WHERE eval_id = ? AND score IS NOT NULL", (eval_id,))]

    def failures(self, eval_id: str, limit: int) -> list[ItemRow]:
        sql = f"SELECT {ITEM_COLUMNS} FROM runs WHERE eval_id = ? AND error IS NOT NULL ORDER BY item_id LIMIT ?"
        return [ItemRow(*r) for r in self._query(sql, (eval_id, limit))]

    def run(self, run_id: str) -> RunRecord | None:
        rows = self._query(f"SELECT {', '.join(COLUMNS)} FROM runs WHERE run_id = ?", (run_id,))
        return from_row(dict(zip(COLUMNS, rows[0], strict=True))) if rows else None

    def live_scores(self, since: str) -> list[tuple[str | None, float]]:
        """(finish time, score) of the live runs scored since ``since``, oldest first."""
        return [
            (r[0], r[1])
            for r in self._query(
                "SELECT finished_at, score FROM runs WHERE source = 'live' AND "
                "finished_at >= ? AND score IS NOT NULL ORDER BY finished_at",
                (since,),
            )
        ]

    def worst_live(self, since: str, limit: int) -> list[ItemRow]:
        sql = (
            f"SELECT {ITEM_COLUMNS} FROM runs WHERE source = 'live' AND finished_at >= ? AND score IS NOT NULL "
            "ORDER BY score ASC LIMIT ?"
        )
        return [ItemRow(*r) for r in self._query(sql, (since, limit))]


def in_memory(records: Iterable[RunRecord], schema: Iterable[str]) -> Browser:
    """A browser of its own over ``records`` copied into an in-memory SQLite database made by the
    ``schema`` scripts."""
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    for sql in schema:
        conn.executescript(sql)
    rows = [to_row(r) for r in records]
    conn.executemany(
        f"INSERT OR REPLACE INTO runs ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
        [tuple(r[c] for c in COLUMNS) for r in rows],
    )
    conn.commit()
    return Browser(conn, threading.Lock(), owned=True)
