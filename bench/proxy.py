"""A recording proxy on loopback: every judge request of every tool goes through it.

Tools are given ``proxy.base_url(tool, item)`` (``http://127.0.0.1:PORT/<tool>/<item>/v1``);
the proxy forwards ``/v1/...`` to the upstream OpenAI-compatible server and counts calls,
failures and the upstream's reported prompt/completion tokens per tool and item, so cost is
measured rather than estimated.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx

from troth.testing.server import LoopbackHTTPServer

HOP_HEADERS = {"host", "content-length", "connection", "accept-encoding", "transfer-encoding"}


@dataclass
class Usage:
    """What one tool spent on one item (or in total)."""

    calls: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add(self, other: Usage) -> None:
        self.calls += other.calls
        self.failures += other.failures
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens


def split_tag(path: str) -> tuple[str, str, str]:
    """``/<tool>/<item>/v1/chat/completions`` → ``(tool, item, "/v1/chat/completions")``."""
    parts = path.split("/", 3)
    if len(parts) < 4 or not parts[1] or not parts[2] or parts[1] == "v1":
        return "untagged", "-", path
    return parts[1], parts[2], "/" + parts[3]


def token_counts(body: bytes) -> tuple[int, int]:
    """Prompt and completion tokens from an OpenAI-style response body (0, 0 when absent)."""
    try:
        usage = json.loads(body).get("usage") or {}
    except (json.JSONDecodeError, AttributeError):
        return 0, 0
    return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)


class UsageLog:
    """Thread-safe counters keyed by ``(tool, item)``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.by_item: dict[tuple[str, str], Usage] = defaultdict(Usage)

    def record(self, tool: str, item: str, status: int, body: bytes) -> None:
        prompt, completion = token_counts(body) if status < 400 else (0, 0)
        with self._lock:
            u = self.by_item[(tool, item)]
            u.calls += 1
            u.failures += status >= 400
            u.prompt_tokens += prompt
            u.completion_tokens += completion

    def item(self, tool: str, item: str) -> Usage:
        with self._lock:
            return Usage(**vars(self.by_item.get((tool, item), Usage())))

    def total(self, tool: str) -> Usage:
        out = Usage()
        with self._lock:
            for (t, _), u in self.by_item.items():
                if t == tool:
                    out.add(u)
        return out


class RecordingProxy:
    """``with RecordingProxy("http://127.0.0.1:8080/v1") as proxy: proxy.base_url("troth", "0")``."""

    def __init__(self, upstream: str, *, timeout: float = 600.0) -> None:
        self.upstream = upstream.rstrip("/").removesuffix("/v1")
        self.log = UsageLog()
        self._client = httpx.Client(timeout=timeout)
        self._httpd = LoopbackHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="recording-proxy", daemon=True)

    def base_url(self, tool: str, item: str | int) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/{tool}/{item}/v1"

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._client.close()

    def _forward(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        tool, item, rest = split_tag(path)
        try:
            response = self._client.request(method, self.upstream + rest, headers=headers, content=body)
            status, out_headers, data = response.status_code, dict(response.headers), response.content
        except httpx.HTTPError as exc:
            status, out_headers = 502, {}
            data = json.dumps({"error": {"message": f"proxy: upstream failed: {exc}", "type": "proxy_error"}}).encode()
        self.log.record(tool, item, status, data)
        return status, out_headers, data

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _relay(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_HEADERS}
                status, out_headers, data = proxy._forward(method, self.path, headers, body)
                try:
                    self.send_response(status)
                    for k, v in out_headers.items():
                        if k.lower() not in HOP_HEADERS and k.lower() != "content-encoding":
                            self.send_header(k, v)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_POST(self) -> None:
                self._relay("POST")

            def do_GET(self) -> None:
                self._relay("GET")

        return Handler
