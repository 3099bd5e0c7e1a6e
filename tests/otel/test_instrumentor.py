"""TrothInstrumentor with the OpenTelemetry SDK's in-memory exporters: every score is a
``gen_ai.evaluation.result`` event parented to the evaluated operation's span; judge calls are
GenAI client spans; ``run_evals`` has a span per item under one for the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SECRET_KEY
from tests.otel.conftest import Telemetry, need_sdk
from troth import Judge, Monitor, create_faithfulness_scorer, run_evals
from troth.testing import FakeOpenAIServer, ScriptedJudge

CONTEXT = ["The bridge opened in 1932. It is 80 m high."]
SCRIPT = ScriptedJudge(verdicts={"1932": ("yes", "opened in 1932"), "1950": ("no", "opened in 1932")})


@pytest.fixture
def server() -> Any:
    with FakeOpenAIServer(SCRIPT) as srv:
        yield srv


def scorer_for(server: FakeOpenAIServer) -> Any:
    judge = Judge("m", base_url=server.base_url, api_key=SECRET_KEY, timeout=2, max_retries=0)
    return create_faithfulness_scorer(judge, strategy="two-step", reason="template")  # two calls an item


def attributes(record: Any) -> dict[str, Any]:
    return dict(record.attributes or {})


def test_run_evals_has_a_span_per_item_under_the_run_and_an_event_per_score(
    otel: Telemetry, server: FakeOpenAIServer
) -> None:
    data = [
        {"id": "good", "output": "The bridge opened in 1932.", "context": CONTEXT},
        {"id": "bad", "output": "The bridge opened in 1950.", "context": CONTEXT},
    ]
    result = run_evals(data, [{"scorer": scorer_for(server), "threshold": 0.5}], store=None, eval_id="e1", quiet=True)
    assert [i.results["faithfulness"].score for i in result.items] == [1.0, 0.0]

    (run,) = otel.spans("evaluate")
    items = {attributes(s)["troth.eval.item.id"]: s for s in otel.spans("evaluate item")}
    assert attributes(run)["troth.eval.id"] == "e1" and set(items) == {"good", "bad"}
    assert all(s.parent.span_id == run.context.span_id for s in items.values())
    calls = otel.spans("chat m")
    assert len(calls) == 4  # claims and verdicts, per item
    for call in calls:
        found = attributes(call)
        assert call.kind.name == "CLIENT" and call.parent.span_id in {s.context.span_id for s in items.values()}
        assert found["gen_ai.operation.name"] == "chat" and found["gen_ai.request.model"] == "m"
        assert found["gen_ai.usage.input_tokens"] > 0 and found["troth.step"] in ("preprocess", "analyze")
    events = {attributes(e)["gen_ai.evaluation.score.value"]: e for e in otel.events()}
    assert set(events) == {1.0, 0.0}
    good, bad = events[1.0], events[0.0]
    assert attributes(good)["gen_ai.evaluation.name"] == "faithfulness"
    assert attributes(good)["gen_ai.evaluation.score.label"] == "pass"
    assert attributes(bad)["gen_ai.evaluation.score.label"] == "fail"
    assert "opened in 1950" in attributes(bad)["gen_ai.evaluation.explanation"]
    assert good.span_id == items["good"].context.span_id and bad.span_id == items["bad"].context.span_id
    assert good.trace_id == run.context.trace_id


def test_an_item_that_fails_gives_an_event_with_its_error_type(otel: Telemetry, server: FakeOpenAIServer) -> None:
    def target(question: str) -> str:
        raise RuntimeError("the agent fell over")

    result = run_evals(
        [{"id": "q", "input": "When?", "context": CONTEXT}], [scorer_for(server)], target=target, store=None, quiet=True
    )
    assert result.items[0].errors["target"].type == "RuntimeError"
    (event,) = otel.events()
    found = attributes(event)
    assert found["error.type"] == "RuntimeError" and "gen_ai.evaluation.score.value" not in found
    assert found["gen_ai.evaluation.explanation"] == "the agent fell over"


@pytest.mark.parametrize("isolate", ["thread", "process"])
def test_live_scores_are_parented_to_the_span_of_the_watched_call(
    otel: Telemetry, server: FakeOpenAIServer, tmp_path: Path, isolate: str
) -> None:
    judge = Judge("m", base_url=server.base_url, api_key=SECRET_KEY, timeout=2, max_retries=0)
    scorer = create_faithfulness_scorer(judge, context=CONTEXT, strategy="two-step", reason="template")
    monitor = Monitor([{"scorer": scorer, "threshold": 0.9}], store=tmp_path / "live.db", isolate=isolate)  # type: ignore[arg-type]
    try:
        with otel.tracer.start_as_current_span("agent run") as app_span:
            assert monitor.record(input="When?", output="The bridge opened in 1950.", metadata={"response_id": "r-7"})
        assert monitor.flush(timeout=30)
    finally:
        monitor.close()
    (event,) = otel.events()
    found = attributes(event)
    assert event.span_id == app_span.get_span_context().span_id
    assert event.trace_id == app_span.get_span_context().trace_id
    assert found["gen_ai.evaluation.score.value"] == 0.0 and found["gen_ai.evaluation.score.label"] == "fail"
    assert found["gen_ai.response.id"] == "r-7"
    calls = otel.spans("chat m")
    if isolate == "thread":  # the judge calls made here are children of the watched call's span
        assert len(calls) == 2 and all(c.parent.span_id == app_span.get_span_context().span_id for c in calls)
    else:  # a scoring process has no exporter of the app's: only the events, emitted here
        assert calls == []


def test_nothing_is_emitted_once_uninstrumented(otel: Telemetry, server: FakeOpenAIServer) -> None:
    from troth.otel import TrothInstrumentor

    TrothInstrumentor().uninstrument()
    run_evals(
        [{"output": "The bridge opened in 1932.", "context": CONTEXT}], [scorer_for(server)], store=None, quiet=True
    )
    assert otel.spans() == [] and otel.events() == []
    TrothInstrumentor().instrument()  # the fixture's teardown uninstruments


def test_import_troth_does_not_import_opentelemetry() -> None:
    need_sdk()
    import subprocess
    import sys

    code = "import sys, troth; print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_scores_of_a_trace_file_go_onto_the_trace_they_judge(otel: Telemetry, tmp_path: Path) -> None:
    from tests.evals.test_otlp import llm_span, otlp_lines

    (judged,) = llm_span("The Harbour Bridge opened in 1932.")  # an app's own chat span, in a file
    path = tmp_path / "traces.json"
    path.write_text("\n".join(otlp_lines([judged])) + "\n", encoding="utf-8")
    result = run_evals(str(path), [create_faithfulness_scorer("local")], store=None, quiet=True)
    assert result.items[0].results["faithfulness"].score == 1.0
    (event,) = otel.events()
    assert (event.trace_id, event.span_id) == (judged.context.trace_id, judged.context.span_id)
    (run,) = otel.spans("evaluate")
    assert run.context.trace_id != judged.context.trace_id  # troth's own run is a trace of its own
