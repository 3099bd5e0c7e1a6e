"""The embedded SQLite store (default ``./.troth/troth.db``).

The schema changes only through the append-only, named migrations below, each recorded in the
``migrations`` table. WAL mode and a busy timeout let several processes write at once; every
write is one transaction. A scorer run saved again for the same (evaluation, item, scorer)
replaces the earlier row (a resumed failure leaves one row, the new one). Every text is passed
through :func:`troth.redaction.redact` before it is written, and text Python holds but UTF-8
cannot encode (lone surrogates) is stored escaped rather than failing the write.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from troth.store.base import RunRecord, now
from troth.store.browse import Browser
from troth.store.failures import store_error
from troth.store.rows import COLUMNS, from_row, storable, to_row

MIGRATIONS: tuple[tuple[str, str], ...] = (
    (
        "0001_runs_and_cache",
        """
        CREATE TABLE runs (
            run_id TEXT PRIMARY KEY,
            eval_id TEXT,
            item_id TEXT,
            scorer_id TEXT NOT NULL,
            scorer_version TEXT,
            prompt_version TEXT,
            judge_model TEXT,
            input TEXT,
            output TEXT,
            context TEXT,
            claims TEXT,
            verdicts TEXT,
            score REAL,
            reason TEXT,
            prompts TEXT,
            usage TEXT,
            result TEXT,
            error TEXT,
            error_step TEXT,
            created_at TEXT,
            finished_at TEXT
        );
        CREATE INDEX runs_by_eval ON runs (eval_id, item_id, scorer_id);
        CREATE INDEX runs_by_time ON runs (finished_at);
        CREATE TABLE judge_cache (
            key TEXT PRIMARY KEY,
            model TEXT,
            value TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        """,
    ),
    (
        "0002_source_trace_latency_cost",
        """
        ALTER TABLE runs ADD COLUMN source TEXT;
        ALTER TABLE runs ADD COLUMN trace_id TEXT;
        ALTER TABLE runs ADD COLUMN latency_s REAL;
        ALTER TABLE runs ADD COLUMN cost_usd REAL;
        UPDATE runs SET source = 'eval' WHERE source IS NULL;
        CREATE INDEX runs_by_source ON runs (source, finished_at);
        """,
    ),
    ("0003_input_hash", "ALTER TABLE runs ADD COLUMN input_hash TEXT;"),
)


class SQLiteStore:
    """Runs and the judge-call cache in one SQLite file."""

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 30.0, read_only: bool = False) -> None:
        self.path, self.timeout, self.read_only = Path(path), timeout, read_only
        self._lock = threading.Lock()
        try:
            self._conn = self._read_only() if read_only else self._writable()
        except (OSError, sqlite3.Error) as exc:
            raise store_error(self.path, "open", exc) from None

    def _writable(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if _on_read_only_mount(self.path.parent):
            raise OSError(errno.EROFS, "read-only file system", str(self.path.parent))
        conn = sqlite3.connect(self.path, timeout=self.timeout, check_same_thread=False, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA busy_timeout={int(self.timeout * 1000)}")
            self._migrate(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _read_only(self) -> sqlite3.Connection:
        """A connection that never writes: for a store on a read-only mount, ``immutable`` too
        (SQLite then needs no lock or WAL index beside the file)."""
        if not self.path.is_file():
            raise FileNotFoundError(errno.ENOENT, "no such file", str(self.path))
        uri = f"{self.path.resolve().as_uri()}?mode=ro"
        writable_dir = os.access(self.path.parent, os.W_OK) and not _on_read_only_mount(self.path)
        conn = sqlite3.connect(
            uri if writable_dir else uri + "&immutable=1", uri=True, check_same_thread=False, timeout=self.timeout
        )
        conn.execute("SELECT count(*) FROM runs").fetchone()  # not a store (or corrupt): fail now
        return conn

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"

    def _migrate(self, conn: sqlite3.Connection) -> None:
        with self._lock, _transaction(conn):
            conn.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
            done = {row[0] for row in conn.execute("SELECT name FROM migrations")}
            for name, sql in MIGRATIONS:
                if name not in done:
                    for statement in filter(str.strip, sql.split(";")):
                        conn.execute(statement)
                    conn.execute("INSERT INTO migrations VALUES (?, ?)", (name, now()))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its path: another process opens its own connection."""
        return (_open_sqlite, (self.path, self.timeout))

    def migrations(self) -> list[str]:
        """Names of the applied migrations, in order."""
        with self._lock:
            return [r[0] for r in self._conn.execute("SELECT name FROM migrations ORDER BY applied_at, name")]

    def _write(self, *statements: tuple[str, tuple[Any, ...]]) -> None:
        """One transaction; a failure is a StoreError naming its cause."""
        with self._lock:
            try:
                with _transaction(self._conn):
                    for sql, params in statements:
                        self._conn.execute(sql, params)
            except sqlite3.Error as exc:
                raise store_error(self.path, "write", exc) from None

    def save_run(self, record: RunRecord) -> None:
        values = tuple(to_row(record).values())
        placeholders = ", ".join("?" for _ in COLUMNS)
        insert = (f"INSERT OR REPLACE INTO runs ({', '.join(COLUMNS)}) VALUES ({placeholders})", values)
        if record.eval_id is None or record.item_id is None:
            self._write(insert)
            return
        earlier = "DELETE FROM runs WHERE eval_id = ? AND item_id = ? AND scorer_id = ? AND run_id != ?"
        self._write((earlier, (record.eval_id, record.item_id, record.scorer_id, record.run_id)), insert)

    def _record(self, row: sqlite3.Row | tuple[Any, ...]) -> RunRecord:
        return from_row(dict(zip(COLUMNS, row, strict=True)))

    def _select(self, where: str = "", params: tuple[Any, ...] = (), tail: str = "") -> list[RunRecord]:
        try:
            with self._lock:
                rows = self._conn.execute(f"SELECT {', '.join(COLUMNS)} FROM runs {where} {tail}", params).fetchall()
        except sqlite3.Error as exc:
            raise store_error(self.path, "read", exc) from None
        return [self._record(r) for r in rows]

    def get_run(self, run_id: str) -> RunRecord | None:
        found = self._select("WHERE run_id = ?", (run_id,))
        return found[0] if found else None

    def list_runs(
        self, *, eval_id: str | None = None, limit: int = 50, source: str | None = None, since: str | None = None
    ) -> list[RunRecord]:
        """Newest first; filtered by evaluation, source (``eval``, ``live``, ``pytest``) and
        finish time (ISO 8601, inclusive)."""
        conditions, params = [], []
        for column, op, value in (("eval_id", "=", eval_id), ("source", "=", source), ("finished_at", ">=", since)):
            if value is not None:
                conditions.append(f"{column} {op} ?")
                params.append(value)
        where = "WHERE " + " AND ".join(conditions) if conditions else ""
        return self._select(where, (*params, limit), tail="ORDER BY finished_at DESC LIMIT ?")

    def completed(self, eval_id: str) -> dict[tuple[str, str], RunRecord]:
        rows = self._select("WHERE eval_id = ? AND error IS NULL", (eval_id,), tail="ORDER BY finished_at")
        return {(str(r.item_id), r.scorer_id): r for r in rows}

    def cache_get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn.execute("SELECT value FROM judge_cache WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def cache_put(self, key: str, model: str, value: dict[str, Any]) -> None:
        row = (key, model, storable(value, json_field=True), now())
        self._write(("INSERT OR REPLACE INTO judge_cache VALUES (?, ?, ?, ?)", row))

    def flush(self) -> None:
        """Nothing to do: every write is committed as it is made."""

    def unsaved(self) -> list[RunRecord]:
        """None: a write either commits or fails at once."""
        return []

    def browse(self) -> Browser:
        """The listing queries (the web UI's), on this store's connection."""
        return Browser(self._conn, self._lock)

    def close(self) -> None:
        with self._lock:
            self._conn.close()


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``; on a failure a rollback, unless SQLite rolled back
    already (after a failed COMMIT a ROLLBACK would fail and hide the real cause)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise


def _open_sqlite(path: Path, timeout: float) -> SQLiteStore:
    return SQLiteStore(path, timeout=timeout)


def _on_read_only_mount(path: Path) -> bool:
    """True when the file system holding ``path`` is mounted read-only (os.access does not say so to root)."""
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False
