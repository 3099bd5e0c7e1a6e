"""Example: a small RAG "agent" web app whose answers are scored live by a troth Monitor.

    pip install "troth[live-example]"
    AGENT_BASE_URL=http://127.0.0.1:8000/v1 AGENT_MODEL=my-model TROTH_JUDGE=openai/gpt-4o-mini \\
        uvicorn examples.live_app:from_env --factory --port 8080
    curl -s localhost:8080/agent -d '{"question": "When did the bridge open?"}'
    curl -s localhost:8080/stats          # seen, sampled, scored, failed, dropped, spend
    troth live --since 1h                 # the scores, per scorer, with the worst answers

The endpoint retrieves context, asks an OpenAI-compatible model and answers at once; the monitor
scores a sample of the answers against the retrieved context in the background (off the request
path) and stores every score with its trace id (the ``x-request-id`` header, when sent). It
scores in a process of its own; ``TROTH_ISOLATE=thread`` scores in a thread of the app instead,
and ``TROTH_SAMPLING=0.1`` scores one answer in ten.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict
from typing import Any, Literal

import openai
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from troth import Judge, Monitor, create_faithfulness_scorer

DOCS = [
    "The Harbour Bridge opened in 1932. It is 134 metres high and carries eight lanes of traffic.",
    "The museum opens at 10:00 and closes at 18:00. Entry costs 12 euros; children enter free.",
    "Returns are accepted within 30 days of delivery. Refunds are paid within 5 business days.",
]
_WORD = re.compile(r"\w+")


def retrieve(question: str, k: int = 1) -> list[str]:
    """The ``k`` documents sharing the most words with the question."""
    words = {w.lower() for w in _WORD.findall(question)}
    return sorted(DOCS, key=lambda d: -len(words & {w.lower() for w in _WORD.findall(d)}))[:k]


def create_app(
    *,
    agent_base_url: str,
    agent_model: str,
    agent_api_key: str = "not-needed",
    judge: Judge | str | None = "verifier",
    sampling: float = 1.0,
    store: Any = True,
    isolate: Literal["thread", "process"] = "process",
) -> Starlette:
    """The app; ``judge=None`` builds it without a monitor (to measure what the monitor adds).

    The monitor scores in a process of its own (``isolate="process"``), so the endpoint's p99
    does not pay for scoring's share of the interpreter lock (README, Live scoring)."""
    client = openai.AsyncOpenAI(base_url=agent_base_url, api_key=agent_api_key, max_retries=1)
    scorers = [create_faithfulness_scorer(judge, reason="template")] if judge else []
    monitor = Monitor(scorers, sampling=sampling, store=store, isolate=isolate) if judge else None

    async def answer(question: str, docs: list[str], trace: str) -> str:
        reply = await client.chat.completions.create(
            model=agent_model,
            messages=[
                {"role": "system", "content": "Answer from these documents only:\n" + "\n".join(docs)},
                {"role": "user", "content": question},
            ],
        )
        return reply.choices[0].message.content or ""

    if monitor is not None:
        answer = monitor.watch(answer, context="docs", trace_id="trace")

    async def agent(request: Request) -> JSONResponse:
        body = await request.json()
        question = str(body.get("question", ""))
        docs = retrieve(question)
        trace = request.headers.get("x-request-id") or uuid.uuid4().hex
        return JSONResponse({"answer": await answer(question, docs, trace), "context": docs, "trace_id": trace})

    async def stats(request: Request) -> JSONResponse:
        return JSONResponse(asdict(monitor.stats()) if monitor else {})

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await client.close()
        if monitor is not None:
            monitor.close(timeout=10)

    app = Starlette(routes=[Route("/agent", agent, methods=["POST"]), Route("/stats", stats)], lifespan=lifespan)
    app.state.monitor = monitor
    return app


def from_env() -> Starlette:
    """``uvicorn examples.live_app:from_env --factory``: settings from the environment."""
    return create_app(
        agent_base_url=os.environ["AGENT_BASE_URL"],
        agent_model=os.environ.get("AGENT_MODEL", "agent"),
        agent_api_key=os.environ.get("AGENT_API_KEY", "not-needed"),
        judge=os.environ.get("TROTH_JUDGE", "verifier"),
        sampling=float(os.environ.get("TROTH_SAMPLING", "1.0")),
        isolate=os.environ.get("TROTH_ISOLATE", "process"),  # type: ignore[arg-type]  # the Monitor checks it
    )
