"""What a Monitor adds to a watched endpoint, and whether it keeps up.

    python -m bench.live_latency                # 3 x 2 rounds of 10 s at 50 req/s, then 60 s at 0.1
    python -m bench.live_latency --quick        # 2 s rounds, 10 s soak

The example app (examples/live_app.py) runs on uvicorn on loopback three ways — without a
monitor, sampling 1.0, sampling 0.1 — against a loopback model server (the agent's model answers
in ``--model-latency`` s, the judge in ``--judge-latency`` s). Open-loop load at ``--rate``
requests/s; the configurations alternate in rounds, side by side in one run. Reported: p50 and
p99 latency of the endpoint per configuration and what the monitor adds to each; then a soak at
sampling 0.1: calls dropped, sampled calls not stored after the flush (lost), and RSS over time.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import platform
import resource
import socket
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from bench.common import RESULTS, fmt, table, write_results
from troth import Judge
from troth.testing import FakeOpenAIServer, Reply, ScriptedJudge
from troth.testing.server import Request

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from examples.live_app import create_app


def responder(model_latency: float, judge_latency: float) -> Any:
    judge = ScriptedJudge(verdicts={"1932": ("yes", "opened in 1932")})

    def answer(request: Request) -> Reply:
        if request.body.get("model") == "agent-model":
            return Reply(content="The Harbour Bridge opened in 1932.", delay=model_latency)
        reply = judge(request)
        reply.delay = judge_latency
        return reply

    return answer


@contextmanager
def serve(app: Any) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


async def load(base: str, rate: float, seconds: float) -> list[float]:
    """Open-loop POSTs at ``rate`` per second for ``seconds``; each request's latency (s)."""
    latencies: list[float] = []
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as http:

        async def one() -> None:
            started = time.perf_counter()
            reply = await http.post("/agent", json={"question": "When did the bridge open?"})
            reply.raise_for_status()
            latencies.append(time.perf_counter() - started)

        tasks, start = [], time.perf_counter()
        for n in range(int(rate * seconds)):
            await asyncio.sleep(max(0.0, start + n / rate - time.perf_counter()))
            tasks.append(asyncio.create_task(one()))
        await asyncio.gather(*tasks)
    return latencies


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**20


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=float, default=50.0)
    parser.add_argument("--round-s", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--soak-s", type=float, default=60.0)
    parser.add_argument("--model-latency", type=float, default=0.02)
    parser.add_argument("--judge-latency", type=float, default=0.3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if args.quick:
        args.round_s, args.rounds, args.soak_s = 2.0, 1, 10.0
    report: dict[str, Any] = {"date": dt.datetime.now().isoformat(timespec="seconds"), "machine": platform.platform(),
                              "settings": {k: v for k, v in vars(args).items() if k != "out"}}  # fmt: skip
    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeOpenAIServer(responder(args.model_latency, args.judge_latency), record=False) as models,
    ):
        report["latency"] = side_by_side(args, models, Path(tmp))
        report["soak"] = soak(args, models, Path(tmp) / "soak.db")
    stem = args.out or RESULTS / f"live-latency-{dt.date.today().isoformat()}"
    write_results(stem, report, markdown(report))
    print(markdown(report))
    return 0


def make_app(models: FakeOpenAIServer, sampling: float | None, db: Path) -> Any:
    judge = Judge("judge", base_url=models.base_url, api_key="x", timeout=10) if sampling is not None else None
    return create_app(agent_base_url=models.base_url, agent_model="agent-model", judge=judge, sampling=sampling or 1.0,
                      store=db)  # fmt: skip


def side_by_side(args: argparse.Namespace, models: FakeOpenAIServer, tmp: Path) -> dict[str, Any]:
    configs = {"no monitor": None, "sampling 1.0": 1.0, "sampling 0.1": 0.1}
    latencies: dict[str, list[float]] = {name: [] for name in configs}
    for r in range(args.rounds):
        for name, sampling in configs.items():
            app = make_app(models, sampling, tmp / f"{r}-{name}.db")
            with serve(app) as url:
                asyncio.run(load(url, args.rate, 1.0))  # warm-up (connections, imports, first judge calls): dropped
                latencies[name] += asyncio.run(load(url, args.rate, args.round_s))
            print(f"round {r} {name}: {len(latencies[name])} requests", file=sys.stderr, flush=True)
    base = latencies["no monitor"]
    out = {}
    for name, values in latencies.items():
        out[name] = {"requests": len(values), "p50_ms": pct(values, 0.5), "p99_ms": pct(values, 0.99),
                     "added_p50_ms": pct(values, 0.5) - pct(base, 0.5),
                     "added_p99_ms": pct(values, 0.99) - pct(base, 0.99),
                     "mean_ms": statistics.fmean(values) * 1000}  # fmt: skip
    return out


def soak(args: argparse.Namespace, models: FakeOpenAIServer, db: Path) -> dict[str, Any]:
    app = make_app(models, 0.1, db)
    samples: list[tuple[float, float]] = []
    stop = threading.Event()

    def sample() -> None:
        started = time.monotonic()
        while not stop.wait(2.0):
            samples.append((round(time.monotonic() - started, 1), round(rss_mb(), 1)))

    sampler = threading.Thread(target=sample, daemon=True)
    with serve(app) as base:
        sampler.start()
        latencies = asyncio.run(load(base, args.rate, args.soak_s))
        flushed = app.state.monitor.flush(timeout=60)
        stop.set()
        stats = app.state.monitor.stats()
    with sqlite3.connect(db) as conn:
        stored = conn.execute("SELECT count(*) FROM runs WHERE source = 'live'").fetchone()[0]
    return {"requests": len(latencies), "seen": stats.seen, "sampled": stats.sampled, "dropped": stats.dropped,
            "scored": stats.scored, "failed": stats.failed, "stored": stored, "lost": stats.sampled - stored,
            "flushed": flushed, "p99_ms": pct(latencies, 0.99), "rss_mb": samples}  # fmt: skip


def markdown(report: dict[str, Any]) -> str:
    s = report["settings"]
    cols = ["requests", "p50_ms", "p99_ms", "added_p50_ms", "added_p99_ms"]
    rows = ([name, *(fmt(v[c], 2) for c in cols)] for name, v in report["latency"].items())
    soak = report["soak"]
    rss = [m for _, m in soak["rss_mb"]]
    lines = [
        f"Live monitor, {report['date']}, {report['machine']}: {s['rate']:g} req/s, model {s['model_latency']:g} s, "
        f"judge {s['judge_latency']:g} s, {s['rounds']} round(s) of {s['round_s']:g} s per configuration.",
        "", *table(["configuration", *cols], rows), "",
        f"Soak at sampling 0.1, {s['soak_s']:g} s: {soak['requests']} requests, {soak['sampled']} sampled, "
        f"{soak['dropped']} dropped, {soak['stored']} stored, {soak['lost']} lost, flushed {soak['flushed']}; "
        f"RSS {rss[0] if rss else '-'} -> {rss[-1] if rss else '-'} MB "
        f"(min {min(rss, default=0)}, max {max(rss, default=0)}).",
    ]  # fmt: skip
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
