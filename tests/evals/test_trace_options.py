"""A trace file read as asked: an item per LLM call, only the spans of a name or with an
attribute value, a sample of whole traces, and the attributes holding the input, output and
context of spans in a convention troth does not read (troth.read_traces and troth eval)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.trace_read import write_export
from tests.agents.conftest import ANSWER, TOOL_RESULT
from tests.commands import troth
from tests.evals.test_otlp import QUESTION, otlp_lines, pydantic_ai_spans, tracer
from troth import InvalidTraceError, read_traces
from troth.testing import FakeOpenAIServer


@pytest.fixture
def pydantic_file(tmp_path: Path) -> Path:
    from tests.agents.conftest import scripted_agent_model

    with FakeOpenAIServer(scripted_agent_model()) as server:
        spans = pydantic_ai_spans(server.base_url, [QUESTION, "And when did it open?"])
    path = tmp_path / "traces.json"
    path.write_text("\n".join(otlp_lines(spans)) + "\n", encoding="utf-8")
    return path


def test_level_llm_is_an_item_per_answering_llm_call(pydantic_file: Path) -> None:
    agents = read_traces(pydantic_file)
    calls = read_traces(pydantic_file, level="llm")
    assert len(agents) == 2 and len(calls) == 2  # the calls that only asked for the tool are steps, not answers
    assert all(i.metadata["operation"] == "chat" and i.error is None for i in calls)
    assert all(i.output == ANSWER and i.context == [TOOL_RESULT] for i in calls)
    assert {i.metadata["trace_id"] for i in calls} == {i.metadata["trace_id"] for i in agents}


def test_span_name_and_attribute_filters(pydantic_file: Path) -> None:
    (name,) = {i.metadata["span"] for i in read_traces(pydantic_file)}
    assert len(read_traces(pydantic_file, span_name=name)) == 2
    assert len(read_traces(pydantic_file, attributes={"gen_ai.operation.name": "invoke_agent"})) == 2
    with pytest.raises(InvalidTraceError, match="no span is kept by the span name, attribute and sample"):
        read_traces(pydantic_file, attributes={"gen_ai.operation.name": "nothing"})


def test_a_sample_keeps_whole_traces_the_same_each_time(tmp_path: Path) -> None:
    path = tmp_path / "many.json"
    write_export(path, 1600)  # 400 agent runs, a trace each
    kept = read_traces(path, sample=0.25)
    assert 60 <= len(kept) <= 140 and [i.id for i in kept] == [i.id for i in read_traces(path, sample=0.25)]
    assert len(read_traces(path, sample=1.0)) == 400
    for bad in (0, 1.5, float("nan")):
        with pytest.raises(ValueError, match="sample must be a share of traces in"):
            read_traces(path, sample=bad)


def app_spans(tmp_path: Path) -> Path:
    """Spans of an app's own convention: the question, answer and documents in attributes of its own."""
    provider, exporter = tracer()
    app = provider.get_tracer("app")
    with (
        app.start_as_current_span("answer", attributes={"app.question": QUESTION, "app.answer": ANSWER}),
        app.start_as_current_span("search", attributes={"app.docs": TOOL_RESULT}),
    ):
        pass
    path = tmp_path / "app.json"
    path.write_text("\n".join(otlp_lines(list(exporter.get_finished_spans()))) + "\n", encoding="utf-8")
    return path


def test_the_attributes_holding_input_output_and_context_can_be_named(tmp_path: Path) -> None:
    path = app_spans(tmp_path)
    with pytest.raises(InvalidTraceError, match="no agent or LLM operation") as caught:
        read_traces(path)
    assert "--span-name NAME --input-attr A --output-attr B --context-attr C" in str(caught.value)
    (failed,) = read_traces(path, span_name="answer")
    assert failed.error is not None and "--output-attr NAME (output_attr= in troth.read_traces)" in failed.error.message
    (item,) = read_traces(
        path, span_name="answer", input_attr="app.question", output_attr="app.answer", context_attr="app.docs"
    )
    assert (item.input, item.output, item.context, item.error) == (QUESTION, ANSWER, [TOOL_RESULT], None)
    (missing,) = read_traces(path, span_name="answer", output_attr="app.reply")
    assert missing.error is not None and "has no attribute 'app.reply' (--output-attr)" in missing.error.message


def test_troth_eval_takes_the_trace_options(tmp_path: Path) -> None:
    path = app_spans(tmp_path)
    common = ["eval", str(path), "--no-store", "--out", str(tmp_path / "rows.jsonl"), "--span-name", "answer"]
    named = ["--input-attr", "app.question", "--output-attr", "app.answer", "--context-attr", "app.docs"]
    done = troth(*common, *named, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (row,) = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert row["score"] == 1.0 and row["output"] == ANSWER
    cases: list[tuple[list[str], str]] = [
        (["--level", "tools"], "error: --level must be one of agent, llm, not 'tools'"),
        (["--attr", "nokey"], "error: --attr wants key=value, not 'nokey'"),
        (["--sample", "2"], "error: sample must be a share of traces in (0, 1], not 2.0"),
    ]
    for args, message in cases:
        bad = troth("eval", str(path), "--no-store", *args, cwd=tmp_path)
        assert bad.returncode == 2 and bad.stderr.strip() == message, bad.stderr
