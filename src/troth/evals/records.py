"""The mapping between an evaluation's results and the store's records (one shape for
``run_evals``, the CLI and the pytest plugin)."""

from __future__ import annotations

import uuid
from typing import Any

from troth.evals.eval_result import ItemError
from troth.evals.item import Item
from troth.scorers.base import Scorer
from troth.store.base import RunRecord, now
from troth.values import ScoreResult, Verdicts


def to_record(
    eval_id: str | None,
    item: Item,
    scorer: Scorer,
    result: ScoreResult | None,
    error: ItemError | None,
    started: str,
    *,
    source: str = "eval",
    latency_s: float | None = None,
    trace_id: str | None = None,
    input_hash: str | None = None,
) -> RunRecord:
    fields: dict[str, Any] = {
        "source": source,
        "latency_s": None if latency_s is None else round(latency_s, 4),
        "trace_id": trace_id,
        "scorer_id": scorer.id,
        "eval_id": eval_id,
        "item_id": item.id,
        "scorer_version": scorer.version,
        "prompt_version": scorer.prompt_version,
        "judge_model": scorer.judge.model_id if scorer.judge else None,
        "input": item.input,
        "output": item.output,
        "context": item.context if result is None or result.context is None else result.context,
        "created_at": started,
        "input_hash": input_hash,
    }
    if result is not None:
        return RunRecord.from_result(result, result=_stored_result(result), **fields)
    assert error is not None
    return RunRecord(
        run_id=str(uuid.uuid4()),
        error=f"{error.type}: {error.message}",
        error_step=error.step,
        finished_at=now(),
        **fields,
    )


def _stored_result(result: ScoreResult) -> dict[str, Any]:
    """The result as stored for resuming; its context and a claim scorer's verdicts are left to
    the record's own ``context`` and ``verdicts`` (stored once)."""
    data = result.to_dict()
    data["context"] = None
    if isinstance(result.analyze_step_result, Verdicts):
        data["analyze_step_result"] = None
    return data


def result_from_record(record: RunRecord) -> ScoreResult:
    """Rebuild a ScoreResult saved by an earlier run (for resuming), its context and verdicts
    from the record."""
    data = dict(record.result or {})
    data["context"] = data.get("context") or record.context
    if data.get("analyze_step_result") is None and record.verdicts is not None:
        data["analyze_step_result"] = Verdicts(list(record.verdicts))
    return ScoreResult.from_dict(data)
