"""One wait budget per judge call, spent by the waits a server asks for, by the client library's
retries and by troth's own backoff; past it the call fails at once, typed, saying what the
server asked for and what the budget was, and a run goes on with the item failed."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from pydantic import BaseModel

from troth import Judge, JudgeConnectionError, create_faithfulness_scorer, run_evals
from troth.judges import waits
from troth.judges.run_settings import RUN_SETTINGS, RunSettings
from troth.judges.waits import retry_after
from troth.testing import FakeOpenAIServer, Reply
from troth.testing.server import Request


class Answer(BaseModel):
    value: int


def always(status: int, wait: str) -> object:
    def reply(request: Request) -> Reply:
        return Reply(status=status, headers={"Retry-After": wait})

    return reply


async def test_a_wait_the_budget_cannot_pay_fails_the_call_at_once(server: FakeOpenAIServer) -> None:
    server.responder = always(429, "120")  # type: ignore[assignment]
    judge = Judge("m", base_url=server.base_url, api_key="k", max_retries=4, rate_limit_wait=2)
    started = time.monotonic()
    with pytest.raises(JudgeConnectionError) as caught:
        await judge.generate("q", Answer, step="analyze")
    assert time.monotonic() - started < 2 and len(server.requests) == 1  # the SDK did not sleep 120 s
    error = caught.value
    assert error.over_budget and error.status_code == 429 and error.retry_after == 120 and error.step == "analyze"
    assert "answered HTTP 429 asking for a wait of 120s" in str(error) and "wait budget of 2s" in str(error)


async def test_the_client_library_retries_spend_the_same_budget(server: FakeOpenAIServer) -> None:
    server.responder = always(429, "1")  # type: ignore[assignment]
    judge = Judge("m", base_url=server.base_url, api_key="k", max_retries=10, rate_limit_wait=2.5)
    started = time.monotonic()
    with pytest.raises(JudgeConnectionError, match=r"wait budget of 2\.5s"):
        await judge.generate("q", Answer, step="s")
    assert 2 <= time.monotonic() - started < 4 and len(server.requests) == 3  # two 1 s waits paid, the third not


async def test_waits_that_fit_are_waited_and_long_ones_told_to_the_progress_line(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(waits, "LONG_WAIT_S", 0.75)
    server.enqueue(
        Reply(status=429, headers={"Retry-After": "1"}),
        Reply(status=503, headers={"retry-after-ms": "500"}),
        {"value": 7},
    )
    judge = Judge("m", base_url=server.base_url, api_key="k", max_retries=4, rate_limit_wait=5)
    heard: list[float] = []
    token = RUN_SETTINGS.set(RunSettings(on_wait=heard.append))
    try:
        answer, usage = await judge.generate("q", Answer, step="s")
    finally:
        RUN_SETTINGS.reset(token)
    assert answer.value == 7 and usage.attempts == 3 and len(server.requests) == 3
    assert heard == [1.0]  # the 0.5 s wait is too short to show


def test_a_run_keeps_going_with_the_items_failed(server: FakeOpenAIServer, tmp_path: Path) -> None:
    server.responder = always(429, "120")  # type: ignore[assignment]
    judge = Judge("m", base_url=server.base_url, api_key="k", max_retries=4, rate_limit_wait=1)
    data = [{"id": str(i), "output": "It opened in 1932.", "context": ["It opened in 1932."]} for i in range(3)]
    started = time.monotonic()
    result = run_evals(data, [create_faithfulness_scorer(judge)], store=None, quiet=True)
    assert time.monotonic() - started < 10 and result.summary.failed_items == 3
    assert {it.errors["faithfulness"].type for it in result.items} == {"JudgeConnectionError"}
    line = subprocess.run(
        [
            sys.executable,
            "-m",
            "troth",
            "eval",
            str(_jsonl(tmp_path, data)),
            "--model",
            "m",
            "--base-url",
            server.base_url,
            "--max-wait",
            "1",
            "--no-store",
            "-q",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={"COLUMNS": "300", "PATH": ""},
    )
    assert line.returncode == 1 and "troth: 3 of 3 item(s) failed" in line.stderr and "Traceback" not in line.stderr
    assert "asking for a wait of 120s" in line.stdout


def _jsonl(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    import json

    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_retry_after_reads_seconds_milliseconds_and_dates() -> None:
    assert retry_after({"retry-after": "3"}) == 3.0 and retry_after({"retry-after-ms": "250"}) == 0.25
    assert retry_after({"retry-after": "soon"}) is None and retry_after({}) is None
    assert retry_after({"retry-after": "Fri, 01 Jan 2100 00:00:00 GMT"}) > 1e9  # type: ignore[operator]


async def test_a_server_asking_for_no_wait_still_ends_within_the_budget(server: FakeOpenAIServer) -> None:
    server.responder = always(429, "0")  # type: ignore[assignment]
    judge = Judge("m", base_url=server.base_url, api_key="k", max_retries=0, rate_limit_wait=1)
    started = time.monotonic()
    with pytest.raises(JudgeConnectionError, match="wait budget of 1s"):
        await judge.generate("q", Answer, step="s")
    assert time.monotonic() - started < 3 and len(server.requests) < 5  # backoff, not a busy loop
