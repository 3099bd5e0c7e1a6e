"""A loopback judge for throughput runs: configurable latency and failure rate, and a
schema-valid answer to every step of every tool it serves.

Each tool's steps are recognised from the request itself (so the server also works behind the
recording proxy): DeepEval's four (truths, claims, verdicts, reason) by the names of their
structured-output schemas, RAGAS's two (statements, NLI verdicts, in instructor's JSON mode) by
their instructions, and everything else is troth's, played by ``troth.testing.ScriptedJudge``.
Answers are fixed and plausible; this server measures framework overhead, not accuracy.
"""

from __future__ import annotations

import json
import random
import threading
from dataclasses import dataclass, field
from typing import Any

from troth.testing import FakeOpenAIServer, Reply, ScriptedJudge
from troth.testing.server import Request

STATEMENTS = ["The text states a first fact.", "The text states a second fact.", "The text states a third fact."]


@dataclass
class Behaviour:
    """Latency (seconds, mean ± uniform jitter) and the share of requests answered 429 or 500."""

    latency: float = 0.3
    jitter: float = 0.05
    rate_429: float = 0.0
    rate_500: float = 0.0
    seed: int = 0


def _listed(prompt: str, key: str) -> list[Any] | None:
    """The last JSON list written as ``"key": [...]`` in ``prompt``, if it parses."""
    marker = f'"{key}": ['
    at = prompt.rfind(marker)
    if at < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(prompt[at + len(marker) - 1 :])
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, list) else None


DEEPEVAL_SCHEMAS = {"Truths", "Claims", "Verdicts", "FaithfulnessScoreReason"}
RAGAS_STATEMENTS = "Break down each sentence"
RAGAS_NLI = "judge the faithfulness of a series of statements"


def ragas_answer(request: Request) -> dict[str, Any]:
    prompt = request.prompt
    if RAGAS_STATEMENTS in prompt:
        return {"statements": STATEMENTS}
    statements = _listed(prompt, "statements") or STATEMENTS
    return {"statements": [{"statement": str(s), "reason": "The context states it.", "verdict": 1} for s in statements]}


def deepeval_answer(request: Request) -> dict[str, Any]:
    name = request.schema_name or ""
    if name == "Truths":
        return {"truths": STATEMENTS}
    if name == "Claims":
        return {"claims": STATEMENTS}
    if name == "Verdicts":
        return {"verdicts": [{"verdict": "yes", "reason": None} for _ in STATEMENTS]}
    return {"reason": "The score is high because every claim is supported."}


@dataclass
class BenchResponder:
    """Answers each tool in its own format, after a delay, failing some requests on purpose."""

    behaviour: Behaviour
    troth: ScriptedJudge = field(default_factory=lambda: ScriptedJudge(default=("yes", "")))
    refused: int = 0  # requests answered 429 or 500 on purpose
    prompt_chars: int = 0  # characters of the messages of the requests answered (refused ones are not billed)
    _rng: random.Random = field(init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.behaviour.seed)

    def __call__(self, request: Request) -> Reply:
        b = self.behaviour
        with self._lock:
            roll = self._rng.random()
            delay = max(0.0, b.latency + self._rng.uniform(-b.jitter, b.jitter))
            refused = roll < b.rate_429 + b.rate_500
            self.refused += refused
            self.prompt_chars += 0 if refused else len(request.prompt)
        if roll < b.rate_429:
            return Reply(status=429, headers={"retry-after": "0"}, delay=delay)
        if roll < b.rate_429 + b.rate_500:
            return Reply(status=500, delay=delay)
        if request.schema_name in DEEPEVAL_SCHEMAS:
            return Reply(content=deepeval_answer(request), delay=delay)
        if RAGAS_STATEMENTS in request.prompt or RAGAS_NLI in request.prompt:
            return Reply(content=ragas_answer(request), delay=delay)
        reply = self.troth(request)
        reply.delay = delay
        return reply


def bench_server(behaviour: Behaviour) -> tuple[FakeOpenAIServer, BenchResponder]:
    """A loopback server (not started) answering through a :class:`BenchResponder`."""
    responder = BenchResponder(behaviour)
    return FakeOpenAIServer(responder=responder), responder
