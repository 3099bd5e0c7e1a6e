"""run_evals against the loopback server: failures as values, store, cache replay, resume."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from troth import Judge, arun_evals, create_faithfulness_scorer, create_hallucination_scorer, run_evals
from troth.store import SQLiteStore
from troth.testing import FakeOpenAIServer, Reply, ScriptedJudge
from troth.testing.server import Request

CONTEXT = ["The museum opens at 10:00, closes at 18:00, and entry costs 12 euros."]


FIRST_STEP = ("ExtractedClaims", "ClaimsWithVerdicts")  # the first request of two steps, or the one of a single pass


class Responder(ScriptedJudge):
    """Scripted judge that answers garbage for outputs containing GARBAGE."""

    def __call__(self, request: Request) -> Reply:
        if "GARBAGE" in request.prompt and request.schema_name in FIRST_STEP:
            return Reply(content="this is not json")
        return super().__call__(request)


def make_data(n: int) -> list[dict[str, Any]]:
    rows = []
    for i in range(n):
        good = i % 2 == 0
        rows.append(
            {
                "id": f"item-{i}",
                "input": f"question {i}",
                "context": CONTEXT,
                "output": f"Item {i}: the museum opens at 10:00." + ("" if good else " Entry is free."),
            }
        )
    return rows


@pytest.fixture
def scripted(server: FakeOpenAIServer) -> FakeOpenAIServer:
    server.responder = Responder(verdicts={"10:00": ("yes", "opens at 10:00"), "free": ("no", "12 euros")})
    return server


def test_fifty_items_with_failures(scripted: FakeOpenAIServer, judge: Judge, tmp_path: Path) -> None:
    scripted.delay = 0.02
    data = [{"id": r["id"], "input": r["input"], "context": r["context"]} for r in make_data(50)]
    outputs = {r["id"]: r["output"] for r in make_data(50)}
    by_input = {r["input"]: r["id"] for r in data}

    async def target(question: str) -> str:
        item_id = by_input[question]
        if item_id in ("item-7", "item-21"):
            raise RuntimeError(f"agent crashed on {item_id}")
        if item_id in ("item-3", "item-30"):
            return "GARBAGE answer"
        await asyncio.sleep(0.001)
        return outputs[item_id]

    completed: list[str] = []
    scorer = create_faithfulness_scorer(judge, reason="template")
    store = tmp_path / "t.db"
    result = run_evals(
        data,
        [{"scorer": scorer, "threshold": 1.0}],
        target=target,
        concurrency=8,
        store=store,
        eval_id="e1",
        quiet=True,
        on_item_complete=lambda item, out, res: completed.append(item.id),
    )

    s = result.summary
    assert (s.total_items, s.scored_items, s.failed_items) == (50, 46, 4)
    assert sorted(completed) == sorted(r["id"] for r in data)
    by_id = {it.id: it for it in result.items}
    assert by_id["item-7"].errors["target"].message == "agent crashed on item-7"
    assert by_id["item-3"].errors["faithfulness"].step == "preprocess"
    assert by_id["item-3"].errors["faithfulness"].type == "JudgeOutputError"
    # means exclude failed items: 23 good (1.0) + 23 half-supported (0.5)
    ok = [it for it in result.items if not it.failed]
    assert len(ok) == 46
    assert result.scores["faithfulness"] == pytest.approx(sum(it.results["faithfulness"].score for it in ok) / 46)
    assert s.scorers["faithfulness"].passed == sum(1 for it in ok if it.results["faithfulness"].score >= 1.0)
    assert scripted.max_in_flight <= 8
    assert scripted.max_in_flight > 1
    # everything was stored, failures with their step
    db = SQLiteStore(store)
    runs = db.list_runs(eval_id="e1", limit=100)
    assert len(runs) == 50  # 46 scored + 2 judge failures + 2 target failures
    failed = {r.item_id: r for r in runs if r.error}
    assert {i for i, r in failed.items() if r.error_step == "preprocess"} == {"item-3", "item-30"}
    targets = {i: r.error for i, r in failed.items() if r.error_step == "target"}
    assert targets == {i: f"RuntimeError: agent crashed on {i}" for i in ("item-7", "item-21")}
    one = db.get_run(by_id["item-0"].results["faithfulness"].run_id)
    assert one is not None and one.score == 1.0 and one.claims == ["Item 0: the museum opens at 10:00."]
    assert one.verdicts is not None and one.verdicts[0].evidence is not None and one.verdicts[0].evidence.verified
    assert one.prompts["analyze"] and one.judge_model == "fake-judge" and one.prompt_version
    assert "usage" in one.result and one.context == CONTEXT


def test_cache_replay_makes_no_requests(scripted: FakeOpenAIServer, judge: Judge, tmp_path: Path) -> None:
    data = make_data(10)
    scorers = [create_faithfulness_scorer(judge), create_hallucination_scorer(judge)]
    first = run_evals(data, scorers, store=tmp_path / "c.db", quiet=True)
    sent = len(scripted.requests)
    assert sent > 0 and first.summary.judge_calls > 0
    second = run_evals(data, scorers, store=tmp_path / "c.db", quiet=True)  # new eval id, same calls
    assert len(scripted.requests) == sent
    assert second.summary.judge_calls == 0 and second.summary.cached_calls > 0
    assert [it.results["faithfulness"].score for it in second.items] == [
        it.results["faithfulness"].score for it in first.items
    ]
    assert [it.results["hallucination"].reason for it in second.items] == [
        it.results["hallucination"].reason for it in first.items
    ]
    run_evals(data, scorers, store=tmp_path / "c.db", cache=False, quiet=True)
    assert len(scripted.requests) > sent


def test_resume_after_interrupted_run(scripted: FakeOpenAIServer, judge: Judge, tmp_path: Path) -> None:
    data = make_data(30)
    scorer = create_faithfulness_scorer(judge, reason="template")
    db = tmp_path / "r.db"

    async def interrupted() -> None:
        done = asyncio.Event()
        count = 0

        def on_done(item: Any, out: Any, res: Any) -> None:
            nonlocal count
            count += 1
            if count == 10:
                done.set()

        task = asyncio.create_task(
            arun_evals(
                data,
                [scorer],
                concurrency=2,
                store=db,
                eval_id="resume-me",
                on_item_complete=on_done,
                quiet=True,
                cache=False,
            )
        )
        await done.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(interrupted())
    saved = len(SQLiteStore(db).list_runs(eval_id="resume-me", limit=100))
    assert 10 <= saved < 30
    scripted.reset()
    fresh = Judge("fake-judge", base_url=scripted.base_url, api_key="k")  # as a new process would
    scorer = create_faithfulness_scorer(fresh, reason="template")
    result = run_evals(data, [scorer], store=db, eval_id="resume-me", cache=False, quiet=True)
    assert result.summary.total_items == 30 and result.summary.failed_items == 0
    assert result.summary.resumed_items == saved
    extraction_calls = sum(1 for r in scripted.requests if r.schema_name in FIRST_STEP)
    assert extraction_calls == 30 - saved
    assert len(SQLiteStore(db).list_runs(eval_id="resume-me", limit=100)) == 30
    assert result.scores["faithfulness"] == pytest.approx(0.75)


def test_store_none_keeps_nothing(
    scripted: FakeOpenAIServer, judge: Judge, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_evals(make_data(2), [create_faithfulness_scorer(judge)], store=None, quiet=True)
    assert result.summary.scored_items == 2
    assert not (tmp_path / ".troth").exists()


def test_default_store_location_and_env(
    scripted: FakeOpenAIServer, judge: Judge, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TROTH_STORE", raising=False)
    run_evals(make_data(1), [create_faithfulness_scorer(judge)], quiet=True)
    assert (tmp_path / ".troth" / "troth.db").is_file()
    monkeypatch.setenv("TROTH_STORE", str(tmp_path / "elsewhere.db"))
    run_evals(make_data(1), [create_faithfulness_scorer(judge)], quiet=True)
    assert (tmp_path / "elsewhere.db").is_file()


def test_data_from_files_and_bad_rows(scripted: FakeOpenAIServer, judge: Judge, tmp_path: Path) -> None:
    jsonl = tmp_path / "d.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in make_data(3)) + "\n")
    scorer = create_faithfulness_scorer(judge)
    assert run_evals(jsonl, [scorer], store=None, quiet=True).summary.scored_items == 3
    csv_file = tmp_path / "d.csv"
    csv_file.write_text('id,input,output,context\na,q,The museum opens at 10:00.,"[""Opens at 10:00.""]"\n')
    res = run_evals(csv_file, [scorer], store=None, quiet=True)
    assert res.items[0].context == ["Opens at 10:00."]

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"input": "a", "output": "b"}\n{"input": \n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2: not valid JSON"):
        run_evals(bad, [scorer], store=None)
    with pytest.raises(ValueError, match="data is empty"):
        run_evals([], [scorer], store=None)
    with pytest.raises(ValueError, match="no scorers"):
        run_evals(make_data(1), [], store=None)
    with pytest.raises(ValueError, match="data row 2 has neither 'input' nor 'output'"):
        run_evals([{"input": "q", "output": "a"}, {"id": 3}], [scorer], store=None)
    with pytest.raises(ValueError, match="cannot read"):
        run_evals(tmp_path / "missing.jsonl", [scorer], store=None)
    with pytest.raises(ValueError, match="no 'output' and no target"):
        run_evals([{"input": "q"}], [scorer], store=None)


def test_target_objects_and_transcripts(scripted: FakeOpenAIServer, judge: Judge) -> None:
    class Agent:
        async def agenerate(self, question: str) -> Any:
            return SimpleNamespace(
                messages=[
                    {"role": "user", "content": question},
                    {"role": "tool", "tool_call_id": "t", "content": "The museum opens at 10:00."},
                    {"role": "assistant", "content": "It opens at 10:00."},
                ]
            )

    result = run_evals(
        [{"input": "When?"}], [create_faithfulness_scorer(judge)], target=Agent(), store=None, quiet=True
    )
    item = result.items[0]
    assert item.context == ["The museum opens at 10:00."]
    assert item.results["faithfulness"].score == 1.0


def test_failed_items_are_said_in_one_line_per_step_with_the_first_error(caplog: pytest.LogCaptureFixture) -> None:
    items = [{"id": "a", "input": "q"}, {"id": "b", "input": "q2"}, {"id": "c", "output": "x.", "context": ["x."]}]
    with caplog.at_level(logging.WARNING, logger="troth"):
        result = run_evals(items, [create_faithfulness_scorer("local")], target=lambda q: None, store=None, quiet=True)
    expected = (
        "troth: 2 of 3 item(s) failed: target 2 (first: item 'a': TypeError: target returned None; expected its "
        "answer: a string, a list of chat messages, or an object with .text or .messages (does it return what it "
        "computes?))"
    )
    assert result.failure_line() == expected
    assert [r.getMessage() for r in caplog.records if r.name == "troth"] == [expected]


def test_nothing_is_said_when_nothing_failed(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="troth"):
        result = run_evals([{"output": "x.", "context": ["x."]}], [create_faithfulness_scorer("local")], store=None)
    assert result.failure_line() is None and caplog.records == []


def test_a_target_answering_the_wrong_type_is_told_what_it_returned_and_what_was_expected() -> None:
    result = run_evals(
        [{"id": "a", "input": "q"}], [create_faithfulness_scorer("local")], target=lambda q: 42, store=None
    )
    (item,) = result.items
    assert item.errors["target"].message == (
        "target returned int 42; expected its answer: a string, a list of chat messages, or an object with .text or "
        ".messages"
    )
