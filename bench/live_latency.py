"""What a Monitor adds to a watched endpoint, and whether it keeps up.

    python -m bench.live_latency                # 3 x 6 rounds of 10 s at 50 req/s, then 60 s at 0.1
    python -m bench.live_latency --quick        # 2 s rounds, 10 s soak
    python -m bench.live_latency --soak-only --soak-s 600   # a longer soak alone

The example app (examples/live_app.py) runs on uvicorn on loopback six ways (without a
monitor, twice, so that the second shows the noise; sampling 1.0 and 0.1 with the monitor
scoring in a thread; the same in a process)
against a loopback model server (the agent's model answers in ``--model-latency`` s, the judge
in ``--judge-latency`` s). The model server, the app and the load generator are three
processes, so that only the monitor shares the app's interpreter. Open-loop load at ``--rate``
requests/s; the configurations alternate in rounds, side by side. Reported: p50 and p99 latency
of the endpoint per configuration and what the monitor adds to each (pooled; the median of the
per-round p99s; and paired, each round against the same round without a monitor); then a soak at sampling
0.1 (``--soak-isolate``, default process): calls dropped, sampled calls not stored after the
flush (lost), and the RSS of the app and its children over time.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import platform
import socket
import sqlite3
import statistics
import subprocess
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

from bench.common import RESULTS, fmt, rss_mb, table, write_results
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


def child(argv: list[str]) -> int:
    """``models PORT_FILE`` or ``app MODELS_URL SAMPLING DB``: a server process; prints its URL."""
    args = parse(argv)
    if args.role == "models":
        with FakeOpenAIServer(responder(args.model_latency, args.judge_latency), record=False) as models:
            print(models.base_url, flush=True)
            sys.stdin.read()  # until the parent closes our stdin
        return 0
    sampling = None if args.sampling == "none" else float(args.sampling)
    with serve(make_app(args.models, sampling, Path(args.db), args.isolate)) as url:
        print(url, flush=True)
        sys.stdin.read()
    return 0


@contextmanager
def process(*role: str, args: argparse.Namespace) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """A server process of this script; yields its URL and the process (stopped on exit)."""
    argv = [
        sys.executable,
        "-m",
        "bench.live_latency",
        "--child",
        *role,
        "--model-latency",
        str(args.model_latency),
        "--judge-latency",
        str(args.judge_latency),
    ]
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip(), proc
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=60)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=float, default=50.0)
    parser.add_argument("--round-s", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--soak-s", type=float, default=60.0)
    parser.add_argument("--warmup-s", type=float, default=1.0, help="load before each round, not measured")
    parser.add_argument("--model-latency", type=float, default=0.02)
    parser.add_argument("--judge-latency", type=float, default=0.3)
    parser.add_argument("--soak-isolate", choices=["thread", "process"], default="process")
    parser.add_argument("--soak-only", action="store_true", help="only the soak (e.g. --soak-s 600)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        args.role, rest = args.child[0], args.child[1:]
        if args.role == "app":
            args.models, args.sampling, args.db, args.isolate = rest
    if args.quick:
        args.round_s, args.rounds, args.soak_s = 2.0, 1, 10.0
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.child:
        return child(argv or sys.argv[1:])
    settings = {k: v for k, v in vars(args).items() if k not in ("out", "child")}
    report: dict[str, Any] = {
        "date": dt.datetime.now().isoformat(timespec="seconds"),
        "machine": platform.platform(),
        "settings": settings,
    }
    with tempfile.TemporaryDirectory() as tmp, process("models", args=args) as (models, _):
        if not args.soak_only:
            report["latency"] = side_by_side(args, models, Path(tmp))
        report["soak"] = soak(args, models, Path(tmp) / "soak.db")
    suffix = f"-soak-{args.soak_s:g}s" if args.soak_only else ""
    stem = args.out or RESULTS / f"live-latency-{dt.date.today().isoformat()}{suffix}"
    write_results(stem, report, markdown(report))
    print(markdown(report))
    return 0


def make_app(models: str, sampling: float | None, db: Path, isolate: str) -> Any:
    judge = Judge("judge", base_url=models, api_key="x", timeout=10) if sampling is not None else None
    return create_app(
        agent_base_url=models,
        agent_model="agent-model",
        judge=judge,
        sampling=sampling or 1.0,
        store=db,
        isolate="process" if isolate == "process" else "thread",
    )


def side_by_side(args: argparse.Namespace, models: str, tmp: Path) -> dict[str, Any]:
    configs = {
        "no monitor": ("none", "thread"),
        "no monitor, again (noise)": ("none", "thread"),
        "thread, sampling 1.0": ("1.0", "thread"),
        "thread, sampling 0.1": ("0.1", "thread"),
        "process, sampling 1.0": ("1.0", "process"),
        "process, sampling 0.1": ("0.1", "process"),
    }
    latencies: dict[str, list[float]] = {name: [] for name in configs}
    p99s: dict[str, list[float]] = {name: [] for name in configs}
    for r in range(args.rounds):
        for name, (sampling, isolate) in configs.items():
            db = str(tmp / f"{r}-{sampling}-{isolate}.db")
            with process("app", models, sampling, db, isolate, args=args) as (url, _):
                asyncio.run(load(url, args.rate, args.warmup_s))  # connections, imports, the scoring's start: dropped
                got = asyncio.run(load(url, args.rate, args.round_s))
            latencies[name] += got
            p99s[name].append(pct(got, 0.99))
            print(f"round {r} {name}: p99 {pct(got, 0.99):.2f} ms", file=sys.stderr, flush=True)
    base = latencies["no monitor"]
    out = {}
    for name, values in latencies.items():
        out[name] = {
            "requests": len(values),
            "p50_ms": pct(values, 0.5),
            "p99_ms": pct(values, 0.99),
            "added_p50_ms": pct(values, 0.5) - pct(base, 0.5),
            "added_p99_ms": pct(values, 0.99) - pct(base, 0.99),
            "median_round_p99_ms": statistics.median(p99s[name]),
            "added_median_round_p99_ms": statistics.median(p99s[name]) - statistics.median(p99s["no monitor"]),
            **paired(p99s[name], p99s["no monitor"]),
            "round_p99_ms": p99s[name],
            "mean_ms": statistics.fmean(values) * 1000,
        }
    return out


def paired(p99s: list[float], base: list[float]) -> dict[str, Any]:
    """Round by round, p99 minus the same round's p99 without a monitor: the median, and how
    many rounds added more than 1 ms (the no-monitor rerun shows how many the noise gives)."""
    added = [a - b for a, b in zip(p99s, base, strict=True)]
    return {"added_p99_paired_median_ms": statistics.median(added), "rounds_over_1ms": sum(a > 1.0 for a in added)}


def soak(args: argparse.Namespace, models: str, db: Path) -> dict[str, Any]:
    samples: list[tuple[float, float]] = []
    with process("app", models, "0.1", str(db), args.soak_isolate, args=args) as (url, proc):
        stop = threading.Event()

        def sample() -> None:
            started = time.monotonic()
            while not stop.wait(2.0):
                samples.append((round(time.monotonic() - started, 1), round(tree_rss_mb(proc.pid), 1)))

        threading.Thread(target=sample, daemon=True).start()
        latencies = asyncio.run(load(url, args.rate, args.soak_s))
        stats = drained_stats(url)
        stop.set()
    with sqlite3.connect(db) as conn:
        stored = conn.execute("SELECT count(*) FROM runs WHERE source = 'live'").fetchone()[0]
    return {
        "requests": len(latencies),
        **stats,
        "stored": stored,
        "lost": stats["sampled"] - stored,
        "p99_ms": pct(latencies, 0.99),
        "rss_mb": samples,
    }


def tree_rss_mb(pid: int) -> float:
    """RSS of a process and its children (a monitor's scoring process is the app's child)."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    kids = children.read_text().split() if children.exists() else []
    return rss_mb(pid) + sum(rss_mb(int(k)) for k in kids)


