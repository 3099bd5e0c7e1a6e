"""One item scored, and its outcome saved: the two steps every engine and live scoring share.

:func:`score_item` runs the target when the item has no output, reads a transcript output once,
then runs the given scorers; nothing it does raises: failures come back on the :class:`Outcome`.
:func:`save_outcome` writes an outcome's records to a store; a store that fails is one more
error on the outcome. A Ray worker scores and the driver saves; the local engine and live
scoring do both in one process.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from troth import telemetry
from troth.agents.run import AgentRun
from troth.engines.resume import input_hashes
from troth.engines.targets import call_target, normalise_output
from troth.errors import InvalidTranscriptError, ScorerRunError, TrothError
from troth.evals.entries import ScorerEntry
from troth.evals.eval_result import ItemError, ItemResult, OnItemComplete
from troth.evals.item import Item
from troth.evals.records import to_record
from troth.redaction import redact
from troth.scorers.base import Scorer
from troth.scorers.inputs import resolve_context
from troth.store.base import RunRecord, Store, now
from troth.telemetry import Evaluation, SpanRef
from troth.text.transcripts import Transcript, is_messages
from troth.values import ScoreResult


@dataclass
class Outcome:
    """One item as scored: the item (output and context as scored), each scorer's result, the
    records to store, the errors by scorer id (or ``target``, ``store``, ``item``, ``data``), the
    ids of the scorers skipped as done already, and what the target returned."""

    item: Item
    results: dict[str, ScoreResult] = field(default_factory=dict)
    records: list[RunRecord] = field(default_factory=list)
    errors: dict[str, ItemError] = field(default_factory=dict)
    resumed: list[str] = field(default_factory=list)
    rescored: bool = False  # a stored result was for different content: scored again
    hashes: dict[str, str] = field(default_factory=dict)  # scorer id -> input hash of the item as given
    target_output: Any = None

    def item_result(self, resumed: Mapping[str, ScoreResult] | None = None) -> ItemResult:
        """The item as ``run_evals`` returns it, with the results of earlier runs added."""
        it = self.item
        return ItemResult(
            it.id,
            it.input,
            it.output,
            it.context,
            it.ground_truth,
            dict(it.metadata),
            results={**(resumed or {}), **self.results},
            errors=dict(self.errors),
            resumed=bool(self.resumed),
            rescored=self.rescored,
        )


async def score_item(
    item: Item,
    scorers: Sequence[Scorer],
    *,
    target: Any = None,
    eval_id: str | None = None,
    keep_records: bool = True,
    source: str = "eval",
    trace_id: str | None = None,
) -> Outcome:
    """Score ``item`` with ``scorers``; with no scorers to run, the target is not called.
    Never raises."""
    outcome = Outcome(item, hashes=input_hashes(item, scorers))
    trace_id = trace_id or item.metadata.get("trace_id")
    if item.error is not None:  # a row its reader could not make: failed as data, the run goes on
        outcome.errors["data"] = ItemError(item.error.type, redact(item.error.message), "data")
        _failed_records(outcome, scorers, outcome.errors["data"], eval_id, keep_records, source, trace_id)
        return outcome
    try:
        if scorers and item.output is None and not await _run_target(target, outcome):
            _failed_records(outcome, scorers, outcome.errors["target"], eval_id, keep_records, source, trace_id)
            return outcome
        transcript = _transcript(outcome)
        outcome.item = outcome.item.but(context=resolve_context(item.context, transcript=transcript))
        if isinstance(outcome.target_output, AgentRun):
            trace_id = outcome.target_output.run_id or trace_id
        scored = _Scoring(outcome, transcript, eval_id, keep_records, source, trace_id)
        await asyncio.gather(*(scored.run(scorer, item.context) for scorer in scorers))
    except Exception as exc:  # a failure of this item's own handling: kept on the item
        outcome.errors["item"] = item_error(exc)
    return outcome


def _failed_records(
    outcome: Outcome,
    scorers: Sequence[Scorer],
    error: ItemError,
    eval_id: str | None,
    keep_records: bool,
    source: str,
    trace_id: str | None,
) -> None:
    """A failed record for each scorer of an item that failed before any scorer ran, so that the
    store counts it like every other failure (and a resume tries it again)."""
    if keep_records:
        started = now()
        outcome.records += [
            to_record(
                eval_id,
                outcome.item,
                scorer,
                None,
                error,
                started,
                source=source,
                trace_id=trace_id,
                input_hash=outcome.hashes.get(scorer.id),
            )
            for scorer in scorers
        ]


def _transcript(outcome: Outcome) -> Transcript | None:
    """The item's output read once as a transcript: a chat transcript, or an agent's run (its
    answer and what its tools returned); None for a plain answer, or one no scorer can read
    (each scorer then fails on it, named, and is stored as failed)."""
    run, output = outcome.target_output, outcome.item.output
    if isinstance(run, AgentRun):
        return Transcript([], run.output, str(outcome.item.input or ""), run.context)
    try:
        return Transcript.read(output) if is_messages(output) else None
    except InvalidTranscriptError:
        return None


async def _run_target(target: Any, outcome: Outcome) -> bool:
    """The target's answer put on the outcome's item (an agent's run kept in its metadata);
    False (and the error kept) when it failed."""
    try:
        outcome.target_output = await call_target(target, outcome.item.input)
        outcome.item = outcome.item.but(output=normalise_output(outcome.target_output))
        run = outcome.target_output
        if isinstance(run, AgentRun):
            outcome.item = outcome.item.but(metadata={**outcome.item.metadata, "agent": run.summary()})
    except Exception as exc:  # user code: the item fails, the run goes on
        outcome.errors["target"] = item_error(exc, "target")
        return False
    return True


@dataclass(frozen=True)
class _Scoring:
    """One scorer at a time on an outcome's item: its result or error, and its record."""

    outcome: Outcome
    transcript: Transcript | None
    eval_id: str | None
    keep_records: bool
    source: str
    trace_id: str | None

    async def run(self, scorer: Scorer, context: Any) -> None:
        item = self.outcome.item
        started, clock = now(), time.perf_counter()
        result, error = None, None
        try:
            output = self.transcript or item.output
            result = await scorer.arun(
                item.input,
                output,
                context=context,
                ground_truth=item.ground_truth,
                metadata=dict(item.metadata),
            )
            self.outcome.results[scorer.id] = result
        except Exception as exc:  # user steps and context functions may raise anything
            error = self.outcome.errors[scorer.id] = item_error(exc)
        if not self.keep_records:
            return
        try:
            latency = time.perf_counter() - clock
            record = to_record(
                self.eval_id,
                item,
                scorer,
                result,
                error,
                started,
                source=self.source,
                latency_s=latency,
                trace_id=self.trace_id,
                input_hash=self.outcome.hashes.get(scorer.id),
            )
            self.outcome.records.append(record)
        except Exception as exc:
            self.outcome.errors["store"] = item_error(exc, "store")


def judged_span(item: Item) -> SpanRef | None:
    """The span an item was read from (a trace file's: hex ``trace_id`` and ``span_id`` in its
    metadata), so that its scores go onto the trace they judge; None for any other item."""
    trace_id, span_id = item.metadata.get("trace_id"), item.metadata.get("span_id")
    if not (isinstance(trace_id, str) and isinstance(span_id, str) and len(trace_id) == 32 and len(span_id) == 16):
        return None
    try:
        found = SpanRef(int(trace_id, 16), int(span_id, 16))
    except ValueError:
        return None
    return found if found.trace_id and found.span_id else None


def evaluations_of(outcome: Outcome, entries: Sequence[ScorerEntry], scored: Sequence[Scorer]) -> list[Evaluation]:
    """The evaluation results of the scorers run on an outcome's item (for telemetry); none
    without an exporter."""
    if telemetry.active() is None:
        return []
    thresholds = {e.scorer.id: e.threshold for e in entries}
    ids = [s.id for s in scored]
    return telemetry.evaluations(outcome.results, outcome.errors, ids, thresholds, dict(outcome.item.metadata))


def save_outcome(store: Store, outcome: Outcome) -> None:
    """Save the outcome's records; a store that fails (full, locked, read-only) is kept as the
    outcome's ``store`` error, the rest still saved."""
    for record in outcome.records:
        try:
            store.save_run(record)
        except Exception as exc:
            outcome.errors["store"] = item_error(exc, "store")


async def item_complete(callback: OnItemComplete | None, res: ItemResult, outcome: Outcome) -> None:
    """The user's ``on_item_complete``; what it raises is kept on the item."""
    if callback is None:
        return
    try:
        out = callback(res, outcome.target_output, dict(res.results))
        if inspect.isawaitable(out):
            await out
    except Exception as exc:
        res.errors["on_item_complete"] = item_error(exc, "on_item_complete")


def item_error(exc: BaseException, step: str | None = None) -> ItemError:
    """The error an item keeps: the cause of a scorer step's failure, with the step it failed in."""
    if isinstance(exc, ScorerRunError):
        cause = exc.__cause__ or exc
        return ItemError(type(cause).__name__, redact(str(cause)), exc.failed_step)
    found = exc.step if isinstance(exc, TrothError) else None
    return ItemError(type(exc).__name__, redact(str(exc)), step or found)
