"""The scoring side of a Ray run: an actor that builds the scorers once and scores batches.

It runs inside Ray worker processes: rows come in as Arrow batches, each item goes through the
same :class:`~troth.evals.runner.EvalRun` as in the local runner (target, resume, scorers,
failures as values), and what comes back per item is an :class:`Outcome`: the store records of
the scorers run here, and the item's errors. The driver saves the records; nothing is stored
here, so a batch retried after a worker dies writes nothing twice.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import pickle
from dataclasses import dataclass, field
from typing import Any

from troth.evals.dataset import check_row
from troth.evals.progress import Progress
from troth.evals.results import ItemError, ItemResult, ScorerEntry
from troth.evals.runner import EvalRun, item_error
from troth.judges.calls import CALL_SETTINGS, CallSettings
from troth.ratelimit import Pacer
from troth.store.base import RunRecord

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


@dataclass
class Outcome:
    """One item as scored on a worker."""

    item: dict[str, Any]
    records: list[RunRecord] = field(default_factory=list)
    errors: dict[str, ItemError] = field(default_factory=dict)
    resumed: list[str] = field(default_factory=list)  # scorer ids the store already held


class Recorder:
    """A store that keeps the records saved into it (for the driver to save)."""

    def __init__(self) -> None:
        self.records: list[RunRecord] = []

    def save_run(self, record: RunRecord) -> None:
        self.records.append(record)

    def completed(self, eval_id: str) -> dict[tuple[str, str], RunRecord]:
        return {}

    def flush(self) -> None:
        return None


class WorkerRun(EvalRun):
    """The local run's item handling, with what is already done given as keys by the driver."""

    def __init__(self, spec: WorkerSpec, done: frozenset[tuple[str, str]], recorder: Recorder) -> None:
        progress = Progress(0, quiet=True)
        super().__init__(spec.entries, spec.target, None, recorder, spec.eval_id, spec.concurrency, progress)  # type: ignore[arg-type]
        self.done_keys = done

    def pending(self, item: dict[str, Any], res: ItemResult) -> list[ScorerEntry]:
        return [e for e in self.entries if (item["id"], e.scorer.id) not in self.done_keys]


class ScoreWorker:
    """A Ray Data actor: ``__call__`` scores one Arrow batch and returns one pickled Outcome per item."""

    def __init__(self, spec_blob: bytes, done: frozenset[tuple[str, str]], pacer: Pacer | None) -> None:
        self.spec: WorkerSpec = pickle.loads(spec_blob)
        self.done = done
        self.loop = asyncio.new_event_loop()  # one loop for the actor's life: judges keep their clients
        self.pacer = pacer

    def __call__(self, batch: Any) -> dict[str, list[Any]]:
        outcomes = self.loop.run_until_complete(self.score(batch.to_pylist()))
        return {"outcome": [pickle.dumps(o) for o in outcomes]}

    async def score(self, rows: list[dict[str, Any]]) -> list[Outcome]:
        recorder = Recorder()
        settings = CallSettings(limiter=asyncio.Semaphore(self.spec.concurrency), pacer=self.pacer)
        token = CALL_SETTINGS.set(settings)
        try:
            run = WorkerRun(self.spec, self.done, recorder)
            items = [it for it in (decode(row, self.spec.source) for row in rows) if it is not None]
            results = await asyncio.gather(*(run.item(it) for it in items if not isinstance(it, Outcome)))
        finally:
            CALL_SETTINGS.reset(token)
        by_item: dict[str, list[RunRecord]] = {}
        for record in recorder.records:
            by_item.setdefault(str(record.item_id), []).append(record)
        out = [it for it in items if isinstance(it, Outcome)]
        for res in results:
            item = {"id": res.id, "input": res.input, "output": res.output, "context": res.context,
                    "ground_truth": res.ground_truth, "metadata": res.metadata}  # fmt: skip
            resumed = [e.scorer.id for e in self.spec.entries if (res.id, e.scorer.id) in self.done]
            out.append(Outcome(item, by_item.get(res.id, []), dict(res.errors), resumed))
        return out


def decode(row: dict[str, Any], source: str) -> dict[str, Any] | Outcome | None:
    """A row as a checked item, an Outcome holding why it is not one (step "data"), or None for
    a blank line."""
    if source == JSONL and not str(row["text"]).strip():
        return None
    if source == ROWS:
        item: dict[str, Any] = pickle.loads(row["row"])
        return item
    raw: Any = row
    try:
        if source == JSONL:
            raw = json.loads(row["text"])
        return check_row(raw, f"data row {_row_name(raw, row)}")
    except (ValueError, TypeError) as exc:
        bad: dict[str, Any] = {"id": _row_name(raw, row), "input": None, "output": None, "context": None,
               "ground_truth": None, "metadata": {}}  # fmt: skip
        return Outcome(bad, errors={"data": item_error(exc, "data")})


def _row_name(raw: Any, row: dict[str, Any]) -> str:
    """The row's id, or a name made from its text when it has none."""
    if isinstance(raw, dict) and raw.get("id") is not None:
        return str(raw["id"])
    text = row.get("text") if isinstance(row.get("text"), str) else repr(sorted(row.items()))
    return "row-" + hashlib.sha256(str(text).encode()).hexdigest()[:12]