def drained_stats(url: str, timeout: float = 60.0) -> dict[str, Any]:
    """The app's monitor stats once its queue is empty and every sampled call is done."""
    deadline = time.monotonic() + timeout
    while True:
        stats: dict[str, Any] = httpx.get(f"{url}/stats").json()
        if stats["scored"] + stats["failed"] >= stats["sampled"] or time.monotonic() > deadline:
            return stats


def markdown(report: dict[str, Any]) -> str:
    s = report["settings"]
    cols = [
        "requests",
        "p50_ms",
        "p99_ms",
        "added_p50_ms",
        "added_p99_ms",
        "added_median_round_p99_ms",
        "added_p99_paired_median_ms",
        "rounds_over_1ms",
    ]
    rows = ([name, *(fmt(v.get(c), 2) for c in cols)] for name, v in report.get("latency", {}).items())
    soak = report["soak"]
    rss = [m for _, m in soak["rss_mb"]]
    lines = [
        f"Live monitor, {report['date']}, {report['machine']}: {s['rate']:g} req/s, model {s['model_latency']:g} s, "
        f"judge {s['judge_latency']:g} s, {s['rounds']} round(s) of {s['round_s']:g} s per configuration.",
        "",
        *(table(["configuration", *cols], rows) if "latency" in report else ["(soak only)"]),
        "",
        f"Soak at sampling 0.1 ({s['soak_isolate']}), {s['soak_s']:g} s: {soak['requests']} requests, "
        f"{soak['sampled']} sampled, "
        f"{soak['dropped']} dropped, {soak['stored']} stored, {soak['lost']} lost, {soak['failed']} failed; "
        f"RSS of the app and its children {rss[0] if rss else '-'} -> {rss[-1] if rss else '-'} MB "
        f"(min {min(rss, default=0)}, max {max(rss, default=0)}).",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
