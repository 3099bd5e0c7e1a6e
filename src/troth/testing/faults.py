"""Faults a judge server can commit, for the fault suite and the soak benchmark.

A :class:`Fault` turns a request (and the healthy reply to it) into a faulty reply; :data:`FAULTS`
holds the known ones by name, grouped by class (transport, protocol, content, secrets). A new
failure class is one more entry. :class:`FaultyJudge` is a server responder that answers from a
healthy responder (such as :class:`ScriptedJudge`) and injects faults: for every request that
mentions a marker, for the first ``times`` requests, or at random with a seeded ``rate``.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from troth.testing.server import Reply, Request, Responder

MakeReply = Callable[[Request, Reply], Reply]


@dataclass(frozen=True)
class Fault:
    """``make(request, healthy_reply)`` gives the faulty reply. ``error`` names the TrothError
    subclass that a fault repeated on every attempt ends in (None: the item is still scored, as
    for an extraction that found no claims); ``steps`` limits it to requests of those schemas."""

    name: str
    kind: str
    make: MakeReply
    error: str | None
    steps: tuple[str, ...] = ()

    def applies(self, request: Request) -> bool:
        return not self.steps or request.schema_name in self.steps


def _content(reply: Reply) -> dict[str, Any]:
    content = reply.content
    if isinstance(content, dict):
        return dict(content)
    loaded = json.loads(content or "{}")
    return loaded if isinstance(loaded, dict) else {}


def _fewer_verdicts(request: Request, healthy: Reply) -> Reply:
    data = _content(healthy)
    return replace(healthy, content={**data, "verdicts": data.get("verdicts", [])[:-1]})


def _unknown_label(request: Request, healthy: Reply) -> Reply:
    data = _content(healthy)
    return replace(healthy, content={**data, "verdicts": [{**v, "verdict": "maybe"} for v in data.get("verdicts", [])]})


def _cut_off(request: Request, healthy: Reply) -> Reply:
    text = json.dumps(_content(healthy))
    return replace(healthy, content=text[: max(1, len(text) // 2)], finish_reason="length")


def _echo_key(request: Request, healthy: Reply) -> Reply:
    key = request.headers.get("authorization", "").removeprefix("Bearer ")
    message = f"Incorrect API key provided: {key}. You can find your API key at https://example.invalid."
    return Reply(status=401, body={"error": {"message": message, "type": "invalid_request_error", "key": key}})


def _body(payload: dict[str, Any]) -> MakeReply:
    return lambda request, healthy: Reply(body=payload)


_VERDICTS = ("ClaimVerdicts",)
FAULTS: dict[str, Fault] = {
    f.name: f
    for f in (
        # transport
        Fault(
            "rate-limit",
            "transport",
            lambda r, h: Reply(status=429, headers={"Retry-After": "0"}),
            "JudgeConnectionError",
        ),
        Fault("server-error", "transport", lambda r, h: Reply(status=503), "JudgeConnectionError"),
        Fault("reset", "transport", lambda r, h: Reply(drop=True), "JudgeConnectionError"),
        Fault("hang", "transport", lambda r, h: replace(h, delay=2.0), "JudgeConnectionError"),
        # protocol: HTTP 200, but not a chat completion
        Fault("not-json", "protocol", lambda r, h: Reply(raw=b"<html>502 Bad Gateway</html>"), "JudgeResponseError"),
        Fault("wrong-shape", "protocol", _body({"result": "ok"}), "JudgeResponseError"),
        Fault(
            "no-choices",
            "protocol",
            _body({"id": "x", "object": "chat.completion", "choices": []}),
            "JudgeResponseError",
        ),
        Fault(
            "no-message", "protocol", _body({"choices": [{"index": 0, "finish_reason": "stop"}]}), "JudgeResponseError"
        ),
        Fault(
            "content-not-text",
            "protocol",
            _body({"choices": [{"index": 0, "message": {"role": "assistant", "content": 5}}]}),
            "JudgeResponseError",
        ),
        # content: a chat completion whose answer is wrong
        Fault(
            "not-json-content",
            "content",
            lambda r, h: replace(h, content="Sure! [/red] Here are [bold]the verdicts[/]. <script>alert(1)</script>"),
            "JudgeOutputError",
        ),
        Fault("fewer-verdicts", "content", _fewer_verdicts, "JudgeOutputError", _VERDICTS),
        Fault("unknown-label", "content", _unknown_label, "JudgeOutputError", _VERDICTS),
        Fault("no-claims", "content", lambda r, h: replace(h, content={"claims": []}), None, ("ExtractedClaims",)),
        Fault("cut-off", "content", _cut_off, "JudgeTruncatedError"),
        # secrets: a proxy that echoes the key in its error
        Fault("echo-key", "secrets", _echo_key, "JudgeConnectionError"),
    )
}
TRANSIENT_MIX = (
    "rate-limit",
    "server-error",
    "reset",
    "not-json",
    "wrong-shape",
    "no-message",
    "not-json-content",
    "fewer-verdicts",
    "unknown-label",
    "cut-off",
)
"""Faults that a retry recovers from when they happen once: the soak benchmark's mix."""


@dataclass
class FaultyJudge:
    """A responder answering from ``healthy`` with faults injected (thread-safe).

    ``marker``: every request whose prompt contains it gets the fault (persistent);
    ``times``: only the first ``times`` such requests do (transient); ``rate``: each request
    gets one of ``faults`` with that probability (seeded). ``injected`` counts faults by name.
    """

    healthy: Responder
    faults: Sequence[Fault]
    marker: str | None = None
    times: int | None = None
    rate: float = 0.0
    seed: int = 0
    injected: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Reply:
        healthy = self.healthy(request)
        fault = self._pick(request)
        if fault is None:
            return healthy
        return fault.make(request, healthy)

    def _pick(self, request: Request) -> Fault | None:
        candidates = [f for f in self.faults if f.applies(request)]
        with self._lock:
            if not candidates or (self.marker is not None and self.marker not in request.prompt):
                return None
            if self.rate and self._rng.random() >= self.rate:
                return None
            if self.times is not None and sum(self.injected.values()) >= self.times:
                return None
            fault = candidates[self._rng.randrange(len(candidates))]
            self.injected[fault.name] = self.injected.get(fault.name, 0) + 1
            return fault
