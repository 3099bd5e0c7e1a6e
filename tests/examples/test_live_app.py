"""The example web app end to end: uvicorn on loopback, its agent model and the judge both the
loopback server, requests over HTTP, then what the monitor stored."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import SECRET_KEY
from troth import Judge
from troth.testing import FakeOpenAIServer, Reply, ScriptedJudge
from troth.testing.server import Request

pytest.importorskip("uvicorn")
pytest.importorskip("starlette")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from examples.live_app import create_app

from bench.live_latency import serve

ANSWERS = {"bridge": "The Harbour Bridge opened in 1932.", "museum": "The museum opens at 09:00."}


def responder(request: Request) -> Reply:
    """The agent's model answers by keyword; every other request is the judge's."""
    if request.body.get("model") == "agent-model":
        question = request.body["messages"][-1]["content"].lower()
        return Reply(content=next(a for k, a in ANSWERS.items() if k in question))
    return ScriptedJudge(verdicts={"1932": ("yes", "opened in 1932"), "09:00": ("no", "opens at 10:00")})(request)


@pytest.fixture
def running_app(tmp_path: Path) -> Iterator[tuple[str, Any, Path]]:
    db = tmp_path / "live.db"
    with FakeOpenAIServer(responder) as model_server:
        judge = Judge("judge", base_url=model_server.base_url, api_key=SECRET_KEY, timeout=5)
        app = create_app(agent_base_url=model_server.base_url, agent_model="agent-model", judge=judge, store=db)
        with serve(app) as url:  # uvicorn on a free loopback port, stopped (and the monitor closed) after
            yield url, app, db


def test_agent_answers_and_the_monitor_stores_scores(running_app: tuple[str, Any, Path]) -> None:
    base, app, db = running_app
    with httpx.Client(base_url=base, timeout=10) as http:
        replies = [
            http.post("/agent", json={"question": q}, headers={"x-request-id": f"req-{i}"})
            for i, q in enumerate(["When did the bridge open?", "When does the museum open?"] * 2)
        ]
        assert [r.json()["answer"] for r in replies] == [ANSWERS["bridge"], ANSWERS["museum"]] * 2
        assert app.state.monitor.flush(timeout=20)
        stats = http.get("/stats").json()
    assert (stats["seen"], stats["scored"], stats["failed"], stats["dropped"]) == (4, 4, 0, 0)
    with sqlite3.connect(db) as conn:
        rows = dict(conn.execute("SELECT trace_id, score FROM runs WHERE source = 'live'"))
    assert rows == {"req-0": 1.0, "req-1": 0.0, "req-2": 1.0, "req-3": 0.0}
