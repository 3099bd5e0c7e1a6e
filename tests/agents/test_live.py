"""Agents of the three frameworks watched live by a Monitor through each framework's own hook
(a tracing processor, a capability, a callback handler), run for real against the loopback
model: every run is a sampled candidate with its question, answer, tool context and run id."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import ANSWER, TOOL_RESULT, scripted_agent_model
from tests.agents.frameworks import WATCHED
from troth import Monitor, create_faithfulness_scorer
from troth.store import SQLiteStore
from troth.testing import FakeOpenAIServer, Reply

QUESTION = "When did the Harbour Bridge open?"


def monitor_at(db: Path) -> Monitor:
    return Monitor([create_faithfulness_scorer("local")], store=db)


@pytest.mark.parametrize("framework", sorted(WATCHED))
def test_each_run_is_recorded_with_its_tool_context_and_run_id(
    framework: str, model_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    monitor = monitor_at(tmp_path / "live.db")
    try:

        async def twice() -> list[Any]:  # one event loop: LangChain's client keeps its connections
            return [await WATCHED[framework](model_server.base_url, monitor, QUESTION) for _ in range(2)]

        answers = asyncio.run(twice())
        assert monitor.flush(timeout=30)
        stats = monitor.stats()
    finally:
        monitor.close()
    assert answers == [ANSWER, ANSWER] and (stats.seen, stats.scored, stats.failed) == (2, 2, 0)
    records = SQLiteStore(tmp_path / "live.db").list_runs()
    assert len(records) == 2 and len({r.trace_id for r in records}) == 2
    for record in records:
        assert record.source == "live" and record.input == QUESTION and record.output == ANSWER
        assert record.context == [TOOL_RESULT] and record.score == 1.0
        assert is_framework_id(framework, record.trace_id)


def is_framework_id(framework: str, trace_id: str | None) -> bool:
    """The framework's own id of the run: the Agents SDK's trace id, else a run id (a UUID), not
    the hex id a Monitor makes up for a call that has none."""
    if framework == "openai-agents":
        return bool(trace_id and trace_id.startswith("trace_"))
    return str(uuid.UUID(str(trace_id))) == trace_id


@pytest.mark.parametrize("framework", sorted(WATCHED))
def test_a_run_that_fails_is_not_recorded_and_keeps_its_error(framework: str, tmp_path: Path) -> None:
    def refuse(request: Any) -> Reply:
        return Reply(status=400, body={"error": {"message": "model refused", "type": "invalid_request_error"}})

    monitor = monitor_at(tmp_path / "live.db")
    try:
        with FakeOpenAIServer(refuse) as server, pytest.raises(Exception, match="refused"):
            asyncio.run(WATCHED[framework](server.base_url, monitor, QUESTION))
        assert monitor.flush(timeout=10)
        assert monitor.stats().seen == 0
    finally:
        monitor.close()


@pytest.mark.parametrize("framework", sorted(WATCHED))
def test_a_run_without_tool_calls_is_scored_with_no_context(framework: str, tmp_path: Path) -> None:
    monitor = monitor_at(tmp_path / "live.db")
    try:
        with FakeOpenAIServer(scripted_agent_model(call_tool=False)) as server:
            assert asyncio.run(WATCHED[framework](server.base_url, monitor, QUESTION)) == ANSWER
        assert monitor.flush(timeout=30)
    finally:
        monitor.close()
    (record,) = SQLiteStore(tmp_path / "live.db").list_runs()
    assert record.context is None and record.score == 0.0 and "no context" in (record.reason or "").lower()
