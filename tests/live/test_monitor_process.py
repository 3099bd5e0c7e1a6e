"""Monitor(isolate="process"): scoring in a child process, over real HTTP to the loopback judge.
The same promises as in a thread (stored, counted, failures kept from the app), plus a child
that dies: what it held is counted and logged, and it is started again."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.live.test_monitor import CONTEXT, SCRIPT, judge_for, monitor_for, stored
from troth import Budget, Monitor, create_faithfulness_scorer, prices, set_prices
from troth.live.scoring import NICENESS
from troth.testing import FakeOpenAIServer, Reply


@pytest.fixture
def live_server() -> Any:
    with FakeOpenAIServer(SCRIPT) as srv:
        yield srv


def test_calls_are_scored_in_another_process_and_stored(live_server: FakeOpenAIServer, tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    monitor = monitor_for(live_server, db, isolate="process")

    @monitor.watch
    def answer(question: str) -> str:
        return "The bridge opened in 1932." if question != "q2" else "The bridge opened in 1950."

    assert [answer(f"q{i}") for i in range(4)][2] == "The bridge opened in 1950."
    child = monitor._worker.process.pid  # type: ignore[attr-defined]
    assert child != os.getpid() and monitor.store is None  # the child writes the store, not the app
    assert monitor.flush(timeout=30)
    app = os.getpriority(os.PRIO_PROCESS, 0)  # scoring yields the CPU to the app's requests
    assert os.getpriority(os.PRIO_PROCESS, child) == min(app + NICENESS, 19) > app
    stats = monitor.stats()
    assert (stats.seen, stats.sampled, stats.scored, stats.failed, stats.dropped) == (4, 4, 4, 0, 0)
    assert [(r[0], r[2]) for r in stored(db)] == [("live", 1.0), ("live", 1.0), ("live", 0.0), ("live", 1.0)]
    assert monitor.close()
    assert not monitor._worker.process.is_alive()  # type: ignore[attr-defined]


def test_judge_down_failures_are_stored_by_the_child(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda request: Reply(status=503)) as down:
        monitor = monitor_for(down, tmp_path / "live.db", isolate="process")
        for i in range(3):
            monitor.record(input=f"q{i}", output="The bridge opened in 1932.")
        assert monitor.close(timeout=30)
    rows = stored(tmp_path / "live.db")
    assert len(rows) == 3 and all(r[3].startswith("JudgeConnectionError") and r[4] == "preprocess" for r in rows)
    assert monitor.stats().failed == 3


def test_prices_and_budget_hold_across_the_process(
    live_server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prices, "PRICES", prices.PriceTable())
    set_prices({"live-judge": (1000.0, 2000.0)})  # set before the monitor starts its process
    monitor = monitor_for(live_server, tmp_path / "live.db", budget=Budget(usd_per_hour=0.5), isolate="process")
    monitor.record(input="q0", output="The bridge opened in 1932.")
    assert monitor.flush(timeout=30)
    (row,) = stored(tmp_path / "live.db")
    assert row[6] > 0.5 and monitor.stats().spend_usd == pytest.approx(row[6])
    assert [monitor.record(input=f"q{i}", output="x.") for i in range(1, 4)] == [False] * 3
    assert monitor.stats().skipped_budget == 3 and monitor.close()


def test_a_child_that_dies_is_counted_logged_and_started_again(
    live_server: FakeOpenAIServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    live_server.delay = 2.0
    monitor = monitor_for(live_server, tmp_path / "live.db", isolate="process", concurrency=2)
    for i in range(2):
        monitor.record(input=f"q{i}", output="The bridge opened in 1932.")
    deadline = time.monotonic() + 20
    while len(monitor._worker.taken) < 2 and time.monotonic() < deadline:  # type: ignore[attr-defined]
        time.sleep(0.05)
    first = monitor._worker.process.pid  # type: ignore[attr-defined]
    with caplog.at_level(logging.ERROR, logger="troth.live.monitor"):
        os.kill(first, signal.SIGKILL)
        assert monitor.flush(timeout=20)
    assert monitor.stats().failed == 2 and "the scoring process died" in caplog.text and "2 call(s)" in caplog.text
    live_server.delay = 0.0
    assert monitor.record(input="after", output="The bridge opened in 1932.")
    assert monitor.close(timeout=30)
    assert monitor._worker.process.pid != first  # type: ignore[attr-defined]
    assert monitor.stats().scored == 1 and [r[7] for r in stored(tmp_path / "live.db")] == ['"after"']


def test_a_scorer_that_cannot_be_pickled_is_refused_with_the_way_out(live_server: FakeOpenAIServer) -> None:
    scorer = create_faithfulness_scorer(judge_for(live_server), context=CONTEXT).generate_reason(lambda ctx: "r")
    with pytest.raises(TypeError, match="isolate='thread'"):
        Monitor([scorer], store=None, isolate="process")
    with pytest.raises(ValueError, match="isolate must be"):
        Monitor([scorer], store=None, isolate="fork")  # type: ignore[arg-type]


UNGUARDED = """
import atexit, json, sys
from dataclasses import asdict
from troth import Monitor, create_faithfulness_scorer

monitor = Monitor([create_faithfulness_scorer("local")], store=sys.argv[1], isolate="process", queue_size=2000,
                  exit_timeout=2)
for i in range(1000):
    monitor.record(output=" ".join(f"Fact {i}-{j} holds." for j in range(1100)), context=["Fact 0-0 holds."])
atexit.register(lambda: print(json.dumps(asdict(monitor.stats())), flush=True))
"""


def test_a_script_without_a_main_guard_is_told_how_to_fix_it_and_still_exits_in_bounded_time(tmp_path: Path) -> None:
    script = tmp_path / "app.py"  # no `if __name__ == "__main__":`: the scoring process imports it again and fails
    script.write_text(UNGUARDED, encoding="utf-8")
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "live.db")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert time.monotonic() - started < 60
    assert done.stderr.count('put that code under `if __name__ == "__main__":`') == 1, done.stderr[-2000:]
    stats = json.loads(done.stdout.strip().splitlines()[-1])
    assert stats["sampled"] == 1000 and stats["dropped"] == 0
    assert stats["scored"] + stats["failed"] + stats["abandoned"] == 1000 and stats["abandoned"] > 0
