"""The Ray engine against the loopback judge: same results as the local runner, a worker that
dies, resume, bad rows, the shared rate limit."""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from troth import Judge, MissingDependencyError, RateLimit, RayEngine, create_faithfulness_scorer, run_evals
from troth.scorers.base import Scorer
from troth.testing import FakeOpenAIServer
from troth.testing.server import Reply, Request, ScriptedJudge

SCRIPT = ScriptedJudge(verdicts={"paris": ("yes", "Paris is big"), "rome": ("no", "")}, default=("unsure", ""))


def dataset(n: int) -> list[dict[str, Any]]:
    outputs = ["Paris is big.", "Paris is big. Rome is small.", "Rome is small. Oslo is cold.", "Oslo is cold."]
    return [{"id": f"i{i}", "input": "q", "output": outputs[i % 4], "context": ["Paris is big."]} for i in range(n)]


def scorer(server: FakeOpenAIServer) -> Scorer:
    return create_faithfulness_scorer(Judge("fake", base_url=server.base_url, api_key="k", timeout=10))


def verdicts(result: dict[str, Any]) -> list[str]:
    return [v["verdict"] for v in result["analyze_step_result"]["verdicts"]]


def stored_keys(db: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as conn:
        return [tuple(r) for r in conn.execute("SELECT item_id, scorer_id FROM runs WHERE error IS NULL")]


@pytest.fixture
def server() -> Any:
    with FakeOpenAIServer(SCRIPT, record=False) as srv:
        yield srv


def test_same_scores_and_verdicts_as_the_local_runner(
    ray_cluster: Any, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    data = dataset(200)
    local = run_evals(data, scorer(server), store=None, quiet=True)
    db = tmp_path / "t.db"
    engine = RayEngine(workers=2, concurrency_per_worker=4)
    on_ray = run_evals(data, scorer(server), store=db, quiet=True, engine=engine)
    assert on_ray.summary.failed_items == 0 and on_ray.summary.total_items == 200
    assert on_ray.scores == local.scores and on_ray.scores["faithfulness"] == pytest.approx(0.375)

    def view(result: Any) -> dict[str, Any]:
        return {
            it.id: (it.results["faithfulness"].score, verdicts(it.results["faithfulness"].to_dict()))
            for it in result.items
        }

    assert view(on_ray) == view(local)
    assert view(on_ray)["i1"] == (0.5, ["yes", "no"])
    keys = stored_keys(db)
    assert sorted(keys) == sorted({(f"i{i}", "faithfulness") for i in range(200)})
    # each worker's judge answers repeats of a request from its own memory: a few more calls than one process
    assert local.summary.judge_calls <= on_ray.summary.judge_calls <= local.summary.judge_calls + 2 * 8


def crash_once_target(marker: str, kill_at: str) -> Any:
    """A target that kills the Ray actor it runs in the first time it sees ``kill_at``."""

    def target(value: str) -> str:
        if value == kill_at and not Path(marker).exists():
            import ray

            Path(marker).write_text("killed")
            ray.kill(ray.get_runtime_context().current_actor, no_restart=False)
        return f"Paris is big. Answer {value}."

    return target


def test_an_actor_killed_mid_run_loses_nothing_and_stores_each_item_once(
    ray_cluster: Any, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    data = [{"id": f"i{i}", "input": f"q{i}", "context": ["Paris is big."]} for i in range(120)]
    marker, db = tmp_path / "killed", tmp_path / "t.db"
    target = crash_once_target(str(marker), kill_at="q60")
    result = run_evals(
        data,
        scorer(server),
        target,
        store=db,
        quiet=True,
        engine=RayEngine(workers=2, concurrency_per_worker=4, batch_size=8),
    )
    assert marker.read_text() == "killed"  # the actor did die
    assert result.summary.failed_items == 0
    assert sorted(it.id for it in result.items) == sorted(d["id"] for d in data)
    keys = stored_keys(db)
    assert len(keys) == len(set(keys)) == 120
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 120


def test_an_interrupted_run_resumes_by_eval_id(ray_cluster: Any, server: FakeOpenAIServer, tmp_path: Path) -> None:
    data, db = dataset(100), tmp_path / "t.db"
    seen: list[str] = []

    def stop_after_30(item: Any, target_output: Any, results: Any) -> None:
        seen.append(item.id)
        if len(seen) == 30:
            raise KeyboardInterrupt

    engine = RayEngine(workers=2, concurrency_per_worker=4, batch_size=5)
    with pytest.raises(KeyboardInterrupt):
        run_evals(
            data, scorer(server), on_item_complete=stop_after_30, store=db, eval_id="e1", quiet=True, engine=engine
        )
    first = len(stored_keys(db))
    assert first >= 29
    served = settled(server)  # batches already on the workers finish there (their results are not kept)
    again = run_evals(data, scorer(server), store=db, eval_id="e1", quiet=True, engine=engine)
    assert again.summary.resumed_items == first and again.summary.failed_items == 0
    assert sorted(stored_keys(db)) == sorted({(d["id"], "faithfulness") for d in data})
    assert again.scores["faithfulness"] == pytest.approx(0.375)
    calls_per_item = again.summary.judge_calls / (100 - first)
    assert server.served - served == pytest.approx(calls_per_item * (100 - first))


def settled(server: FakeOpenAIServer) -> int:
    """The server's request count once no request has come for 1.5 s (at most 20 s): a loaded
    machine can leave half a second between a worker's last requests."""
    deadline, quiet = time.monotonic() + 20, 0
    count = server.served
    while time.monotonic() < deadline and quiet < 3:
        time.sleep(0.5)
        quiet = quiet + 1 if server.served == count else 0
        count = server.served
    return count


def test_jsonl_and_parquet_files_are_read_on_the_cluster_with_bad_rows_kept_as_failures(
    ray_cluster: Any, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    rows = dataset(20)
    path = tmp_path / "d.jsonl"
    lines = [json.dumps(r) for r in rows] + ["", "{not json", json.dumps({"input": "q", "output": "no id"})]
    path.write_text("\n".join(lines) + "\n")
    result = run_evals(path, scorer(server), store=None, quiet=True, engine=RayEngine(workers=1))
    failed = [it for it in result.items if it.failed]
    assert result.summary.total_items == 22 and len(failed) == 2
    assert {it.errors["data"].step for it in failed} == {"data"}
    assert any("has no 'id'" in it.errors["data"].message for it in failed)
    assert result.scores["faithfulness"] == pytest.approx(0.375)

    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "d.parquet")
    table = run_evals(tmp_path / "d.parquet", scorer(server), store=None, quiet=True, engine=RayEngine(workers=1))
    assert table.summary.total_items == 20 and table.summary.failed_items == 0
    assert {it.id: it.results["faithfulness"].score for it in table.items} == {
        it.id: it.results["faithfulness"].score for it in result.items if not it.failed
    }


class Clocked:
    """A responder that notes when each request arrived."""

    def __init__(self) -> None:
        self.times: list[float] = []

    def __call__(self, request: Request) -> Reply:
        self.times.append(time.monotonic())
        return SCRIPT(request)


def busiest_second(times: list[float]) -> int:
    times = sorted(times)
    return max(sum(1 for t in times if start <= t < start + 1.0) for start in times)


def test_the_shared_rate_limit_holds_the_cluster_under_the_cap(ray_cluster: Any, tmp_path: Path) -> None:
    clock = Clocked()
    with FakeOpenAIServer(clock, record=False) as srv:
        engine = RayEngine(workers=2, concurrency_per_worker=8, batch_size=8)
        run_evals(dataset(16), scorer(srv), store=None, quiet=True, engine=engine)
        unpaced = busiest_second(clock.times)
        clock.times.clear()
        result = run_evals(
            dataset(16),
            scorer(srv),
            store=None,
            quiet=True,
            engine=engine,
            rate_limit=RateLimit(requests_per_minute=300),
        )
    assert result.summary.failed_items == 0
    assert unpaced > 10  # without the limit the two workers go faster than the cap
    # Starts are booked 0.2 s apart; a request reaches the server a little after its start, by
    # however long the worker's loop and HTTP take then. So a second holds 5, +1 for a window
    # that holds both ends, +1 for a request late by up to 0.05 s (a start passed by more is
    # booked again: CI once saw four late requests go out within 1 ms of each other before that).
    assert busiest_second(clock.times) <= 7
    span = max(clock.times) - min(clock.times)
    assert span >= (len(clock.times) - 1) / 5 - 0.3


def test_without_ray_installed_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch, server: Any) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(MissingDependencyError, match=r'pip install "troth\[ray\]"'):
        run_evals(dataset(2), scorer(server), store=None, quiet=True, engine=RayEngine())


def test_a_target_that_cannot_be_pickled_is_a_clear_error(ray_cluster: Any, server: FakeOpenAIServer) -> None:
    import threading

    lock = threading.Lock()

    def target(value: str) -> str:
        with lock:
            return value

    data = [{"id": "a", "input": "q"}]
    with pytest.raises(TypeError, match="must pickle to run on Ray"):
        run_evals(data, scorer(server), target, store=None, quiet=True, engine=RayEngine(workers=1))


def test_engine_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="workers must be a positive integer"):
        RayEngine(workers=0)
    with pytest.raises(TypeError, match="engine must be an engine"):
        judge = Judge("fake", base_url="http://127.0.0.1:9", api_key="k")
        run_evals([{"output": "x"}], create_faithfulness_scorer(judge), engine="ray", store=None)  # type: ignore[arg-type]


def test_a_ray_run_can_write_parquet(ray_cluster: Any, server: FakeOpenAIServer, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    folder = tmp_path / "runs.parquet"
    result = run_evals(dataset(40), scorer(server), store=str(folder), quiet=True, engine=RayEngine(workers=2))
    table = pq.read_table(folder)
    assert table.num_rows == 40 and len(set(table.column("item_id").to_pylist())) == 40
    assert sum(table.column("score").to_pylist()) / 40 == result.scores["faithfulness"] == pytest.approx(0.375)


def test_the_driver_keeps_an_item_once_and_fails_a_second_item_with_its_id() -> None:
    import asyncio

    from troth.engines.base import EvalJob
    from troth.engines.item import Outcome
    from troth.engines.ray import Collector
    from troth.evals.entries import ScorerEntry
    from troth.evals.item import Item

    entry = ScorerEntry(create_faithfulness_scorer(Judge("fake", base_url="http://127.0.0.1:9", api_key="k")))
    job = EvalJob(None, [entry], None, None, None, "e", 1, None, quiet=True)
    collector = Collector(job, {}, None)

    def outcome(output: str, context: list[str]) -> Outcome:
        return Outcome(Item("a", "q", output, context))

    async def take_in() -> None:
        await collector.add(outcome("x", ["c"]))
        await collector.add(outcome("y", ["c"]))  # scored again after a worker died: the same item
        await collector.add(outcome("x", ["other"]))  # another item under the same id

    asyncio.run(take_in())
    assert [(r.id, sorted(r.errors)) for r in collector.results] == [("a", []), ("a (duplicate 1)", ["data"])]
    assert collector.results[1].errors["data"].message == "duplicate id 'a'"
