"""A loopback OpenAI-compatible chat-completions server for tests and demos.

It listens on 127.0.0.1 only, records every request, and answers from a queue of
:class:`Reply` objects, falling back to a ``responder`` function (such as
:class:`ScriptedJudge`) when the queue is empty.
"""

from __future__ import annotations

import json
import re
import socket
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted HTTP answer. ``content`` (str, or a dict sent as JSON text) becomes the message."""

    content: str | dict[str, Any] | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    finish_reason: str = "stop"
    body: dict[str, Any] | None = None  # a JSON body that overrides content and finish_reason
    raw: bytes | None = None  # bytes sent as the body as they are (a broken proxy's page, say)
    drop: bool = False  # close the connection without answering (a reset)


@dataclass
class Request:
    """A recorded request."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def prompt(self) -> str:
        """All message contents joined (what the model was asked)."""
        return "\n".join(str(m.get("content", "")) for m in self.body.get("messages", []))

    @property
    def schema_name(self) -> str | None:
        fmt = self.body.get("response_format") or {}
        name = (fmt.get("json_schema") or {}).get("name")
        return name if isinstance(name, str) else None


Responder = Callable[[Request], Reply]


class LoopbackHTTPServer(ThreadingHTTPServer):
    """A threading HTTP server with a listen backlog deep enough for bursts of 100+ connections."""

    daemon_threads = True
    request_queue_size = 512

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up (timeout, retry) is normal under load: no traceback on stderr."""
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


class FakeOpenAIServer:
    """``with FakeOpenAIServer() as server: Judge("m", base_url=server.base_url, api_key="k")``.

    Every request is kept in ``requests`` (``record=False``: only counted in ``served``)."""

    def __init__(self, responder: Responder | None = None, *, record: bool = True) -> None:
        self.requests: list[Request] = []
        self.served = 0
        self.record = record  # False for long runs: count requests, keep none
        self.responder = responder
        self.delay = 0.0  # added to every reply
        self.in_flight = 0
        self.max_in_flight = 0
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._httpd = LoopbackHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="fake-openai", daemon=True)

    @property
    def base_url(self) -> str:
        port = self._httpd.server_address[1]
        return f"http://127.0.0.1:{port}/v1"

    def start(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def enqueue(self, *replies: Reply | str | dict[str, Any]) -> None:
        """Queue answers; a str or dict is a 200 reply with that content."""
        with self._lock:
            for r in replies:
                self._queue.append(r if isinstance(r, Reply) else Reply(content=r))

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.max_in_flight = 0

    def _next_reply(self, request: Request) -> Reply:
        with self._lock:
            self.served += 1
            if self.record:
                self.requests.append(request)
            if self._queue:
                return self._queue.popleft()
        if self.responder is not None:
            return self.responder(request)
        return Reply(status=500, body={"error": {"message": "no scripted reply left", "type": "server_error"}})

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms wait for an ACK

            def log_message(self, format: str, *args: Any) -> None:  # silence stderr logging
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b"{}"
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                request = Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                with server._lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    reply = server._next_reply(request)
                    if reply.delay or server.delay:
                        time.sleep(reply.delay + server.delay)
                finally:
                    with server._lock:
                        server.in_flight -= 1
                if reply.drop:  # RST rather than FIN: linger 0, then close
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.close_connection = True
                    return
                payload = reply.body if reply.body is not None else _completion_body(request, reply)
                data = reply.raw if reply.raw is not None else json.dumps(payload).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # client gave up (timeout test)
                    pass

        return Handler


def _completion_body(request: Request, reply: Reply) -> dict[str, Any]:
    if reply.status >= 400:
        return {"error": {"message": f"scripted HTTP {reply.status}", "type": "error", "code": reply.status}}
    content = reply.content if isinstance(reply.content, str) or reply.content is None else json.dumps(reply.content)
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.body.get("model", "fake"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": reply.finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": len(request.prompt) // 4,
            "completion_tokens": len(content or "") // 4,
            "total_tokens": len(request.prompt) // 4 + len(content or "") // 4,
        },
    }


_CLAIMS_BLOCK_RE = re.compile(r"<claims>\n(.*?)\n</claims>", re.DOTALL)
_CLAIM_LINE_RE = re.compile(r"^\[(c\d+)\] (.*)$", re.MULTILINE)
_OUTPUT_BLOCK_RE = re.compile(r"<output>\n(.*?)\n</output>", re.DOTALL)


@dataclass
class ScriptedJudge:
    """A responder that plays the claim-based judges by rule.

    ``claims`` maps an output text (or a substring of it) to its claims; without a match the
    output's sentences are the claims. ``verdicts`` maps a claim substring to
    ``(verdict, evidence_quote)``; unmatched claims get ``default``. ``relevance`` maps a
    statement substring to its relevance verdict; unmatched statements get ``relevance_default``.
    """

    claims: dict[str, list[str]] = field(default_factory=dict)
    verdicts: dict[str, tuple[str, str]] = field(default_factory=dict)
    default: tuple[str, str] = ("unsure", "")
    relevance: dict[str, str] = field(default_factory=dict)
    relevance_default: str = "yes"
    reason: str = "Scripted reason."

    def __call__(self, request: Request) -> Reply:
        prompt = request.prompt
        step = request.schema_name or _guess_step(prompt)
        if step == "ClaimsWithVerdicts":
            outputs = _OUTPUT_BLOCK_RE.findall(prompt)
            found = []
            for claim in self._claims(outputs[-1] if outputs else ""):
                verdict, quote = self._verdict(claim)
                found.append({"claim": claim, "evidence": quote, "verdict": verdict, "reason": f"{verdict}: {claim}"})
            return Reply(content={"claims": found})
        if step == "ExtractedClaims":
            outputs = _OUTPUT_BLOCK_RE.findall(prompt)
            return Reply(content={"claims": self._claims(outputs[-1] if outputs else "")})
        blocks = _CLAIMS_BLOCK_RE.findall(prompt)
        lines = _CLAIM_LINE_RE.findall(blocks[-1] if blocks else "")
        if step == "StatementVerdicts":
            found = []
            for cid, statement in lines:
                label = next(
                    (v for key, v in self.relevance.items() if key.lower() in statement.lower()), self.relevance_default
                )
                found.append({"claim_id": cid, "verdict": label, "reason": f"{label}: {statement}"})
            return Reply(content={"verdicts": found})
        if step == "ClaimVerdicts":
            verdicts = []
            for cid, claim in lines:
                verdict, quote = self._verdict(claim)
                verdicts.append(
                    {"claim_id": cid, "evidence": quote, "verdict": verdict, "reason": f"{verdict}: {claim}"}
                )
            return Reply(content={"verdicts": verdicts})
        return Reply(content={"reason": self.reason})

    def _claims(self, text: str) -> list[str]:
        """The claims scripted for an output containing a key, else its sentences."""
        for key, claims in self.claims.items():
            if key in text:
                return claims
        return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]

    def _verdict(self, claim: str) -> tuple[str, str]:
        """(verdict, quote) of the first verdict key in the claim, else the default."""
        return next((v for key, v in self.verdicts.items() if key.lower() in claim.lower()), self.default)


def _guess_step(prompt: str) -> str:
    if '{"claims"' in prompt and "<context" in prompt and "<output>" in prompt:
        return "ClaimsWithVerdicts"
    if '{"verdicts"' in prompt and "is relevant to the question" in prompt:
        return "StatementVerdicts"
    if '{"verdicts"' in prompt and "<claims>" in prompt:
        return "ClaimVerdicts"
    if '{"claims"' in prompt:
        return "ExtractedClaims"
    return "ScoreReason"
