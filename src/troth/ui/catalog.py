"""What the web UI reads, as indexed SQL over the store's ``runs`` table: a SQLite store opened
read-only, or a Parquet store copied into an in-memory SQLite database when the UI starts. The
list of evaluations is summarised when the UI starts; after that, only the evaluations with runs
written since (rows past the last row seen) are summarised again."""

from __future__ import annotations

import json
import sqlite3
import statistics
import threading
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from troth.store.base import RunRecord
from troth.store.rows import COLUMNS, from_row, to_row
from troth.store.sqlite import MIGRATIONS

EVALS = """
SELECT eval_id, MIN(created_at), COUNT(DISTINCT item_id), COUNT(*), AVG(score), SUM(error IS NOT NULL),
       SUM(cost_usd), SUM(cost_usd IS NULL AND error IS NULL), GROUP_CONCAT(DISTINCT judge_model),
       GROUP_CONCAT(DISTINCT scorer_id)
FROM runs WHERE eval_id IS NOT NULL AND source != 'live' {only} GROUP BY eval_id
"""
CHANGED = "SELECT DISTINCT eval_id FROM runs WHERE rowid > ? AND eval_id IS NOT NULL"
MAX_CHANGED = 500  # more evaluations written to since the last look: all are summarised again
ITEM_COLUMNS = "run_id, item_id, scorer_id, score, error, error_step, reason, input, cost_usd"
SORTS = {"score": "score IS NULL, score ASC, item_id", "-score": "score IS NULL, score DESC, item_id",
         "item": "item_id, scorer_id"}  # fmt: skip


@dataclass(frozen=True)
class EvalRow:
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
    run_id: str
    item_id: str | None
    scorer_id: str
    score: float | None
    error: str | None
    error_step: str | None
    reason: str | None
    input: str | None
    cost_usd: float | None


class Catalog:
    """Read-only queries over one store (``path``: a SQLite file, or a Parquet store's folder)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._conn = _parquet_copy(path) if path.is_dir() else _read_only(path)
        self._summary: dict[str, EvalRow] = {}
        self._seen = -1  # the last row summarised
        self._evals: list[EvalRow] = []
        self.evals()

    def evals(self, query: str = "") -> list[EvalRow]:
        """Every evaluation, newest first; ``query`` keeps those whose id, judge or scorers contain it."""
        with self._lock:
            last = int(self._conn.execute("SELECT MAX(rowid) FROM runs").fetchone()[0] or 0)
            if last != self._seen:
                self._refresh(last)
            found = self._evals
        needle = query.strip().lower()
        return [e for e in found if needle in f"{e.eval_id} {e.judges} {e.scorers}".lower()] if needle else found

    def _refresh(self, last: int) -> None:
        """Summarise the evaluations written to since the last look (all of them the first time)."""
        changed = [r[0] for r in self._conn.execute(CHANGED, (self._seen,))] if self._seen >= 0 else []
        if self._seen < 0 or len(changed) > MAX_CHANGED:
            sql, params = EVALS.format(only=""), ()
        else:
            sql = EVALS.format(only=f"AND eval_id IN ({', '.join('?' * len(changed))})") if changed else ""
            params = tuple(changed)
        for r in self._conn.execute(sql, params) if sql else []:
            self._summary[r[0]] = EvalRow(r[0], r[1], r[2], r[3], r[4], r[5], None if r[7] else r[6], r[8] or "",
                                          r[9] or "")  # fmt: skip
        self._evals = sorted(self._summary.values(), key=lambda e: e.started or "", reverse=True)
        self._seen = last

    def eval_row(self, eval_id: str) -> EvalRow | None:
        return next((e for e in self.evals() if e.eval_id == eval_id), None)

    def items(self, eval_id: str, sort: str, offset: int, limit: int) -> list[ItemRow]:
        order = SORTS.get(sort, SORTS["score"])
        sql = f"SELECT {ITEM_COLUMNS} FROM runs WHERE eval_id = ? ORDER BY {order} LIMIT ? OFFSET ?"
        return [_readable(ItemRow(*r)) for r in self._query(sql, (eval_id, limit, offset))]

    def scores(self, eval_id: str) -> list[float]:
        return [r[0] for r in self._query("SELECT score FROM runs WHERE eval_id = ? AND score IS NOT NULL", (eval_id,))]

    def failures(self, eval_id: str, limit: int = 200) -> list[ItemRow]:
        sql = f"SELECT {ITEM_COLUMNS} FROM runs WHERE eval_id = ? AND error IS NOT NULL ORDER BY item_id LIMIT ?"
        return [_readable(ItemRow(*r)) for r in self._query(sql, (eval_id, limit))]

    def run(self, run_id: str) -> RunRecord | None:
        rows = self._query(f"SELECT {', '.join(COLUMNS)} FROM runs WHERE run_id = ?", (run_id,))
        return from_row(dict(zip(COLUMNS, rows[0], strict=True))) if rows else None

    def live(self, since: str, threshold: float) -> tuple[list[dict[str, Any]], list[ItemRow]]:
        """Live scores since ``since`` by hour (runs, mean, p10, share under ``threshold``), and the worst."""
        rows = self._query("SELECT finished_at, score FROM runs WHERE source = 'live' AND finished_at >= ? "
                           "AND score IS NOT NULL ORDER BY finished_at", (since,))  # fmt: skip
        hours: dict[str, list[float]] = {}
        for finished, score in rows:
            hours.setdefault(_hour(finished), []).append(score)
        series = [{"hour": h, "runs": len(s), "mean": statistics.fmean(s), "p10": _p10(s),
                   "under": sum(x < threshold for x in s) / len(s)} for h, s in hours.items()]  # fmt: skip
        worst = self._query(f"SELECT {ITEM_COLUMNS} FROM runs WHERE source = 'live' AND finished_at >= ? AND score "
                            "IS NOT NULL ORDER BY score ASC LIMIT 20", (since,))  # fmt: skip
        return series, [_readable(ItemRow(*r)) for r in worst]

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def close(self) -> None:
        self._conn.close()


def _readable(row: ItemRow) -> ItemRow:
    """The row with its input as text: the stored JSON decoded, nothing for none (never "null")."""
    try:
        value = json.loads(row.input) if row.input is not None else None
    except ValueError:
        return row
    text = "" if value is None else value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return replace(row, input=text)


def _hour(finished: str | None) -> str:
    try:
        return datetime.fromisoformat(finished or "").strftime("%Y-%m-%d %H:00")
    except ValueError:
        return "unknown"


def _p10(scores: list[float]) -> float:
    ordered = sorted(scores)
    return ordered[int(0.1 * (len(ordered) - 1))]


def _read_only(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise ValueError(f"no store at {path}: run an evaluation first, or pass --store")
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)


def _parquet_copy(path: Path) -> sqlite3.Connection:
    """A Parquet store's runs in an in-memory SQLite database with the SQLite store's schema."""
    from troth.store.parquet import ParquetStore

    conn = sqlite3.connect(":memory:", check_same_thread=False)
    for _, sql in MIGRATIONS:
        conn.executescript(sql)
    rows = [to_row(r) for r in ParquetStore(path).records()]
    conn.executemany(f"INSERT OR REPLACE INTO runs ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
                     [tuple(r[c] for c in COLUMNS) for r in rows])  # fmt: skip
    conn.commit()
    return conn
