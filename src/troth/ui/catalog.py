"""What the web UI reads, through the store's listing queries (:meth:`Store.browse`): a SQLite
store opened read-only, or a Parquet store copied into memory when the UI starts. The list of
evaluations is summarised when the UI starts; after that, only the evaluations with runs
written since (rows past the last row seen) are summarised again."""

from __future__ import annotations

import json
import statistics
import threading
from dataclasses import replace
from datetime import datetime
from typing import Any

from troth.store.base import RunRecord, Store
from troth.store.browse import EvalSummary, ItemRow

MAX_CHANGED = 500  # more evaluations written to since the last look: all are summarised again


class Catalog:
    """Read-only queries over one store, with the list of evaluations kept up to date."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._browser = store.browse()
        self._lock = threading.Lock()
        self._summary: dict[str, EvalSummary] = {}
        self._seen = -1  # the last row summarised
        self._evals: list[EvalSummary] = []
        self.evals()

    def evals(self, query: str = "") -> list[EvalSummary]:
        """Every evaluation, newest first; ``query`` keeps those whose id, judge or scorers contain it."""
        with self._lock:
            last = self._browser.last_row()
            if last != self._seen:
                self._refresh(last)
            found = self._evals
        needle = query.strip().lower()
        return [e for e in found if needle in f"{e.eval_id} {e.judges} {e.scorers}".lower()] if needle else found

    def _refresh(self, last: int) -> None:
        """Summarise the evaluations written to since the last look (all of them the first time)."""
        changed = self._browser.changed_evals(self._seen) if self._seen >= 0 else []
        every = self._seen < 0 or len(changed) > MAX_CHANGED
        for row in self._browser.summaries(None if every else changed):
            self._summary[row.eval_id] = row
        self._evals = sorted(self._summary.values(), key=lambda e: e.started or "", reverse=True)
        self._seen = last

    def eval_row(self, eval_id: str) -> EvalSummary | None:
        return next((e for e in self.evals() if e.eval_id == eval_id), None)

    def items(self, eval_id: str, sort: str, offset: int, limit: int) -> list[ItemRow]:
        return [_readable(r) for r in self._browser.items(eval_id, sort, offset, limit)]

    def scores(self, eval_id: str) -> list[float]:
        return self._browser.scores(eval_id)

    def failures(self, eval_id: str, limit: int = 200) -> list[ItemRow]:
        return [_readable(r) for r in self._browser.failures(eval_id, limit)]

    def run(self, run_id: str) -> RunRecord | None:
        return self._browser.run(run_id)

    def live(self, since: str, threshold: float) -> tuple[list[dict[str, Any]], list[ItemRow]]:
        """Live scores since ``since`` by hour (runs, mean, p10, share under ``threshold``), and the worst."""
        hours: dict[str, list[float]] = {}
        for finished, score in self._browser.live_scores(since):
            hours.setdefault(_hour(finished), []).append(score)
        series = [
            {
                "hour": h,
                "runs": len(s),
                "mean": statistics.fmean(s),
                "p10": _p10(s),
                "under": sum(x < threshold for x in s) / len(s),
            }
            for h, s in hours.items()
        ]
        return series, [_readable(r) for r in self._browser.worst_live(since, 20)]

    def close(self) -> None:
        self._browser.close()
        self.store.close()


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
