"""The scoring side of a Ray run: an actor that builds the scorers once and scores batches.

It runs inside Ray worker processes: rows come in as Arrow batches, each item goes through
:func:`~troth.engines.item.score_item` as in the local engine (target, transcript, scorers,
failures as values), skipping the scorers the store already holds, and what comes back per item
is its :class:`~troth.engines.item.Outcome`. The driver saves the records; nothing is stored
here, so a batch retried after a worker dies writes nothing twice.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import pickle
from dataclasses import dataclass
from typing import Any

from troth.engines.item import Outcome, item_error, score_item
from troth.engines.resume import Done, split_done
from troth.evals.dataset import check_row
from troth.evals.entries import ScorerEntry
from troth.evals.item import Item
from troth.judges.run_settings import RUN_SETTINGS, RunSettings
from troth.ratelimit import Pacer

ROWS = "rows"  # checked items pickled by the driver (a list or DataFrame given to run_evals)
JSONL = "jsonl"  # lines of a .jsonl file, one per row ("text")
TABLE = "table"  # Parquet columns


@dataclass(frozen=True)
class WorkerSpec:
    """What every worker builds from: the scorers, the target and the run's settings."""

    entries: list[ScorerEntry]
    target: Any
    eval_id: str
    concurrency: int
    source: str


class ScoreWorker:
    """A Ray Data actor: ``__call__`` scores one Arrow batch and returns one pickled Outcome per item."""

    def __init__(self, spec_blob: bytes, done: Done, pacer: Pacer | None) -> None:
        self.spec: WorkerSpec = pickle.loads(spec_blob)
        self.done = done
        self.loop = asyncio.new_event_loop()  # one loop for the actor's life: judges keep their clients
        self.pacer = pacer

    def __call__(self, batch: Any) -> dict[str, list[Any]]:
        outcomes = self.loop.run_until_complete(self.score(batch.to_pylist()))
        return {"outcome": [pickle.dumps(o) for o in outcomes]}

    async def score(self, rows: list[dict[str, Any]]) -> list[Outcome]:
        token = RUN_SETTINGS.set(RunSettings(limiter=asyncio.Semaphore(self.spec.concurrency), pacer=self.pacer))
        try:
            items = [it for it in (decode(row, self.spec.source) for row in rows) if it is not None]
            return list(await asyncio.gather(*(self._one(it) for it in items)))
        finally:
            RUN_SETTINGS.reset(token)

    async def _one(self, item: Item | Outcome) -> Outcome:
        if isinstance(item, Outcome):
            return item  # a row that is no item: its error is its outcome
        todo, resumed, changed = split_done(self.spec.entries, item, self.done)
        outcome = await score_item(item, todo, target=self.spec.target, eval_id=self.spec.eval_id)
        outcome.resumed, outcome.rescored = resumed, changed
        outcome.target_output = None  # the driver passes the output on; the target's object may not pickle
        return outcome


def decode(row: dict[str, Any], source: str) -> Item | Outcome | None:
    """A row as a checked item, an Outcome holding why it is not one (step "data"), or None for
    a blank line."""
    if source == JSONL and not str(row["text"]).strip():
        return None
    if source == ROWS:
        item: Item = pickle.loads(row["row"])
        return item
    raw: Any = row
    try:
        if source == JSONL:
            raw = json.loads(row["text"])
        return check_row(raw, f"data row {_row_name(raw, row)}")
    except (ValueError, TypeError) as exc:
        return Outcome(Item(_row_name(raw, row)), errors={"data": item_error(exc, "data")})


def _row_name(raw: Any, row: dict[str, Any]) -> str:
    """The row's id, or a name made from its text when it has none."""
    if isinstance(raw, dict) and raw.get("id") is not None:
        return str(raw["id"])
    text = row.get("text") if isinstance(row.get("text"), str) else repr(sorted(row.items()))
    return "row-" + hashlib.sha256(str(text).encode()).hexdigest()[:12]
