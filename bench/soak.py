"""Soak: thousands of items at high concurrency against a judge that misbehaves on a seeded share
of requests (every fault in ``troth.testing.faults.FAULTS``: transport, protocol, content, an
echoed key). Nothing may be lost, no score may be silently wrong, no exception may escape, no key
may reach the store, and memory must not grow from round to round.

    python -m bench.soak                      # 5,000 items: 10 rounds of 500 at concurrency 64
    python -m bench.soak --quick              # 2 rounds of 100

Each round is one ``run_evals`` into the same SQLite store (its own eval id), so that the items
a round keeps in its result are freed before the next; RSS is sampled after every round. Items
are half supported (expected score 1), half contradicted (expected 0): a scored item whose score
differs is counted as wrong (a wrong 0 is a silent zero). Writes JSON and Markdown to bench/results/.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import platform
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import RESULTS, fmt, rss_mb, table, write_results
from troth import Judge, TrothError, create_faithfulness_scorer, errors, run_evals
from troth.testing import FakeOpenAIServer, ScriptedJudge
from troth.testing.faults import FAULTS, FaultyJudge

SECRET = "sk-soak-0123456789-SECRET"


def items(round_no: int, n: int) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        good = i % 2 == 0
        year = 1932 if good else 1950
        out.append(
            {
                "id": f"r{round_no}-{i}",
                "context": [f"Bridge {round_no}-{i} opened in 1932 and is 80 m high."],
                "output": f"Bridge {round_no}-{i} opened in {year}.",
                "metadata": {"expected": 1.0 if good else 0.0},
            }
        )
    return out


def check_round(result: Any, data: list[dict[str, Any]], db: Path, eval_id: str) -> dict[str, int]:
    """Counts for one round: scored, failed, lost, wrong scores, silent zeros, untyped errors."""
    expected = {d["id"]: d["metadata"]["expected"] for d in data}
    by_id = {it.id: it for it in result.items}
    with sqlite3.connect(db) as conn:
        rows = dict(conn.execute("SELECT item_id, count(*) FROM runs WHERE eval_id = ? GROUP BY item_id", (eval_id,)))
    counts = {
        "items": len(data),
        "scored": 0,
        "failed": 0,
        "lost": 0,
        "doubled": 0,
        "wrong": 0,
        "silent_zeros": 0,
        "untyped_errors": 0,
    }
    for item_id, want in expected.items():
        item = by_id.get(item_id)
        counts["doubled"] += rows.get(item_id, 0) > 1
        if item is None or rows.get(item_id, 0) == 0 or not (item.results or item.errors):
            counts["lost"] += 1
            continue
        if "faithfulness" in item.results and not item.errors:
            counts["scored"] += 1
            score = item.results["faithfulness"].score
            counts["wrong"] += score != want
            counts["silent_zeros"] += score == 0.0 and want == 1.0
        else:
            counts["failed"] += 1
            kinds = [getattr(errors, e.type, None) for e in item.errors.values()]
            counts["untyped_errors"] += not all(isinstance(k, type) and issubclass(k, TrothError) for k in kinds)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--items", type=int, default=500, help="items per round")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--rate", type=float, default=0.2, help="share of requests answered with a fault")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="2 rounds of 100 items")
    parser.add_argument("--out", type=Path, help="output stem (default: bench/results/soak-<date>)")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.items = 2, 100
    healthy = ScriptedJudge(verdicts={"1932": ("yes", "opened in 1932"), "1950": ("no", "opened in 1932")})
    responder = FaultyJudge(healthy, list(FAULTS.values()), rate=args.rate, seed=args.seed)
    report: dict[str, Any] = {
        "date": dt.datetime.now().isoformat(timespec="seconds"),
        "machine": platform.platform(),
        "rounds": [],
        "settings": {k: v for k, v in vars(args).items() if k != "out"},
    }
    stem = args.out or RESULTS / f"soak-{dt.date.today().isoformat()}"
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer(responder, record=False) as server:
        db = Path(tmp) / "soak.db"
        judge = Judge(
            "soak",
            base_url=server.base_url,
            api_key=SECRET,
            timeout=1.0,
            max_retries=2,
            output_retries=2,
            rate_limit_wait=5,
            max_tokens=256,
            max_tokens_limit=1024,
        )
        scorer = create_faithfulness_scorer(judge, reason="template")
        for r in range(args.rounds):
            report["rounds"].append(one_round(r, args, scorer, db, server))
            write_results(stem, report, markdown(report, responder.injected))
            print(report["rounds"][-1], file=sys.stderr, flush=True)
        report["key_in_store"] = any(SECRET.encode() in p.read_bytes() for p in Path(tmp).glob("soak.db*"))
    report["faults_injected"] = dict(responder.injected)
    write_results(stem, report, markdown(report, responder.injected))
    print(markdown(report, responder.injected))
    return 0


def one_round(r: int, args: argparse.Namespace, scorer: Any, db: Path, server: FakeOpenAIServer) -> dict[str, Any]:
    data, eval_id = items(r, args.items), f"soak-{r}"
    started, served = time.perf_counter(), server.served
    escaped = None
    try:
        result = run_evals(data, [scorer], store=db, eval_id=eval_id, concurrency=args.concurrency, quiet=True)
        counts = check_round(result, data, db, eval_id)
    except Exception as exc:  # the soak counts this; run_evals must never raise it
        escaped = f"{type(exc).__name__}: {exc}"
        counts = {"items": len(data), "lost": len(data)}
    del data
    gc.collect()
    wall = time.perf_counter() - started
    return {
        "round": r,
        **counts,
        "escaped": escaped,
        "requests": server.served - served,
        "items_per_s": round(args.items / wall, 1),
        "rss_mb": round(rss_mb(), 1),
    }


def markdown(report: dict[str, Any], injected: dict[str, int]) -> str:
    cols = [
        "round",
        "items",
        "scored",
        "failed",
        "lost",
        "doubled",
        "wrong",
        "silent_zeros",
        "untyped_errors",
        "escaped",
        "requests",
        "items_per_s",
        "rss_mb",
    ]
    rows = ([fmt(r.get(c)) if r.get(c) is not None else "–" for c in cols] for r in report["rounds"])
    total = {c: sum(r.get(c, 0) or 0 for r in report["rounds"]) for c in cols[1:9]}
    s = report["settings"]
    head = (
        f"Soak {report['date']}, {report['machine']}: {s['rounds']} rounds × {s['items']} items, concurrency "
        f"{s['concurrency']}, fault rate {s['rate']} (seed {s['seed']}). Totals: {total}. "
        f"Faults injected: {dict(sorted(injected.items()))}. Key in store: {report.get('key_in_store', '–')}."
    )
    return "\n".join([head, "", *table(cols, rows)]) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
