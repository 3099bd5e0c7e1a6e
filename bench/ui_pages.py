"""How fast ``troth ui`` serves a large store, and ``troth compare`` compares large evaluations.

    python -m bench.ui_pages                 # 100,000 runs; two 10,000-item evaluations
    python -m bench.ui_pages --quick         # 10,000 runs; two 2,000-item evaluations

A SQLite store is filled with ``--runs`` scorer runs in evaluations of 100 items, plus two
evaluations of ``--big`` items each (every run with three claims, two context segments, prompts
and usage, as troth stores them). The UI runs on uvicorn on 127.0.0.1 and each page is fetched
``--repeats`` times over real HTTP after a first fetch (timed apart: the first list of
evaluations builds the summary kept until the store changes): median, p95 and max in ms, against
the 100 ms target. The compare page is timed on two 100-item evaluations. Then ``compare_evals``
on the two big evaluations, timed (target 5 s).
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.common import RESULTS, fmt, table, write_results
from troth.compare import compare_evals
from troth.store import SQLiteStore
from troth.store.base import RunRecord
from troth.store.rows import COLUMNS, to_row
from troth.values import Evidence, Verdict

TARGET_MS, COMPARE_TARGET_S = 100.0, 5.0


def record(eval_id: str, item: int, score: float, when: str, rng: random.Random) -> RunRecord:
    verdicts = [
        Verdict(
            f"Claim {c} of item {item}.",
            rng.choice(["yes", "yes", "no", "unsure"]),
            f"Reason for claim {c}.",
            Evidence(f"fact {c}", True, 0, 0, 6),
        )
        for c in range(3)
    ]
    return RunRecord(
        run_id=f"{eval_id}-{item}",
        scorer_id="faithfulness",
        eval_id=eval_id,
        item_id=f"item-{item}",
        judge_model="openai/gpt-4o-mini",
        prompt_version="claims-v1/faithfulness-v1",
        input=f"Question {item}?",
        output=f"Answer {item}. " * 5,
        context=[f"fact 0 fact 1 fact 2 {item}"] * 2,
        claims=[v.claim for v in verdicts],
        verdicts=verdicts,
        score=score,
        reason="A reason.",
        prompts={"preprocess": "p" * 400, "analyze": "a" * 600},
        created_at=when,
        finished_at=when,
        usage={"preprocess": {"model": "m", "calls": 1, "prompt_tokens": 300, "completion_tokens": 40}},
        cost_usd=0.0001,
        source="eval",
    )


def fill(db: Path, runs: int, big: int) -> list[str]:
    """The store: ``runs`` runs in evaluations of 100 items, and two of ``big``; their ids."""
    SQLiteStore(db).close()  # the schema, by its migrations
    rng, rows, start = random.Random(0), [], dt.datetime(2026, 1, 1)
    for n in range(runs):
        when = (start + dt.timedelta(minutes=n // 100)).isoformat()
        rows.append(record(f"eval-{n // 100:05d}", n % 100, rng.choice([0.0, 0.5, 1.0]), when, rng))
    for name in ("big-a", "big-b"):
        for i in range(big):
            score = rng.choice([0.5, 1.0]) if name == "big-a" else rng.choice([0.0, 0.5, 1.0])
            rows.append(record(name, i, score, (start + dt.timedelta(days=400)).isoformat(), rng))
    with sqlite3.connect(db) as conn:
        sql = f"INSERT INTO runs ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
        conn.executemany(sql, [tuple(r.values()) for r in map(to_row, rows)])
    return sorted({r.eval_id for r in rows if r.eval_id})


def time_pages(base: str, paths: list[str], repeats: int) -> dict[str, dict[str, float]]:
    out = {}
    with httpx.Client(base_url=base, timeout=60) as http:
        for path in paths:
            started = time.perf_counter()
            http.get(path).raise_for_status()  # the first fetch: the first list builds the summary
            first = (time.perf_counter() - started) * 1000
            times = []
            for _ in range(repeats):
                started = time.perf_counter()
                http.get(path).raise_for_status()
                times.append((time.perf_counter() - started) * 1000)
            ordered = sorted(times)
            out[path] = {
                "first_ms": first,
                "median_ms": statistics.median(times),
                "p95_ms": ordered[int(0.95 * (len(ordered) - 1))],
                "max_ms": ordered[-1],
            }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--big", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if args.quick:
        args.runs, args.big, args.repeats = 10_000, 2_000, 5
    from troth.ui.serve import serving

    report: dict[str, Any] = {
        "date": dt.datetime.now().isoformat(timespec="seconds"),
        "machine": platform.platform(),
        "settings": {k: v for k, v in vars(args).items() if k != "out"},
    }
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "big.db"
        started = time.perf_counter()
        evals = fill(db, args.runs, args.big)
        report["fill_s"] = time.perf_counter() - started
        report["store_runs"] = args.runs + 2 * args.big
        small = [e for e in evals if not e.startswith("big-")]
        middle, before = small[len(small) // 2], small[len(small) // 2 - 1]
        paths = [
            "/",
            "/?page=10",
            "/?q=eval-0004",
            f"/evals/{middle}",
            "/evals/big-b",
            "/evals/big-b?page=150",
            "/evals/big-b?sort=-score&page=100",
            f"/runs/{middle}-7",
            "/compare",
            f"/compare?a={before}&b={middle}",
            f"/compare?a={before}&b={middle}&show=all",
            "/live?since=3650d",
        ]
        with serving(db) as base:
            report["pages"] = time_pages(base, paths, args.repeats)
        times = []
        for _ in range(3):
            started = time.perf_counter()
            found = compare_evals("big-a", "big-b", store=SQLiteStore(db, read_only=True))
            times.append(time.perf_counter() - started)
        report["compare"] = {"items": len(found.items), "seconds": times, "median_s": statistics.median(times)}
    stem = args.out or RESULTS / f"ui-pages-{dt.date.today().isoformat()}{'-quick' if args.quick else ''}"
    write_results(stem, report, markdown(report))
    print(markdown(report))
    return 0


def markdown(report: dict[str, Any]) -> str:
    rows = [
        [
            f"`{p}`",
            fmt(r["first_ms"]),
            fmt(r["median_ms"]),
            fmt(r["p95_ms"]),
            fmt(r["max_ms"]),
            "yes" if max(r["max_ms"], r["first_ms"]) <= TARGET_MS else "NO",
        ]
        for p, r in report["pages"].items()
    ]
    c = report["compare"]
    return "\n".join(
        [
            f"# troth ui and troth compare on a large store ({report['date']}, {report['machine']})",
            "",
            f"{report['store_runs']:,} scorer runs in one SQLite store (filled in {report['fill_s']:.1f} s); "
            f"settings {report['settings']}.",
            "",
            *table(["page", "first fetch ms", "median ms", "p95 ms", "max ms", f"all ≤ {TARGET_MS:g} ms"], rows),
            "",
            f"compare_evals of two {c['items']:,}-item evaluations: {', '.join(f'{s:.2f}' for s in c['seconds'])} s "
            f"(median {c['median_s']:.2f} s; target {COMPARE_TARGET_S:g} s).",
            "",
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
