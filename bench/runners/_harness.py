"""What every tool runner shares (standard library only: runners run in the peers' venvs).

A runner scores the items of a JSONL file (``index``, ``context``, ``output``, ``input``) with
one tool, ``--concurrency`` items at a time, and writes one JSON report: per-item scores or
errors, wall time, CPU time and peak memory of the runner process. ``--base-url`` may contain
``{item}`` (replaced by the item's index, so a recording proxy can tell items apart); the
tool's judge client is built once per distinct URL, so without ``{item}`` one client serves
the whole run, as in normal use.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import time
import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ScoreItem = Callable[[dict[str, Any]], Awaitable[float]]
"""``item -> score in [0, 1]``."""

Close = Callable[[], Awaitable[None]] | None

Factory = Callable[[str, str], tuple[ScoreItem, Close]]
"""``(base_url, model) -> (score an item, close the client or None)``."""


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=Path, required=True)
    parser.add_argument("--base-url", required=True, help="judge base URL; '{item}' becomes the item index")
    parser.add_argument("--model", required=True)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    return parser.parse_args()


async def score_items(items: list[dict[str, Any]], factory: Factory, args: argparse.Namespace) -> list[dict[str, Any]]:
    gate = asyncio.Semaphore(args.concurrency)
    built: dict[str, tuple[ScoreItem, Close]] = {}

    async def one(item: dict[str, Any]) -> dict[str, Any]:
        async with gate:
            started = time.perf_counter()
            url = args.base_url.replace("{item}", str(item["index"]))
            if url not in built:
                built[url] = factory(url, args.model)
            try:
                value: float | None = float(await built[url][0](item))
                error = None
            except Exception as exc:  # a peer's failure is a result, not a crash of the benchmark
                value, error = None, f"{type(exc).__name__}: {exc}"[:500]
                if not str(exc):
                    error = traceback.format_exc(limit=3)[-500:]
            return {
                "index": item["index"],
                "score": value,
                "error": error,
                "seconds": round(time.perf_counter() - started, 3),
            }

    try:
        return list(await asyncio.gather(*(one(item) for item in items)))
    finally:
        for _, close in built.values():
            if close is not None:
                await close()


def run(tool: str, version: str, factory: Factory) -> None:
    args = parse_args()
    items = [json.loads(line) for line in args.items.read_text(encoding="utf-8").splitlines() if line.strip()]
    cpu0 = time.process_time()
    wall0 = time.perf_counter()
    results = asyncio.run(score_items(items, factory, args))
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    report = {
        "tool": tool,
        "version": version,
        "python": sys.version.split()[0],
        "concurrency": args.concurrency,
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "peak_rss_mb": round(peak_kb / 1024, 1),
        "items": results,
    }
    args.out.write_text(json.dumps(report, indent=1), encoding="utf-8")
