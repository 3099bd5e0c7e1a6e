"""The two steps every engine shares: one item scored (target, transcript read once, scorers,
failures as values) and its outcome saved (a failing store is an error on the outcome)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from troth import create_faithfulness_scorer, create_hallucination_scorer
from troth.engines.item import Outcome, save_outcome, score_item
from troth.evals.item import Item
from troth.scorers.inputs import resolve_context
from troth.store.base import RunRecord
from troth.text import transcripts

TRANSCRIPT = [
    {"role": "user", "content": "When did the bridge open?"},
    {"role": "tool", "tool_call_id": "t1", "content": "The bridge opened in 1932."},
    {"role": "assistant", "content": "The bridge opened in 1932."},
]


def item(**fields: Any) -> Item:
    return Item("a", "q", **fields)


def test_a_transcript_is_read_once_for_every_scorer(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[int] = []
    real = transcripts.Transcript.read.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(transcripts.Transcript, "read", classmethod(lambda cls, m: reads.append(1) or real(cls, m)))
    scorers = [create_faithfulness_scorer("local"), create_hallucination_scorer("local")]
    outcome = asyncio.run(score_item(item(output=TRANSCRIPT), scorers, eval_id="e"))
    assert len(reads) == 1 and outcome.errors == {}
    assert outcome.item.context == ["The bridge opened in 1932."]
    assert outcome.results["faithfulness"].score == 1.0 and outcome.results["hallucination"].score == 0.0
    assert [r.context for r in outcome.records] == [["The bridge opened in 1932."]] * 2


def test_a_scorer_context_still_comes_before_the_transcript_and_is_what_its_record_keeps() -> None:
    scorer = create_faithfulness_scorer("local", context=["The bridge opened in 1950."])
    plain = create_hallucination_scorer("local")
    outcome = asyncio.run(score_item(item(output=TRANSCRIPT), [scorer, plain]))
    assert outcome.results["faithfulness"].score == 0.0
    assert outcome.results["faithfulness"].context == ["The bridge opened in 1950."]
    stored = {r.scorer_id: r.context for r in outcome.records}
    assert stored == {"faithfulness": ["The bridge opened in 1950."], "hallucination": ["The bridge opened in 1932."]}
    assert outcome.item.context == ["The bridge opened in 1932."]  # the item's own: its transcript's
    quiet = asyncio.run(score_item(item(output=TRANSCRIPT), [scorer], keep_records=False))
    assert quiet.records == []


@pytest.mark.parametrize(
    ("candidates", "transcript", "expected"),
    [
        ((None, "given"), None, ["given"]),
        ((["a", "b"], ["static"]), None, ["a", "b"]),
        ((None, None), ["tool"], ["tool"]),
        ((None,), [], None),
        ((), None, None),
    ],
)
def test_resolve_context_takes_the_first_given_then_the_tool_results(
    candidates: tuple[Any, ...], transcript: list[str] | None, expected: list[str] | None
) -> None:
    read = None if transcript is None else transcripts.Transcript([], "answer", "q", transcript)
    assert resolve_context(*candidates, transcript=read) == expected


def test_resolve_context_names_a_segment_of_the_wrong_type() -> None:
    with pytest.raises(TypeError, match=r"context\[1\] must be a string, not int"):
        resolve_context(["ok", 3])


def test_a_failing_target_is_the_item_error_and_no_scorer_runs_but_its_failure_is_recorded() -> None:
    def target(question: str) -> str:
        raise RuntimeError("agent down")

    outcome = asyncio.run(score_item(item(), [create_faithfulness_scorer("local")], target=target))
    assert outcome.errors["target"].message == "agent down" and outcome.errors["target"].step == "target"
    (record,) = outcome.records
    assert outcome.results == {} and (record.error, record.error_step) == ("RuntimeError: agent down", "target")
    nothing_to_run = asyncio.run(score_item(item(), [], target=target))
    assert nothing_to_run.errors == {}  # no scorer left to run: the target is not called


class FullStore:
    def __init__(self) -> None:
        self.saved: list[RunRecord] = []

    def save_run(self, record: RunRecord) -> None:
        if self.saved:
            raise OSError("database or disk is full")
        self.saved.append(record)


def test_saving_keeps_what_it_can_and_names_what_failed() -> None:
    scorers = [create_faithfulness_scorer("local"), create_hallucination_scorer("local")]
    outcome: Outcome = asyncio.run(
        score_item(item(output="It opened in 1932.", context=["It opened in 1932."]), scorers)
    )
    store = FullStore()
    save_outcome(store, outcome)  # type: ignore[arg-type]
    assert len(store.saved) == 1 and outcome.errors["store"].message == "database or disk is full"
    assert outcome.item_result().failed and set(outcome.item_result().results) == {"faithfulness", "hallucination"}


def test_a_transcript_no_scorer_can_read_fails_each_scorer_named_and_stored() -> None:
    bad = [{"role": "assistant", "content": "A.", "toolInvocations": 5}]
    outcome = asyncio.run(score_item(item(output=bad), [create_faithfulness_scorer("local")]))
    error = outcome.errors["faithfulness"]
    assert (error.type, error.message, error.step) == (
        "InvalidTranscriptError",
        "messages[0].toolInvocations must be a list, not int",
        "prepare",
    )
    assert outcome.results == {} and [r.error_step for r in outcome.records] == ["prepare"]
