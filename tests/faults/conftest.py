"""The fault suite's shared pieces: three items (one to be faulted), a healthy scripted judge,
a judge with short timeouts, and the checks every fault test makes of what it left behind."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SECRET_KEY
from troth import Judge
from troth.testing import FakeOpenAIServer, ScriptedJudge

MARKER = "Quokka"
CONTEXT = ["The bridge opened in 1932. It is 80 m high and carries four lanes."]
ITEMS: list[dict[str, Any]] = [
    {"id": "ok-yes", "output": "The bridge opened in 1932. It is 80 m high.", "context": CONTEXT},
    {"id": "ok-no", "output": "The bridge opened in 1950.", "context": CONTEXT},
    {
        "id": "faulted",
        "output": f"The {MARKER} bridge opened in 1932. The {MARKER} bridge is 80 m high.",
        "context": CONTEXT,
    },  # the marker in every claim: every request about this item is faulted
]
EXPECTED = {"ok-yes": 1.0, "ok-no": 0.0, "faulted": 1.0}


def healthy() -> ScriptedJudge:
    return ScriptedJudge(
        verdicts={
            "1932": ("yes", "The bridge opened in 1932."),
            "80 m": ("yes", "It is 80 m high"),
            "1950": ("no", "The bridge opened in 1932."),
        },
        default=("unsure", ""),
    )


def fault_judge(server: FakeOpenAIServer) -> Judge:
    """Short timeouts and few retries, so that a fault repeated on every attempt fails fast."""
    return Judge(
        "fake-judge",
        base_url=server.base_url,
        api_key=SECRET_KEY,
        timeout=1.0,
        max_retries=1,
        output_retries=1,
        rate_limit_wait=0,
        max_tokens=256,
        max_tokens_limit=1024,
    )


@pytest.fixture
def fault_server() -> Any:
    with FakeOpenAIServer(healthy()) as srv:
        yield srv


def rows(db: Path) -> list[tuple[str, str, float | None, str | None, str | None]]:
    with sqlite3.connect(db) as conn:
        found = conn.execute("SELECT item_id, scorer_id, score, error, error_step FROM runs ORDER BY item_id")
        return list(found.fetchall())


def assert_no_secret(*artefacts: Path | str) -> None:
    """The key appears in no file (read as bytes) and no text given."""
    for artefact in artefacts:
        data = artefact.read_bytes() if isinstance(artefact, Path) else artefact.encode()
        assert SECRET_KEY.encode() not in data, (
            f"the API key leaked into {artefact if isinstance(artefact, Path) else 'text'}"
        )
