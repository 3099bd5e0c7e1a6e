"""Live scores of agents on their traces: an agent run watched through its framework's hook,
inside the app's span, gives a ``gen_ai.evaluation.result`` event parented to that span (to
pydantic-ai's own ``agent run`` span when pydantic-ai is instrumented too)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.agents.conftest import model_server  # noqa: F401  (the fixture)
from tests.agents.frameworks import FRAMEWORKS, WATCHED
from tests.otel.conftest import Telemetry
from troth import Monitor, create_faithfulness_scorer, run_evals
from troth.store import SQLiteStore
from troth.testing import FakeOpenAIServer


@pytest.mark.parametrize("framework", sorted(WATCHED))
def test_the_score_of_a_watched_agent_run_is_an_event_on_the_apps_span(
    framework: str,
    otel: Telemetry,
    model_server: FakeOpenAIServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    monitor = Monitor([{"scorer": create_faithfulness_scorer("local"), "threshold": 0.5}], store=tmp_path / "l.db")
    try:
        with otel.tracer.start_as_current_span("POST /ask") as request:
            asyncio.run(WATCHED[framework](model_server.base_url, monitor, "When did the Harbour Bridge open?"))
        assert monitor.flush(timeout=30)
    finally:
        monitor.close()
    (event,) = otel.events()
    assert (event.trace_id, event.span_id) == (request.get_span_context().trace_id, request.get_span_context().span_id)
    found = dict(event.attributes or {})
    assert found["gen_ai.evaluation.name"] == "faithfulness" and found["gen_ai.evaluation.score.value"] == 1.0
    assert found["gen_ai.evaluation.score.label"] == "pass"
    (call,) = otel.spans("classify verifier-minilm")  # the verifier's one call, under the same span
    assert call.parent.span_id == request.get_span_context().span_id
    (record,) = SQLiteStore(tmp_path / "l.db").list_runs()
    assert record.trace_id == format(request.get_span_context().trace_id, "032x")  # stored under the app's trace


def test_an_instrumented_pydantic_ai_run_parents_its_score_to_the_agent_run_span(
    otel: Telemetry,
    model_server: FakeOpenAIServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.capabilities.instrumentation import Instrumentation
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from tests.agents.conftest import lookup
    from troth.agents.pydantic_ai import troth_hooks

    monitor = Monitor([create_faithfulness_scorer("local")], store=tmp_path / "l.db")
    model = OpenAIChatModel("m", provider=OpenAIProvider(base_url=model_server.base_url, api_key="k"))
    settings = InstrumentationSettings(tracer_provider=otel.tracer_provider)
    agent = Agent(model, tools=[lookup], capabilities=[Instrumentation(settings), troth_hooks(monitor)])
    try:
        asyncio.run(agent.run("When did the Harbour Bridge open?"))
        assert monitor.flush(timeout=30)
    finally:
        monitor.close()
    (event,) = otel.events()
    (agent_span,) = [s for s in otel.spans() if s.name.startswith(("agent run", "invoke_agent"))]
    assert event.span_id == agent_span.context.span_id and event.trace_id == agent_span.context.trace_id


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_an_agent_target_run_under_telemetry_is_stored_under_its_trace_id(
    framework: str,
    otel: Telemetry,
    model_server: FakeOpenAIServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    agent = FRAMEWORKS[framework](model_server.base_url)
    db = tmp_path / "s.db"
    items = [{"id": "q1", "input": "When did the Harbour Bridge open?"}]
    result = run_evals(items, [create_faithfulness_scorer("local")], target=agent, store=str(db), quiet=True)
    (run_span,) = otel.spans("evaluate")
    trace_id = format(run_span.context.trace_id, "032x")
    agent_run = result.items[0].metadata["agent"]
    assert agent_run["run_id"] == trace_id and agent_run["framework_run_id"] not in (None, trace_id)
    (record,) = SQLiteStore(db).list_runs()
    assert record.trace_id == trace_id  # the stored run joins the trace it ran in
