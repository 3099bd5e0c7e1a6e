"""A plain SIGTERM (or SIGKILL) to an app with a live Monitor: nothing is lost without a count,
and no scoring process outlives the app. The app is a real script in its own process, scoring
over real HTTP against the loopback judge, made slow so that calls are still queued."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from troth.testing import FakeOpenAIServer, ScriptedJudge

APP = """
import signal, sys, time
from troth import Judge, Monitor, create_faithfulness_scorer

def main():
    base_url, db, isolate, mode = sys.argv[1:5]
    if mode == "chained":
        def app_handler(signum, frame):
            print("app handler ran", flush=True)
            sys.exit(0)
        signal.signal(signal.SIGTERM, app_handler)
    judge = Judge("m", base_url=base_url, api_key="k", timeout=30, max_retries=0)
    scorer = create_faithfulness_scorer(judge, context=["The bridge opened in 1932."], strategy="two-step",
                                        reason="template")
    monitor = Monitor([scorer], store=db, isolate=isolate, exit_timeout=1.0, concurrency=1)
    for n in range(40):
        monitor.record(input="When?", output=f"The bridge opened in 1932. ({n})")
    child = getattr(monitor._worker, "process", None)
    print("ready", child.pid if child is not None else 0, flush=True)
    time.sleep(60)

if __name__ == "__main__":
    main()
"""
COUNTS = re.compile(r"troth monitor at exit: (\d+) sampled: (\d+) scored, (\d+) failed, (\d+) abandoned")


@pytest.fixture
def slow_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(ScriptedJudge(verdicts={"1932": ("yes", "opened in 1932")})) as server:
        server.delay = 0.15  # two calls a score: a few are scored before the exit's 1 s is up
        yield server


def start(
    tmp_path: Path, server: FakeOpenAIServer, isolate: str, mode: str = "plain"
) -> tuple[subprocess.Popen[str], int]:
    script = tmp_path / "app.py"
    script.write_text(APP, encoding="utf-8")
    argv = [sys.executable, str(script), server.base_url, str(tmp_path / "live.db"), isolate, mode]
    app = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    assert app.stdout is not None
    line = app.stdout.readline()
    assert line.startswith("ready"), app.stderr.read() if app.stderr else line
    time.sleep(0.5)  # scoring under way
    return app, int(line.split()[1])


def stored(tmp_path: Path) -> int:
    with sqlite3.connect(tmp_path / "live.db") as conn:
        return int(conn.execute("SELECT count(*) FROM runs").fetchone()[0])


def scoring(tmp_path: Path, within: float = 20.0) -> bool:
    """Whether the app has stored its first score within ``within`` seconds (on a busy machine
    the first one takes longer than on an idle one)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if stored(tmp_path):
                return True
        except sqlite3.OperationalError:  # the store is not made yet
            pass
        time.sleep(0.05)
    return False


def gone(pid: int, within: float = 15.0) -> bool:
    """Whether ``pid`` has ended (or is a zombie) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/status").read_text()
        except FileNotFoundError:
            return True
        if "State:\tZ" in state:
            return True
        time.sleep(0.1)
    return False


def counts(stderr: str) -> tuple[int, int, int, int]:
    found = COUNTS.search(stderr)
    assert found, stderr
    sampled, scored, failed, abandoned = (int(g) for g in found.groups())
    return sampled, scored, failed, abandoned


def test_sigterm_in_thread_mode_counts_and_logs_what_it_gives_up(slow_server: FakeOpenAIServer, tmp_path: Path) -> None:
    app, _ = start(tmp_path, slow_server, "thread")
    assert scoring(tmp_path), "no score stored within 20 s"
    app.send_signal(signal.SIGTERM)
    _, stderr = app.communicate(timeout=30)
    assert app.returncode == -signal.SIGTERM  # still ends as killed by SIGTERM
    sampled, scored, failed, abandoned = counts(stderr)
    assert sampled == 40 == scored + failed + abandoned and abandoned > 0 and scored > 0
    assert "sampled call(s) not scored at exit (flush timed out after 1s)" in stderr
    assert stored(tmp_path) == scored + failed


def test_sigterm_in_process_mode_stops_the_scoring_process(slow_server: FakeOpenAIServer, tmp_path: Path) -> None:
    app, child = start(tmp_path, slow_server, "process")
    app.send_signal(signal.SIGTERM)
    _, stderr = app.communicate(timeout=30)
    assert app.returncode == -signal.SIGTERM and child > 0 and gone(child)
    sampled, scored, failed, abandoned = counts(stderr)
    assert sampled == 40 == scored + failed + abandoned
    writes = stored(tmp_path)
    time.sleep(1.0)
    assert stored(tmp_path) == writes  # nothing writes to the store after the app ended


def test_a_killed_app_takes_its_scoring_process_with_it(slow_server: FakeOpenAIServer, tmp_path: Path) -> None:
    app, child = start(tmp_path, slow_server, "process")
    app.send_signal(signal.SIGKILL)
    app.communicate(timeout=30)
    assert child > 0 and gone(child), "the scoring process outlived the app"


def test_the_apps_own_sigterm_handler_still_runs_after_the_flush(slow_server: FakeOpenAIServer, tmp_path: Path) -> None:
    app, _ = start(tmp_path, slow_server, "thread", mode="chained")
    app.send_signal(signal.SIGTERM)
    stdout, stderr = app.communicate(timeout=30)
    assert app.returncode == 0 and "app handler ran" in stdout
    sampled, scored, failed, abandoned = counts(stderr)
    assert sampled == 40 == scored + failed + abandoned and stored(tmp_path) == scored + failed
    assert os.path.exists(tmp_path / "live.db")
