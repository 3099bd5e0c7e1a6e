"""Fault mix through the CLI: ``troth eval`` on thousands of items while a share of them carry
every fault the library answers for — the judge's (transport, protocol, content, an echoed key,
a rate limit asking for longer than the wait budget) and the data's (a transcript with a field of
the wrong type, text with a lone surrogate) — into a SQLite store and again into Parquet.

Every item must come back exactly once: scored with the right score and stored once, or failed
with a typed cause (and stored once when a scorer ran); nothing raw on the terminal, no key
anywhere, the exit status right.

    python -m bench.fault_mix                  # 20,000 items per store
    python -m bench.fault_mix --items 2000     # what the test suite runs (tests/faults/test_cli_mix.py)
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.common import RESULTS, write_results
from troth import TrothError, errors
from troth.testing import FakeOpenAIServer, ScriptedJudge
from troth.testing.faults import FAULTS, Fault, FaultyJudge

SECRET = "sk-fault-mix-0123456789-SECRET"
LONG_RATE_LIMIT = Fault(
    "rate-limit-long",
    "transport",
    lambda r, h: replace(h, status=429, headers={"Retry-After": "120"}, content=None),
    "JudgeConnectionError",
)
"""A server asking for two minutes, past the run's --max-wait: the item fails at once, typed."""
DATA_FAULTS = ("transcript", "surrogate")


def healthy() -> ScriptedJudge:
    """Verdicts by the year a claim gives ("in 1932"), not by any digits in it: bridge 19321's
    number holds "1932" too."""
    return ScriptedJudge(verdicts={"in 1932": ("yes", "opened in 1932"), "in 1950": ("no", "opened in 1932")})


def items(n: int, rate: float, seed: int) -> list[dict[str, Any]]:
    """Half supported (expected 1), half contradicted (expected 0); ``rate`` / 4 of them carry a
    data fault (the judge's faults come from the server, on ``rate`` of its requests)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        year = 1932 if i % 2 == 0 else 1950
        item: dict[str, Any] = {
            "id": f"i{i}",
            "output": f"Bridge {i} opened in {year}.",
            "context": [f"Bridge {i} opened in 1932."],
            "metadata": {"expected": float(year == 1932)},
        }
        fault = rng.choice(DATA_FAULTS) if rng.random() < rate / 4 else None
        if fault == "transcript":
            item["output"] = [{"role": "assistant", "content": item["output"], "toolInvocations": 5}]
        elif fault == "surrogate":
            item["output"] += " \ud800"
        item["metadata"]["fault"] = fault
        out.append(item)
    return out


def run_cli(
    data: Path, store: Path, out: Path, server: FakeOpenAIServer, concurrency: int
) -> subprocess.CompletedProcess[str]:
    args = [
        sys.executable,
        "-m",
        "troth",
        "eval",
        str(data),
        "--model",
        "mix",
        "--base-url",
        server.base_url,
        "--store",
        str(store),
        "--out",
        str(out),
        "--concurrency",
        str(concurrency),
        "--max-wait",
        "2",
        "-q",
    ]
    env = {**os.environ, "TROTH_API_KEY": SECRET, "COLUMNS": "200"}
    return subprocess.run(args, capture_output=True, text=True, timeout=600, env=env)


def stored(store: Path) -> dict[str, list[dict[str, Any]]]:
    """The store's rows by item id (SQLite file or Parquet folder)."""
    if store.suffix == ".parquet":
        import pyarrow.parquet as pq

        rows = [r for p in sorted(store.glob("part-*.parquet")) for r in pq.read_table(p).to_pylist()]
    else:
        with sqlite3.connect(store) as conn:
            conn.row_factory = sqlite3.Row
            rows = [dict(r) for r in conn.execute("SELECT item_id, score, error, error_step FROM runs")]
    found: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        found.setdefault(str(row["item_id"]), []).append(row)
    return found


