"""Agents of the OpenAI Agents SDK, pydantic-ai and LangGraph as run_evals targets, run for real
against the loopback model: the answer is scored against what the agent's tool returned; the
item keeps the tool calls, the usage and the run id; failures stay on their item."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import ANSWER, TOOL_ARGUMENTS, TOOL_RESULT, scripted_agent_model
from tests.agents.frameworks import FRAMEWORKS
from troth import create_faithfulness_scorer, run_evals
from troth.store import SQLiteStore
from troth.testing import FakeOpenAIServer, Reply

QUESTION = "When did the Harbour Bridge open?"


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_the_answer_is_scored_against_what_the_tools_returned(
    framework: str, model_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    agent = FRAMEWORKS[framework](model_server.base_url)
    db = tmp_path / "s.db"
    result = run_evals(
        [{"id": "q1", "input": QUESTION}],
        [create_faithfulness_scorer("local")],
        target=agent,
        store=str(db),
        eval_id="agents",
        quiet=True,
    )
    (item,) = result.items
    assert item.errors == {} and item.output == ANSWER and item.context == [TOOL_RESULT]
    assert item.results["faithfulness"].score == 1.0
    run = item.metadata["agent"]
    assert run["framework"] == framework and run["run_id"]
    assert [(c["name"], c["output"]) for c in run["tool_calls"]] == [("lookup", TOOL_RESULT)]
    assert [c["arguments"] for c in run["tool_calls"]] == [TOOL_ARGUMENTS]  # a dict from every framework
    assert run["usage"] == {"input_tokens": 30, "output_tokens": 12, "requests": 2}
    (record,) = SQLiteStore(db).list_runs(eval_id="agents")
    assert record.trace_id == run["run_id"] and record.context == [TOOL_RESULT]


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_an_agent_that_calls_no_tool_has_no_context(framework: str, tmp_path: Path) -> None:
    with FakeOpenAIServer(scripted_agent_model(call_tool=False)) as server:
        agent = FRAMEWORKS[framework](server.base_url)
        result = run_evals(
            [{"id": "q1", "input": QUESTION}],
            [create_faithfulness_scorer("local")],
            target=agent,
            store=None,
            quiet=True,
        )
    (item,) = result.items
    assert item.errors == {} and item.context is None and item.metadata["agent"]["tool_calls"] == []
    scored = item.results["faithfulness"]
    assert scored.score == 0.0 and "no context" in (scored.reason or "").lower()  # the documented result


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_an_agent_whose_run_fails_fails_its_item_only(framework: str, tmp_path: Path) -> None:
    def down_for_one(request: Any) -> Reply:
        if "broken" in str(request.body.get("messages")):
            return Reply(status=400, body={"error": {"message": "model refused", "type": "invalid_request_error"}})
        return scripted_agent_model()(request)

    with FakeOpenAIServer(down_for_one) as server:
        agent = FRAMEWORKS[framework](server.base_url)
        data = [{"id": "ok", "input": QUESTION}, {"id": "bad", "input": "broken question"}]
        result = run_evals(data, [create_faithfulness_scorer("local")], target=agent, store=None, quiet=True)
    by_id = {it.id: it for it in result.items}
    assert by_id["ok"].results["faithfulness"].score == 1.0
    error = by_id["bad"].errors["target"]
    assert error.step == "target" and error.type and "refused" in error.message


def test_a_tool_that_raises_leaves_the_item_scored_or_failed_typed(model_server: FakeOpenAIServer) -> None:
    def broken(topic: str) -> str:
        """Look a topic up in the city's records."""
        raise RuntimeError("records offline")

    broken.__name__ = "lookup"
    items = []
    for make in FRAMEWORKS.values():
        agent = make(model_server.base_url, broken)
        result = run_evals(
            [{"id": "q", "input": QUESTION}],
            [create_faithfulness_scorer("local")],
            target=agent,
            store=None,
            quiet=True,
        )
        items.append(result.items[0])
    for item in items:  # the framework decides: the error goes back to the model, or the run fails
        assert ("faithfulness" in item.results) != ("target" in item.errors), item
        if "target" in item.errors:
            assert "records offline" in item.errors["target"].message


def test_an_object_nobody_can_run_is_refused_naming_what_is_accepted() -> None:
    accepted = r"target must be a function .* an OpenAI Agents SDK Agent, a pydantic-ai Agent"
    with pytest.raises(TypeError, match=accepted):
        run_evals(
            [{"id": "q", "input": QUESTION}],
            [create_faithfulness_scorer("local")],
            target=object(),
            store=None,
            quiet=True,
        )


def test_no_framework_is_imported_with_troth() -> None:
    import subprocess
    import sys

    frameworks = ("agents", "pydantic_ai", "langgraph", "langchain_core")
    code = f"import sys, troth; print([m for m in {frameworks!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_openai_agents_without_tracing_get_troth_ids_and_one_warning(
    model_server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from troth.agents import openai_agents

    monkeypatch.setattr(openai_agents, "_warned", False)
    agent = FRAMEWORKS["openai-agents"](model_server.base_url)  # the SDK's tracing disabled, as the example has it
    items = [{"id": "q1", "input": QUESTION}, {"id": "q2", "input": QUESTION}]
    with caplog.at_level(logging.WARNING, logger="troth"):
        result = run_evals(items, [create_faithfulness_scorer("local")], target=agent, store=None, quiet=True)
    ids = [item.metadata["agent"]["run_id"] for item in result.items]
    assert all(i.startswith("troth-") for i in ids) and len(set(ids)) == 2  # never the SDK's "no-op"
    said = [r.getMessage() for r in caplog.records if r.name == "troth.agents"]
    assert len(said) == 1 and "set_trace_processors([TrothProcessor(monitor)])" in said[0]


def test_openai_agents_with_tracing_keep_the_sdk_trace_id(model_server: FakeOpenAIServer) -> None:
    from agents import set_trace_processors, set_tracing_disabled

    agent = FRAMEWORKS["openai-agents"](model_server.base_url)
    set_tracing_disabled(False)
    set_trace_processors([])  # traces stay here: no exporter
    try:
        result = run_evals([{"id": "q1", "input": QUESTION}], [create_faithfulness_scorer("local")], target=agent)
    finally:
        set_tracing_disabled(True)
    assert result.items[0].metadata["agent"]["run_id"].startswith("trace_")
