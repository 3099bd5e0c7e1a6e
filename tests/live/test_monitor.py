"""The live monitor against the loopback judge over real HTTP: decorators, sampling, the queue,
faults kept away from the app, flush, cost and budget."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SECRET_KEY
from troth import Budget, Judge, Monitor, Sampling, create_faithfulness_scorer, create_scorer, prices, set_prices
from troth.live.scoring import NICENESS
from troth.store import SQLiteStore
from troth.testing import FakeOpenAIServer, Reply, ScriptedJudge

CONTEXT = ["The bridge opened in 1932. It is 80 m high."]
SCRIPT = ScriptedJudge(verdicts={"1932": ("yes", "opened in 1932"), "1950": ("no", "opened in 1932")})


@pytest.fixture
def live_server() -> Any:
    with FakeOpenAIServer(SCRIPT) as srv:
        yield srv


def judge_for(server: FakeOpenAIServer, timeout: float = 2, **kw: Any) -> Judge:
    return Judge("live-judge", base_url=server.base_url, api_key=SECRET_KEY, timeout=timeout, max_retries=0, **kw)


def monitor_for(server: FakeOpenAIServer, db: Path, **kw: Any) -> Monitor:
    scorer = create_faithfulness_scorer(judge_for(server), context=CONTEXT, reason="template")
    return Monitor([scorer], store=db, **kw)


def stored(db: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        query = "SELECT source, trace_id, score, error, error_step, latency_s, cost_usd, input FROM runs ORDER BY input"
        return list(conn.execute(query))


def test_decorated_sync_and_async_functions_are_scored_and_stored(
    live_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    db = tmp_path / "live.db"
    monitor = monitor_for(live_server, db)

    @monitor.watch
    def answer(question: str) -> str:
        return "The bridge opened in 1932."

    @monitor.watch(trace_id="request_id")
    async def answer_async(question: str, request_id: str) -> str:
        return "The bridge opened in 1950."

    assert answer("When did it open?") == "The bridge opened in 1932."
    assert asyncio.run(answer_async("And the other?", request_id="req-7")) == "The bridge opened in 1950."
    assert monitor.flush(timeout=10) and monitor.close()
    rows = stored(db)
    assert [(r[0], r[2], r[7]) for r in rows] == [
        ("live", 0.0, '"And the other?"'),
        ("live", 1.0, '"When did it open?"'),
    ]
    assert rows[0][1] == "req-7" and all(r[5] > 0 for r in rows)
    stats = monitor.stats()
    assert (stats.seen, stats.sampled, stats.scored, stats.failed, stats.dropped) == (2, 2, 2, 0, 0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread has a priority of its own on Linux")
def test_the_scoring_thread_yields_the_cpu_and_the_app_keeps_its_priority(
    live_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    app = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    monitor = monitor_for(live_server, tmp_path / "live.db")
    assert monitor.record(input="q", output="The bridge opened in 1932.")
    assert monitor.flush(timeout=10)
    worker = monitor._worker.thread.native_id  # type: ignore[attr-defined]
    assert worker is not None and os.getpriority(os.PRIO_PROCESS, worker) == min(app + NICENESS, 19) > app
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == app
    assert monitor.close()


def test_close_closes_the_store_it_opened_and_leaves_a_given_one_open(
    live_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    given = SQLiteStore(tmp_path / "given.db")
    own = monitor_for(live_server, tmp_path / "own.db")
    theirs = Monitor([create_faithfulness_scorer(judge_for(live_server), context=CONTEXT)], store=given)
    for monitor in (own, theirs):
        assert monitor.record(input="q", output="The bridge opened in 1932.") and monitor.close(timeout=10)
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        own.store.migrations()  # type: ignore[union-attr]
    assert theirs.store is given and given.list_runs(source="live")[0].score == 1.0
    given.close()


def test_sampling_rate_within_bounds_and_deterministic_by_trace(tmp_path: Path) -> None:
    sampling = Sampling(rate=0.1, by_trace=False, seed=7)
    chosen = sum(bool(sampling.chosen(["f"], {"trace_id": None})) for _ in range(1000))
    assert 70 <= chosen <= 130  # binomial(1000, 0.1): mean 100, sd 9.5; the seed fixes the outcome
    by_trace = Sampling(rate=0.5, per_scorer={"h": 0.2})
    for trace in (f"trace-{i}" for i in range(200)):
        first = by_trace.chosen(["f", "h"], {"trace_id": trace})
        assert first == by_trace.chosen(["f", "h"], {"trace_id": trace})  # the same trace decides alike
        assert "h" not in first or "f" in first  # a trace sampled at 0.2 is sampled at 0.5 too
    flagged = Sampling(rate=0.0, always=lambda record: record["metadata"].get("vip", False))
    assert flagged.chosen(["f"], {"trace_id": "t", "metadata": {"vip": True}}) == ["f"]
    with pytest.raises(ValueError, match="between 0 and 1"):
        Sampling(rate=1.5)


def test_full_queue_drops_and_counts(live_server: FakeOpenAIServer, tmp_path: Path) -> None:
    live_server.delay = 0.3
    monitor = monitor_for(live_server, tmp_path / "live.db", queue_size=2, concurrency=1)
    started = time.perf_counter()
    queued = [monitor.record(input=f"q{i}", output="The bridge opened in 1932.") for i in range(8)]
    assert time.perf_counter() - started < 0.5  # recording never waits for the judge
    stats = monitor.stats()
    assert stats.dropped == queued.count(False) >= 5 and stats.sampled == queued.count(True)
    assert monitor.close(timeout=20)
    assert monitor.stats().scored == stats.sampled and len(stored(tmp_path / "live.db")) == stats.sampled


def test_judge_down_leaves_the_app_alone_and_stores_failures(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda request: Reply(status=503)) as down:
        monitor = monitor_for(down, tmp_path / "live.db")

        @monitor.watch
        def answer(question: str) -> str:
            return "The bridge opened in 1932."

        assert [answer(f"q{i}") for i in range(3)] == ["The bridge opened in 1932."] * 3
        assert monitor.flush(timeout=20)
    rows = stored(tmp_path / "live.db")
    assert len(rows) == 3 and all(r[3].startswith("JudgeConnectionError") and r[4] == "preprocess" for r in rows)
    assert monitor.stats().failed == 3 and SECRET_KEY not in str(rows)


def test_output_that_is_not_text_is_a_stored_failure(live_server: FakeOpenAIServer, tmp_path: Path) -> None:
    monitor = monitor_for(live_server, tmp_path / "live.db")

    @monitor.watch
    def answer(question: str) -> object:
        return {"unexpected": 1}

    assert answer("q") == {"unexpected": 1}
    assert monitor.flush(timeout=10)
    (row,) = stored(tmp_path / "live.db")
    assert row[3].startswith("TypeError: output must be a string") and row[2] is None


def test_cost_from_usage_and_prices_and_budget_stops_scoring(
    live_server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prices, "PRICES", prices.PriceTable())  # set_prices is process-wide: undone after the test
    set_prices({"live-judge": (1000.0, 2000.0)})  # dollars per million tokens: large, to cross the cap fast
    db = tmp_path / "live.db"
    monitor = monitor_for(live_server, db, budget=Budget(usd_per_hour=0.5))
    monitor.record(input="q0", output="The bridge opened in 1932.")
    assert monitor.flush(timeout=10)
    (row,) = stored(db)
    usage = SQLiteStore(db).list_runs(source="live")[0].usage
    tokens = sum(u["prompt_tokens"] * 1000 + u["completion_tokens"] * 2000 for u in usage.values()) / 1e6
    assert row[6] == pytest.approx(tokens) and row[6] > 0.5 and monitor.stats().spend_usd == pytest.approx(tokens)
    assert sum(u["cost_usd"] for u in usage.values()) == pytest.approx(tokens)  # per step, summing to the run
    assert [monitor.record(input=f"q{i}", output="The bridge opened in 1932.") for i in range(1, 4)] == [False] * 3
    assert monitor.stats().skipped_budget == 3 and monitor.close()


def test_unknown_price_is_unknown_not_zero(live_server: FakeOpenAIServer, tmp_path: Path) -> None:
    judge = Judge("unpriced-model", base_url=live_server.base_url, api_key="x")
    scorer = create_faithfulness_scorer(judge, context=CONTEXT, reason="template")
    monitor = Monitor([scorer], store=tmp_path / "live.db")
    monitor.record(input="q", output="The bridge opened in 1932.")
    assert monitor.flush(timeout=10)
    assert stored(tmp_path / "live.db")[0][6] is None and monitor.stats().spend_usd is None


def test_cli_live_summary_and_runs_filter(live_server: FakeOpenAIServer, tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    monitor = monitor_for(live_server, db)
    for i, year in enumerate((1932, 1932, 1950, 1932)):
        monitor.record(input=f"q{i}", output=f"The bridge opened in {year}.", trace_id=f"t{i}")
    assert monitor.close(timeout=20)
    env = {**os.environ, "COLUMNS": "200"}

    def troth(*args: str) -> str:
        proc = subprocess.run(
            [sys.executable, "-m", "troth", *args, "--store", str(db)],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    out = troth("live", "--since", "1h", "--threshold", "0.5")
    row = next(line for line in out.splitlines() if "faithfulness" in line and "│" in line)
    assert [c.strip() for c in row.split("│")[1:-1]] == ["faithfulness", "4", "0", "0.750", "0.000", "25%", "unknown"]
    assert "faithfulness 0  trace t2" in out  # the worst item, with its reason
    assert "t2" in troth("runs", "list", "--source", "live") and "t2" not in troth("runs", "list", "--source", "eval")
    assert "no live runs since 2099-01-01" in troth("live", "--since", "2099-01-01")
    troth("live", "--report", str(tmp_path / "live.html"))
    page = (tmp_path / "live.html").read_text(encoding="utf-8")
    assert page.count("<circle") == 4 and "<polyline" in page and 'aria-label="score over time"' in page
    assert page.index("trace t2") < page.index("trace t0")  # worst answers first
    assert "The bridge opened in 1950." in page and SECRET_KEY not in page


def test_budget_windows_slide() -> None:
    budget = Budget(usd_per_hour=1.0, calls_per_minute=3)
    budget.charge(0.6, 2, now=0.0)
    assert budget.allows(now=1.0)
    budget.charge(None, 1, now=2.0)  # unknown cost: counts as calls only
    assert not budget.allows(now=3.0)  # 3 calls in the last minute
    assert budget.allows(now=62.5)  # the calls left the window
    budget.charge(0.5, 0, now=63.0)
    assert not budget.allows(now=64.0) and budget.allows(now=3601.0)  # $1.1 in the hour, then it slid out
    with pytest.raises(ValueError, match="usd_per_hour"):
        Budget(usd_per_hour=-1)


def app_that_exits(server: FakeOpenAIServer, db: Path, calls: int, **monitor: Any) -> subprocess.CompletedProcess[str]:
    """A script that queues ``calls`` differing calls (the judge's memory cannot answer one for
    another), prints "app done" and exits; the Monitor gets ``monitor`` as keyword arguments."""
    script = textwrap.dedent(f"""
        import logging
        from troth import Judge, Monitor, create_faithfulness_scorer
        logging.basicConfig(level=logging.WARNING)
        judge = Judge("j", base_url="{server.base_url}", api_key="x", timeout=30)
        scorer = create_faithfulness_scorer(judge, context=["The bridge opened in 1932."], reason="template")
        monitor = Monitor([scorer], store={str(db)!r}, **{monitor!r})
        for i in range({calls}):
            monitor.record(input=str(i), output=f"The bridge opened in 1932. Call {{i}}.")
        print("app done")
    """)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)


def test_exit_with_a_full_queue_flushes_bounded_and_logs_what_is_left(tmp_path: Path) -> None:
    with FakeOpenAIServer(SCRIPT) as slow:
        slow.delay = 1.0
        started = time.perf_counter()
        proc = app_that_exits(slow, tmp_path / "exit.db", 5, exit_timeout=0.5, concurrency=1)
    assert proc.returncode == 0 and proc.stdout.strip() == "app done"
    assert time.perf_counter() - started < 20  # the exit waited about exit_timeout, not for every judge call
    rows = stored(tmp_path / "exit.db") if (tmp_path / "exit.db").exists() else []
    seen = f"stderr: {proc.stderr!r}; stored before exit: {[(r[2], r[3], r[4]) for r in rows]}"
    assert "sampled call(s) not scored at exit" in proc.stderr and "Traceback" not in proc.stderr, seen


def test_exit_flush_scores_calls_queued_just_before_the_interpreter_exits(tmp_path: Path) -> None:
    with FakeOpenAIServer(SCRIPT) as judge_server:
        judge_server.delay = 0.2
        proc = app_that_exits(judge_server, tmp_path / "exit.db", 4, exit_timeout=20, concurrency=2)
    assert proc.returncode == 0 and proc.stdout.strip() == "app done" and proc.stderr == ""
    rows = stored(tmp_path / "exit.db")
    assert [(r[7], r[3]) for r in rows] == [(f'"{i}"', None) for i in range(4)]  # scored, none failed
    assert all(r[2] is not None for r in rows)


def scored_once(scorers: list[Any], db: Path) -> tuple[Any, ...]:
    """Watch a function with ``scorers``, call it once, and return the one stored row."""
    monitor = Monitor(scorers, store=db)

    @monitor.watch
    def answer(question: str) -> str:
        return "The bridge opened in 1932."

    assert answer("q") == "The bridge opened in 1932."
    assert monitor.flush(timeout=20) and monitor.close()
    with sqlite3.connect(db) as conn:
        (row,) = conn.execute("SELECT score, reason, error, error_step FROM runs")
    return tuple(row)


def test_garbage_answers_and_a_raising_scorer_are_stored_failures(tmp_path: Path) -> None:
    def boom(ctx: Any) -> str:
        raise RuntimeError("scorer bug")

    raising = create_scorer(id="raising", description="raises").preprocess(boom).generate_score(lambda ctx: 1.0)
    assert scored_once([raising], tmp_path / "raising.db") == (None, None, "RuntimeError: scorer bug", "preprocess")
    with FakeOpenAIServer(lambda request: Reply(content="not json at all")) as garbage:
        score, _, error, step = scored_once(
            [create_faithfulness_scorer(judge_for(garbage), context=CONTEXT)], tmp_path / "garbage.db"
        )
    assert (score, step) == (None, "preprocess") and error.startswith("JudgeOutputError") and "not valid JSON" in error


def test_a_call_with_no_context_gets_the_documented_result(live_server: FakeOpenAIServer, tmp_path: Path) -> None:
    score, reason, error, _ = scored_once([create_faithfulness_scorer(judge_for(live_server))], tmp_path / "n.db")
    assert (score, error) == (0.0, None) and "no context" in reason.lower()


def test_calls_from_many_threads_are_all_counted_and_stored(live_server: FakeOpenAIServer, tmp_path: Path) -> None:
    # on a busy machine a loopback call may take over 2 s: this test is about counting, not timeouts
    scorer = create_faithfulness_scorer(judge_for(live_server, timeout=30), context=CONTEXT, reason="template")
    monitor = Monitor([scorer], store=tmp_path / "live.db", queue_size=200)

    @monitor.watch(trace_id="trace")
    def answer(question: str, trace: str) -> str:
        return "The bridge opened in 1932."

    threads = [
        threading.Thread(target=lambda k=k: [answer("q", trace=f"t{k}-{i}") for i in range(10)]) for k in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert monitor.flush(timeout=30) and monitor.close()
    rows = stored(tmp_path / "live.db")
    unscored = [(r[1], r[2], r[3], r[4]) for r in rows if r[2] != 1.0]  # trace, score, error, step
    assert len({r[1] for r in rows}) == 80 and not unscored, unscored[:3]
    stats = monitor.stats()
    assert (stats.seen, stats.sampled, stats.scored, stats.dropped) == (80, 80, 80, 0)
