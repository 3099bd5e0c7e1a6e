"""Ray scaling on this machine: the local runner vs the Ray engine with 1 and 2 workers.

    python -m bench.ray_scaling                 # 1000 items on the loopback judge, 300 on the verifier, 3 rounds
    python -m bench.ray_scaling --quick         # smoke run

Part 1, the loopback judge (an OpenAI-compatible server in this process, ``--delay`` seconds a
call): items/s of each engine on the same items, and Ray's added wall time per item against the
local runner at the same judge calls in flight (``--concurrency``; with 2 workers each worker
has that many, so it is also shown against the local runner at twice as many). Part 2, the
offline verifier (CPU-bound, one CPU per worker): claims/s with 1 and 2 workers and the local
runner. Part 3: items/s the driver takes in with SQLite and with Parquet (a cluster's ceiling),
and what two verifier processes at once give on this machine (its real parallelism).
Rounds run the engines in turn; the figures are medians over rounds. The cluster starts once
(its start time is reported apart). Writes JSON and Markdown to bench/results/.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import logging
import os
import pickle
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.common import DATA_DIR, RESULTS, fmt, table, write_results
from troth import EvalResult, Judge, RayEngine, create_faithfulness_scorer, run_evals
from troth.engines.base import EvalJob
from troth.engines.item import Outcome
from troth.engines.ray import Collector
from troth.evals.entries import ScorerEntry
from troth.evals.item import Item
from troth.evals.records import to_record
from troth.scorers.base import Scorer
from troth.store import ParquetStore, SQLiteStore
from troth.store.base import now
from troth.testing import FakeOpenAIServer
from troth.testing.server import Reply, Request, ScriptedJudge


def judge_items(n: int) -> list[dict[str, Any]]:
    """Distinct answers (no two judge requests alike), half with an unsupported claim."""
    return [
        {
            "id": f"j{i}",
            "input": f"q{i}",
            "context": ["Paris is big."],
            "output": f"Paris is big. Item {i} is odd." if i % 2 else f"Paris is big, says item {i}.",
        }
        for i in range(n)
    ]


def verifier_items(n: int) -> list[dict[str, Any]]:
    """The first ``n`` items of the shared WiCE dev file (context, output)."""
    rows = [json.loads(line) for line in (DATA_DIR / "wice-dev.jsonl").read_text().splitlines()[:n]]
    return [{"id": r["id"], "input": "", "output": r["output"], "context": r["context"]} for r in rows]


def claims(result: EvalResult) -> int:
    return sum(len(r.preprocess_step_result or []) for it in result.items for r in it.results.values())


def timed(run: Callable[[], EvalResult]) -> tuple[float, EvalResult]:
    clock = time.perf_counter()
    result = run()
    return time.perf_counter() - clock, result


def engines(concurrency: int, verifier: bool) -> dict[str, tuple[RayEngine | None, int]]:
    """name → (engine, local concurrency) for one part."""
    per = 1 if verifier else concurrency
    return {
        "local" if verifier else f"local ({concurrency} in flight)": (None, concurrency),
        **({} if verifier else {f"local ({2 * concurrency} in flight)": (None, 2 * concurrency)}),
        "ray, 1 worker": (RayEngine(workers=1, concurrency_per_worker=per), concurrency),
        "ray, 2 workers": (RayEngine(workers=2, concurrency_per_worker=per), concurrency),
    }


def part(
    name: str, make: Callable[[], Scorer], items: list[dict[str, Any]], args: argparse.Namespace, verifier: bool
) -> dict[str, Any]:
    """Every engine on ``items``, ``args.rounds`` times in turn; medians of wall time."""
    walls: dict[str, list[float]] = {}
    fixeds: dict[str, list[float]] = {}
    scores: dict[str, Any] = {}
    units = {}
    for r in range(args.rounds):
        for label, (engine, concurrency) in engines(args.concurrency, verifier).items():
            fixed, _ = timed(
                lambda e=engine, c=concurrency: run_evals(  # type: ignore[misc]
                    items[:2], make(), store=None, quiet=True, concurrency=c, engine=e
                )
            )
            wall, result = timed(
                lambda e=engine, c=concurrency: run_evals(  # type: ignore[misc]
                    items, make(), store=None, quiet=True, concurrency=c, engine=e
                )
            )
            assert result.summary.failed_items == 0, result.items[0].errors
            walls.setdefault(label, []).append(wall)
            fixeds.setdefault(label, []).append(fixed)
            scores[label] = result.scores
            units[label] = claims(result) if verifier else len(items)
            print(f"{name} round {r + 1} {label}: {wall:.2f} s", flush=True)
    unit = "claims" if verifier else "items"
    out = {
        label: {
            "wall_s": statistics.median(w),
            "walls": w,
            f"{unit}_per_s": units[label] / statistics.median(w),
            unit: units[label],
            "scores": scores[label],
        }
        for label, w in walls.items()
    }
    first = next(iter(out))
    for label, row in out.items():
        row["fixed_s"] = statistics.median(fixeds[label])  # a 2-item run: starting actors, loading models
        row["per_item_ms"] = 1000 * (row["wall_s"] - row["fixed_s"]) / len(items)
        row["added_ms_per_item"] = row["per_item_ms"] - out[first]["per_item_ms"] if label != first else 0.0
    return out


def ingest(n: int, tmp: Path) -> dict[str, float]:
    """Items/s the driver takes in (unpickle an outcome, save its record, rebuild the result): the
    ceiling of any cluster, since one process does this for every item."""
    scorer = create_faithfulness_scorer("local")
    result = scorer.run("q", "Paris is big. Rome is small.", context=["Paris is big."])
    blobs = []
    for i in range(n):
        item = Item(str(i), "q", "Paris is big. Rome is small.", ["Paris is big."])
        record = to_record("e", item, scorer, result, None, now())
        blobs.append(pickle.dumps(Outcome(item, {scorer.id: result}, [record])))
    out = {}
    for name, store in (("sqlite", SQLiteStore(tmp / "i.db")), ("parquet", ParquetStore(tmp / "i.parquet"))):
        job = EvalJob(None, [ScorerEntry(scorer)], None, None, store, "e", 1, None, quiet=True)
        collector = Collector(job, {}, n)

        async def take_in(c: Collector = collector) -> None:
            for blob in blobs:
                await c.add(pickle.loads(blob))

        clock = time.perf_counter()
        asyncio.run(take_in())
        store.close()
        out[name] = n / (time.perf_counter() - clock)
    return out


SPIN = """
import os, sys, time
os.environ["OMP_NUM_THREADS"] = "1"
sys.path.insert(0, os.getcwd())
from bench.ray_scaling import verifier_items
from troth import create_faithfulness_scorer, run_evals
items = verifier_items(100)
run_evals(items[:2], create_faithfulness_scorer("local"), store=None, quiet=True, concurrency=1)
clock = time.perf_counter()
run_evals(items, create_faithfulness_scorer("local"), store=None, quiet=True, concurrency=1)
print(time.perf_counter() - clock)
"""


def parallelism() -> dict[str, Any]:
    """What running the verifier in two processes at once gives on this machine (one thread each):
    the speed-up over one (2.0 on two free cores). It bounds what a second worker can gain here."""

    def spin(n: int) -> float:
        procs = [subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.PIPE, text=True) for _ in range(n)]
        return max(float(proc.communicate()[0].split()[-1]) for proc in procs)  # model load not counted

    ones, twos = [], []
    for _ in range(3):  # interleaved: this machine's speed drifts over minutes
        ones.append(spin(1))
        twos.append(spin(2))
    alone, both = statistics.median(ones), statistics.median(twos)
    return {"one_s": alone, "two_at_once_s": both, "speedup": 2 * alone / both, "ones": ones, "twos": twos}


def with_delay(delay: float) -> Callable[[Request], Reply]:
    script = ScriptedJudge(verdicts={"paris": ("yes", "Paris is big")}, default=("no", ""))

    def respond(request: Request) -> Reply:
        reply = script(request)
        reply.delay = delay
        return reply

    return respond


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.only_extras:
        return only_extras(args)
    import ray

    clock = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING)
    report: dict[str, Any] = {
        "date": dt.date.today().isoformat(),
        "machine": machine(),
        "args": vars(args),
        "ray": ray.__version__,
        "cluster_start_s": time.perf_counter() - clock,
    }
    stem = RESULTS / f"ray-scaling-{report['date']}{'-quick' if args.quick else ''}"
    with FakeOpenAIServer(with_delay(args.delay), record=False) as srv:

        def make() -> Scorer:
            return create_faithfulness_scorer(Judge("fake", base_url=srv.base_url, api_key="k", timeout=30))

        report["judge"] = part("judge", make, judge_items(args.items), args, verifier=False)
    write_results(stem, report, markdown(report))
    report["verifier"] = part(
        "verifier",
        lambda: create_faithfulness_scorer("local"),
        verifier_items(args.verifier_items),
        args,
        verifier=True,
    )
    write_results(stem, report, markdown(report))
    ray.shutdown()
    extras(args, report)
    write_results(stem, report, markdown(report))
    print(markdown(report))
    return 0


def extras(args: argparse.Namespace, report: dict[str, Any]) -> None:
    """Part 3 (the driver's intake) and the machine's parallelism, without a cluster running."""
    with tempfile.TemporaryDirectory() as tmp:
        report["ingest_items_per_s"] = ingest(args.ingest, Path(tmp))
    report["parallelism"] = parallelism()


def only_extras(args: argparse.Namespace) -> int:
    """Re-measure :func:`extras` into today's results (the other parts as they were)."""
    stem = RESULTS / f"ray-scaling-{dt.date.today().isoformat()}{'-quick' if args.quick else ''}"
    report = json.loads(Path(f"{stem}.json").read_text())
    report.pop("ingest_records_per_s", None)  # an earlier measure of the store alone
    extras(args, report)
    write_results(stem, report, markdown(report))
    print(markdown(report))
    return 0


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"


def markdown(report: dict[str, Any]) -> str:
    a = report["args"]
    lines = [
        f"# Ray scaling, {report['date']}",
        "",
        f"{report['machine']}; Ray {report['ray']}, local cluster of 2 CPUs (started in "
        f"{report['cluster_start_s']:.1f} s, not counted). Medians of {a['rounds']} rounds. "
        f"Command: `python -m bench.ray_scaling{' --quick' if a['quick'] else ''}`.",
        "",
        f"## Loopback judge: {a['items']} items, {a['delay'] * 1000:.0f} ms a call, "
        f"{a['concurrency']} calls in flight per worker",
        "",
    ]
    rows = [
        [
            k,
            fmt(v["wall_s"], 2),
            fmt(v["items_per_s"], 1),
            fmt(v["fixed_s"], 2),
            fmt(v["per_item_ms"], 2),
            fmt(v["added_ms_per_item"], 2),
        ]
        for k, v in report["judge"].items()
    ]
    heads = ["engine", "wall s", "items/s", "fixed s (2-item run)", "ms/item past the fixed", "added ms/item vs row 1"]
    lines += table(heads, rows)
    if "verifier" in report:
        lines += ["", f"## Offline verifier: {a['verifier_items']} WiCE dev items, one CPU per worker", ""]
        rows = [
            [
                k,
                fmt(v["wall_s"], 2),
                fmt(v["fixed_s"], 2),
                str(v["claims"]),
                fmt(v["claims_per_s"], 1),
                fmt(v["claims"] / (v["wall_s"] - v["fixed_s"]), 1),
            ]
            for k, v in report["verifier"].items()
        ]
        lines += table(
            ["engine", "wall s", "fixed s (2-item run)", "claims", "claims/s", "claims/s past the fixed"], rows
        )
    if "parallelism" in report:
        par = report["parallelism"]
        lines += [
            "",
            f"## This machine: two verifier processes at once score {fmt(par['speedup'], 2)}x as fast as one",
            "",
            f"(100 WiCE items, one thread each: {fmt(par['one_s'], 2)} s alone, "
            f"{fmt(par['two_at_once_s'], 2)} s for two side by side; 2.0 on two free cores). "
            "It caps what a second worker can add here.",
        ]
    if "ingest_items_per_s" in report:
        rates = report["ingest_items_per_s"]
        lines += ["", f"## What the driver takes in ({a['ingest']} outcomes: unpickled, saved, results rebuilt)", ""]
        lines += table(["store", "items/s"], [[k, fmt(v, 0)] for k, v in rates.items()])
    return "\n".join(lines) + "\n"


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--verifier-items", type=int, default=300)
    parser.add_argument("--delay", type=float, default=0.05, help="seconds per judge call")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ingest", type=int, default=5000, help="outcomes taken in to measure the driver")
    parser.add_argument(
        "--only-extras", action="store_true", help="re-measure only the driver's intake and the machine's parallelism"
    )
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.items, args.verifier_items, args.rounds, args.ingest = 60, 20, 1, 200
    return args


if __name__ == "__main__":
    raise SystemExit(main())
