"""The throughput benchmark's judge: each tool's answer format, latency and failures."""

from __future__ import annotations

import json
import time

import httpx

from bench.fake_judge import STATEMENTS, Behaviour, bench_server


def ask(url: str, body: dict[str, object]) -> httpx.Response:
    return httpx.post(url + "/chat/completions", json={"model": "m", **body}, timeout=10)


def content(response: httpx.Response) -> dict[str, object]:
    parsed: dict[str, object] = json.loads(response.json()["choices"][0]["message"]["content"])
    return parsed


def test_answers_ragas_steps() -> None:
    server, _ = bench_server(Behaviour(latency=0, jitter=0))
    with server:
        base = server.base_url.removesuffix("/v1")
        statements = ask(f"{base}/ragas/0/v1", {"messages": [{"role": "user", "content": "Break down each sentence"}]})
        assert content(statements) == {"statements": STATEMENTS}
        nli_prompt = 'judge the faithfulness of a series of statements. Input: {"statements": ["A is B.", "C is D."]}'
        nli = content(ask(f"{base}/ragas/0/v1", {"messages": [{"role": "user", "content": nli_prompt}]}))
        assert [s["statement"] for s in nli["statements"]] == ["A is B.", "C is D."]  # type: ignore[index,union-attr]
        assert all(s["verdict"] == 1 for s in nli["statements"])  # type: ignore[index,union-attr]


def test_answers_deepeval_steps_by_schema_name() -> None:
    server, _ = bench_server(Behaviour(latency=0, jitter=0))
    with server:
        url = server.base_url  # recognised without a tool tag in the path

        def step(name: str) -> dict[str, object]:
            fmt = {"type": "json_schema", "json_schema": {"name": name, "schema": {}}}
            return content(ask(url, {"messages": [{"role": "user", "content": "x"}], "response_format": fmt}))

        assert step("Truths") == {"truths": STATEMENTS}
        assert step("Claims") == {"claims": STATEMENTS}
        assert [v["verdict"] for v in step("Verdicts")["verdicts"]] == ["yes"] * 3  # type: ignore[union-attr,index]
        assert "reason" in step("FaithfulnessScoreReason")


def test_latency_and_failures() -> None:
    server, responder = bench_server(Behaviour(latency=0.2, jitter=0.0, rate_429=1.0))
    with server:
        started = time.perf_counter()
        got = ask(server.base_url.removesuffix("/v1") + "/troth/0/v1", {"messages": []})
        assert got.status_code == 429
        assert time.perf_counter() - started >= 0.2
        assert responder.refused == 1
    server, responder = bench_server(Behaviour(latency=0, jitter=0, rate_500=1.0))
    with server:
        assert ask(server.base_url, {"messages": []}).status_code == 500
