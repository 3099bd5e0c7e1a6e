"""Shared fixtures: a loopback OpenAI-compatible server, judges pointed at it, and a network guard."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from troth import Judge
from troth.testing import FakeOpenAIServer

pytest_plugins = ["pytester"]

SECRET_KEY = "sk-test-SECRET-do-not-leak-123"

_real_connect = socket.socket.connect


def _guarded_connect(self: socket.socket, address: Any) -> None:
    if self.family in (socket.AF_INET, socket.AF_INET6):
        host = address[0]
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            ip = None
        if host != "localhost" and (ip is None or not ip.is_loopback):
            raise RuntimeError(f"tests may only connect to loopback, not {host!r}")
    _real_connect(self, address)


@pytest.fixture(autouse=True, scope="session")
def _no_network() -> Iterator[None]:
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    yield
    socket.socket.connect = _real_connect  # type: ignore[method-assign]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        yield srv


@pytest.fixture
def judge(server: FakeOpenAIServer) -> Judge:
    return Judge("fake-judge", base_url=server.base_url, api_key=SECRET_KEY, max_retries=2, timeout=5)