def check(data: list[dict[str, Any]], done: subprocess.CompletedProcess[str], out: Path, store: Path) -> dict[str, Any]:
    """What the run left, counted: every problem is a count that must be 0."""
    reported = {r["item_id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    rows = stored(store)
    counts = {
        "items": len(data),
        "scored": 0,
        "failed": 0,
        "lost": 0,
        "reported_twice": 0,
        "stored_twice": 0,
        "unstored": 0,
        "wrong": 0,
        "untyped": 0,
        "data_faults_scored": 0,
    }
    counts["reported_twice"] = len(out.read_text(encoding="utf-8").splitlines()) - len(reported)
    for item in data:
        row, kept = reported.get(item["id"]), rows.get(item["id"], [])
        counts["stored_twice"] += len(kept) > 1
        if row is None:
            counts["lost"] += 1
        elif row["error"] is None:
            counts["scored"] += 1
            counts["wrong"] += row["score"] != item["metadata"]["expected"]
            counts["unstored"] += len(kept) != 1 or kept[0]["score"] != row["score"]
            counts["data_faults_scored"] += item["metadata"]["fault"] is not None
        else:
            counts["failed"] += 1
            kind = getattr(errors, row["error"].split(":", 1)[0], None)
            counts["untyped"] += not (isinstance(kind, type) and issubclass(kind, TrothError))
            counts["unstored"] += len(kept) != 1
    terminal = done.stdout + done.stderr
    counts["raw_on_terminal"] = terminal.count("Traceback") + terminal.count("Exception:")
    counts["key_seen"] = int(
        SECRET in terminal
        or SECRET in out.read_text(encoding="utf-8")
        or any(SECRET.encode() in p.read_bytes() for p in _files(store))
    )
    counts["exit_status"] = done.returncode
    return counts


def _files(store: Path) -> list[Path]:
    return sorted(store.glob("*")) if store.is_dir() else sorted(store.parent.glob(store.name + "*"))


def mix(
    n: int, store_name: str, tmp: Path, *, rate: float = 0.2, seed: int = 0, concurrency: int = 64
) -> dict[str, Any]:
    """One run of ``n`` items into ``tmp/store_name``: the counts, the faults injected and the time."""
    data = items(n, rate, seed)
    path = tmp / f"{store_name}.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in data), encoding="utf-8")
    responder = FaultyJudge(healthy(), [*FAULTS.values(), LONG_RATE_LIMIT], rate=rate, seed=seed)
    started = time.perf_counter()
    with FakeOpenAIServer(responder, record=False) as server:
        done = run_cli(path, tmp / store_name, tmp / f"{store_name}.out.jsonl", server, concurrency)
    counts = check(data, done, tmp / f"{store_name}.out.jsonl", tmp / store_name)
    return {
        "store": store_name,
        "wall_s": round(time.perf_counter() - started, 1),
        "counts": counts,
        "judge_faults": dict(responder.injected),
        "data_faults": {f: sum(d["metadata"]["fault"] == f for d in data) for f in DATA_FAULTS},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--rate", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    report: dict[str, Any] = {
        "date": dt.datetime.now().isoformat(timespec="seconds"),
        "settings": vars(args),
        "runs": [],
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("mix.db", "mix.parquet"):
            report["runs"].append(mix(args.items, name, Path(tmp), rate=args.rate, seed=args.seed))
            print(json.dumps(report["runs"][-1]), flush=True)
    lines = [
        "| store | items | scored | failed | lost | wrong | untyped | stored twice | exit | wall s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run in report["runs"]:
        c = run["counts"]
        lines.append(
            f"| {run['store']} | {c['items']} | {c['scored']} | {c['failed']} | {c['lost']} | {c['wrong']} "
            f"| {c['untyped']} | {c['stored_twice']} | {c['exit_status']} | {run['wall_s']} |"
        )
    write_results(RESULTS / f"fault-mix-{dt.date.today().isoformat()}", report, "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
