"""Runs as Parquet files in a folder, for runs too large for one SQLite file.

Records are buffered and written in parts of ``rows_per_file`` rows, each part written whole
under a temporary name and then renamed, so a reader never sees half a part and a crash loses
at most the buffer (which a resume scores again). A run saved again for the same (evaluation,
item, scorer) adds a row; readers take the newest (``finished_at``), as :meth:`completed` does.
There is no judge-call cache. Needs pyarrow (``troth[ray]`` brings it).
"""

from __future__ import annotations

import contextlib
import os
import threading
import uuid
from pathlib import Path
from typing import Any

from troth.extras import load, require
from troth.store.base import RunRecord
from troth.store.browse import Browser, in_memory
from troth.store.failures import store_error
from troth.store.rows import COLUMNS, NUMBER_FIELDS, from_row, to_row


def _pyarrow() -> tuple[Any, Any]:
    return load("pyarrow", "parquet"), load("pyarrow.parquet", "parquet")


class ParquetStore:
    """``run_evals(..., store=ParquetStore("runs.parquet"))``: one folder of ``part-*.parquet``."""

    def __init__(self, folder: str | os.PathLike[str], *, rows_per_file: int = 1000) -> None:
        require("parquet")
        if isinstance(rows_per_file, bool) or not isinstance(rows_per_file, int) or rows_per_file < 1:
            raise ValueError(f"rows_per_file must be a positive integer, not {rows_per_file!r}")
        self.pa, self.pq = _pyarrow()
        self.folder, self.rows_per_file = Path(folder), rows_per_file
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise store_error(self.folder, "open", exc) from None
        self.prefix, self.parts = uuid.uuid4().hex[:8], 0
        self.buffer: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        columns = [(c, self.pa.float64() if c in NUMBER_FIELDS else self.pa.string()) for c in COLUMNS]
        self.schema = self.pa.schema(columns)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its folder: another process writes parts of its own (nothing buffered goes along)."""
        return (_open_parquet, (self.folder, self.rows_per_file))

    def save_run(self, record: RunRecord) -> None:
        with self.lock:
            self.buffer.append(to_row(record))
            if len(self.buffer) >= self.rows_per_file:
                self._write_part()

    def flush(self) -> None:
        """Write what is buffered as one part."""
        with self.lock:
            self._write_part()

    def _write_part(self) -> None:
        """The buffer as one part, written whole or not at all; a failure (read-only, disk full)
        is a StoreError and the buffer is kept, for the next write or :meth:`unsaved`."""
        if not self.buffer:
            return
        name = f"part-{self.prefix}-{self.parts:05d}.parquet"
        tmp = self.folder / f".{name}.tmp"
        try:
            self.pq.write_table(self.pa.Table.from_pylist(self.buffer, schema=self.schema), tmp)
            os.replace(tmp, self.folder / name)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            raise store_error(self.folder, "write", exc) from None
        self.parts += 1
        self.buffer = []

    def unsaved(self) -> list[RunRecord]:
        """The records saved here but not yet written to a part."""
        with self.lock:
            return [from_row(r) for r in self.buffer]

    def records(self) -> list[RunRecord]:
        """Every record: the written parts, then the buffer."""
        rows: list[dict[str, Any]] = []
        for path in sorted(self.folder.glob("part-*.parquet")):
            rows += self.pq.read_table(path).to_pylist()
        with self.lock:
            rows += list(self.buffer)
        return [from_row(r) for r in rows]

    def get_run(self, run_id: str) -> RunRecord | None:
        return next((r for r in self.records() if r.run_id == run_id), None)

    def browse(self) -> Browser:
        """The listing queries (the web UI's), over a copy of every record in memory: what is
        written later is not in it."""
        from troth.store.sqlite import MIGRATIONS

        return in_memory(self.records(), (sql for _, sql in MIGRATIONS))

    def list_runs(
        self, *, eval_id: str | None = None, limit: int = 50, source: str | None = None, since: str | None = None
    ) -> list[RunRecord]:
        """Newest first; filtered as :meth:`SQLiteStore.list_runs` filters."""
        found = [
            r
            for r in self.records()
            if eval_id in (None, r.eval_id) and source in (None, r.source) and (since or "") <= (r.finished_at or "")
        ]
        return sorted(found, key=lambda r: r.finished_at or "", reverse=True)[:limit]

    def completed(self, eval_id: str) -> dict[tuple[str, str], RunRecord]:
        newest: dict[tuple[str, str], RunRecord] = {}
        for r in sorted(self.list_runs(eval_id=eval_id, limit=2**62), key=lambda r: r.finished_at or ""):
            newest[(str(r.item_id), r.scorer_id)] = r
        return {key: r for key, r in newest.items() if r.error is None}

    def cache_get(self, key: str) -> dict[str, Any] | None:
        return None  # no judge-call cache in Parquet

    def cache_put(self, key: str, model: str, value: dict[str, Any]) -> None:
        return None

    def close(self) -> None:
        self.flush()


def _open_parquet(folder: Path, rows_per_file: int) -> ParquetStore:
    return ParquetStore(folder, rows_per_file=rows_per_file)
