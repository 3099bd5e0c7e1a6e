"""A run killed (SIGKILL) or interrupted (SIGINT) half way, then resumed: every item ends up
stored exactly once, scored correctly, and nothing stored before the signal is judged again."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.faults.conftest import CONTEXT, healthy
from troth.testing import FakeOpenAIServer

N = 12


def stored(db: Path) -> dict[str, str | None]:
    if not db.exists():
        return {}
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return dict(conn.execute("SELECT item_id, error FROM runs").fetchall())
    except sqlite3.OperationalError:  # the schema is not there yet
        return {}


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
def test_signal_mid_run_then_resume(sig: signal.Signals, tmp_path: Path) -> None:
    data, db = tmp_path / "data.jsonl", tmp_path / "s.db"
    rows = [
        {"id": f"i{n:02d}", "output": f"The bridge opened in 1932. Item {n}.", "context": CONTEXT} for n in range(N)
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with FakeOpenAIServer(healthy()) as server:
        args = [
            sys.executable,
            "-m",
            "troth",
            "eval",
            str(data),
            "--model",
            "m",
            "--base-url",
            server.base_url,
            "--store",
            str(db),
            "--eval-id",
            "sig",
            "--concurrency",
            "1",
            "-q",
        ]
        server.delay = 0.25
        # a background job of a shell ignores SIGINT, and a child inherits that: give the CLI the default
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        finally:
            signal.signal(signal.SIGINT, previous)
        deadline = time.monotonic() + 60
        while len(stored(db)) < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, f"the run ended before the signal: {stored(db)}"
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        before = stored(db)
        assert 3 <= len(before) < N and all(e is None for e in before.values())
        if sig == signal.SIGINT:
            assert proc.returncode == 130 and "resume with --eval-id sig" in err and "Traceback" not in err
        else:
            assert proc.returncode == -signal.SIGKILL

        server.delay, _ = 0.0, server.reset()
        resumed = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert all(not any(f"Item {i[1:].lstrip('0') or '0'}." in r.prompt for r in server.requests) for i in before)
    after = stored(db)
    assert sorted(after) == [r["id"] for r in rows] and all(e is None for e in after.values())
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == N  # nothing doubled
        assert {s for (s,) in conn.execute("SELECT score FROM runs")} == {0.5}  # 1932 supported, "Item n." not
