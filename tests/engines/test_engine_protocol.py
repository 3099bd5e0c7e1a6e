"""A new engine is one class behind the Engine protocol: it reads the data its way and scores
each item with the two shared steps; run_evals does the rest (store, resume, summary)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from troth import EvalJob, ItemResult, create_faithfulness_scorer, run_evals
from troth.engines.item import save_outcome, score_item
from troth.evals.dataset import Item, check_target, load_items
from troth.store import SQLiteStore


class OneByOne:
    """Items scored one after another, newest id first (an engine in a dozen lines)."""

    def source(self, data: Any, target: Any) -> list[Item]:
        items = load_items(data)
        check_target(items, target)
        return sorted(items, key=lambda it: it.id, reverse=True)

    async def run(self, job: EvalJob) -> list[ItemResult]:
        results = []
        for item in job.data:
            outcome = await score_item(item, [e.scorer for e in job.entries], eval_id=job.eval_id)
            if job.store is not None:
                save_outcome(job.store, outcome)
            results.append(outcome.item_result())
        return results


def test_a_new_engine_runs_behind_run_evals(tmp_path: Path) -> None:
    data = [
        {"id": str(i), "output": "The bridge opened in 1932.", "context": [ctx]}
        for i, ctx in enumerate(["The bridge opened in 1932.", "The bridge opened in 1950."])
    ]
    db = tmp_path / "e.db"
    result = run_evals(
        data, [create_faithfulness_scorer("local")], engine=OneByOne(), store=str(db), eval_id="x", quiet=True
    )
    assert [(it.id, it.results["faithfulness"].score) for it in result.items] == [("1", 0.0), ("0", 1.0)]
    assert result.summary.scored_items == 2 and result.scores["faithfulness"] == 0.5
    assert sorted(r.item_id for r in SQLiteStore(db).list_runs(eval_id="x")) == ["0", "1"]
