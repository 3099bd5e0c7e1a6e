"""Throughput of troth and its peers against a loopback judge with fixed latency and failures.

    python -m bench.throughput                       # full: 500 items at concurrency 1, 8, 32, 128
    python -m bench.throughput --quick               # smoke: 12 items at 1 and 8, 50 ms latency
    python -m bench.throughput --tools troth         # without the peers' venvs

Every tool scores the same items through its own runner (bench/runners/, one process per run,
peers from bench/peers/.venv-<tool>) against bench/fake_judge.py, which waits ``--latency`` ±
``--jitter`` seconds per request and fails a share of them with 429/500. Reported per tool and
concurrency: items/s, judge calls per item (counted by the server), the ideal latency-bound
rate ``concurrency / (calls per item × latency)`` and the share of it reached, CPU seconds and
peak RSS of the runner process, characters of the prompts answered per item (what a provider
bills as input, before tokenising; refused requests are not counted), and failed items. Medians
over ``--repeats``. Each runner imports its tool's HTTP stack before the clock starts.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.common import DATA_DIR, RESULTS, TOOLS, fmt, run_runner, table, tool_python, write_results
from bench.fake_judge import Behaviour, bench_server
from bench.proxy import split_tag


def make_items(n: int, source: Path | None) -> list[dict[str, Any]]:
    """``n`` distinct items: from a labeled file (contexts and outputs of real size), else synthetic.

    Outputs must differ: a tool may reuse an answer for a repeated output (troth shares claim
    extraction per output), which would flatter it.
    """
    rows: list[dict[str, Any]] = []
    if source is not None and source.is_file():
        rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    items = [{"index": i, "context": r["context"], "output": r["output"]} for i, r in enumerate(rows[:n])]
    for i in range(len(items), n):
        items.append(
            {
                "index": i,
                "context": [f"Bridge {i} opened in 1932 and is 503 metres long."],
                "output": f"Bridge {i} opened in 1932.",
            }
        )
    return items


def run_once(tool: str, items_file: Path, n: int, concurrency: int, behaviour: Behaviour) -> dict[str, Any]:
    server, responder = bench_server(behaviour)
    with server:
        base = server.base_url.removesuffix("/v1")
        report = run_runner(tool, items_file, f"{base}/{tool}/all/v1", "bench-judge", concurrency)
        calls = sum(1 for r in server.requests if split_tag(r.path)[0] == tool)
    ok = [i for i in report["items"] if i["error"] is None]
    calls_per_item = calls / max(n, 1)
    ideal = concurrency / (calls_per_item * behaviour.latency) if calls_per_item and behaviour.latency else None
    rate = n / report["wall_s"] if report["wall_s"] else None
    return {
        "tool": tool,
        "version": report["version"],
        "concurrency": concurrency,
        "items": n,
        "failed_items": n - len(ok),
        "errors": sorted({i["error"].split(":")[0] for i in report["items"] if i["error"]})[:5],
        "wall_s": report["wall_s"],
        "items_per_s": rate,
        "calls_per_item": calls_per_item,
        "ideal_items_per_s": ideal,
        "share_of_ideal": rate / ideal if rate and ideal else None,
        "cpu_s": report["cpu_s"],
        "cpu_ms_per_item": 1000 * report["cpu_s"] / max(n, 1),
        "peak_rss_mb": report["peak_rss_mb"],
        "requests_refused": responder.refused,
        "prompt_chars_per_item": responder.prompt_chars / max(n, 1),
    }


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The first run with every numeric field replaced by its median over ``runs``."""
    out = dict(runs[0])
    for key, value in runs[0].items():
        if isinstance(value, (int, float)) and not isinstance(value, bool) and key not in ("concurrency", "items"):
            values = [r[key] for r in runs if r[key] is not None]
            out[key] = statistics.median(values) if values else None
    out["repeats"] = len(runs)
    return out


def markdown(report: dict[str, Any]) -> str:
    b = report["behaviour"]
    lines = [
        f"{report['date']}, {report['machine']}, Python {report['python']}; judge latency {b['latency']}s ± "
        f"{b['jitter']}s, {b['rate_429']:.0%} 429s, {b['rate_500']:.0%} 500s; {report['items']} items; "
        f"medians of {report['repeats']} run(s)",
        "",
        *table(
            [
                "tool",
                "version",
                "concurrency",
                "items/s",
                "calls/item",
                "ideal items/s",
                "share of ideal",
                "CPU ms/item",
                "peak RSS MB",
                "prompt chars/item",
                "failed items",
            ],
            (
                [
                    r["tool"],
                    r["version"],
                    r["concurrency"],
                    fmt(r["items_per_s"]),
                    fmt(r["calls_per_item"]),
                    fmt(r["ideal_items_per_s"]),
                    fmt(r["share_of_ideal"]),
                    fmt(r["cpu_ms_per_item"], 1),
                    fmt(r["peak_rss_mb"], 0),
                    fmt(r.get("prompt_chars_per_item"), 0),
                    r["failed_items"],
                ]
                for r in report["runs"]
            ),
        ),
    ]
    if report.get("notes"):
        lines += ["", f"Note: {report['notes']}"]
    ratios = report.get("ratios") or []
    if ratios:
        lines += [
            "",
            "troth / best peer at the same concurrency (items/s; CPU ms per item and prompt characters "
            "per item, lower is better):",
            "",
        ]
        lines += [
            f"- concurrency {r['concurrency']}: {fmt(r['items_per_s_ratio'])}× items/s of {r['best_peer']}; "
            f"{fmt(r['cpu_ratio'])}× the CPU per item of {r['leanest_peer']}; "
            f"{fmt(r.get('prompt_ratio'))}× the prompt characters per item of {r.get('shortest_peer')}"
            for r in ratios
        ]
    return "\n".join(lines) + "\n"


def ratios(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for c in sorted({r["concurrency"] for r in runs}):
        here = {r["tool"]: r for r in runs if r["concurrency"] == c}
        peers = [r for t, r in here.items() if t != "troth" and r["items_per_s"]]
        if "troth" not in here or not peers:
            continue
        fastest = max(peers, key=lambda r: r["items_per_s"])
        leanest = min(peers, key=lambda r: r["cpu_ms_per_item"])
        shortest = min(peers, key=lambda r: r["prompt_chars_per_item"] or float("inf"))
        out.append(
            {
                "concurrency": c,
                "best_peer": fastest["tool"],
                "items_per_s_ratio": here["troth"]["items_per_s"] / fastest["items_per_s"],
                "leanest_peer": leanest["tool"],
                "cpu_ratio": here["troth"]["cpu_ms_per_item"] / leanest["cpu_ms_per_item"],
                "shortest_peer": shortest["tool"],
                "prompt_ratio": here["troth"]["prompt_chars_per_item"] / (shortest["prompt_chars_per_item"] or 1),
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tools", default=",".join(TOOLS), help="comma-separated: troth,ragas,deepeval")
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument("--concurrency", default="1,8,32,128", help="comma-separated levels")
    parser.add_argument("--latency", type=float, default=0.3, help="mean judge latency in seconds")
    parser.add_argument("--jitter", type=float, default=0.05, help="± uniform jitter in seconds")
    parser.add_argument("--rate-429", type=float, default=0.01, help="share of requests answered 429")
    parser.add_argument("--rate-500", type=float, default=0.01, help="share of requests answered 500")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--data", type=Path, default=DATA_DIR / "qags-sentences.jsonl", help="items' source")
    parser.add_argument("--quick", action="store_true", help="12 items at concurrency 1 and 8, 50 ms latency")
    parser.add_argument("--out", type=Path, help="output stem (default: bench/results/throughput-<date>)")
    args = parser.parse_args(argv)
    if args.quick:
        args.items, args.concurrency, args.latency, args.jitter = 12, "1,8", 0.05, 0.01
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = [t for t in tools if t not in TOOLS]
    if unknown:
        parser.error(f"unknown tool(s): {', '.join(unknown)}; choose from {', '.join(TOOLS)}")
    missing = [t for t in tools if tool_python(t) is None]
    if missing:
        print(f"skipping {', '.join(missing)}: run bash bench/peers/setup.sh first", file=sys.stderr)
        tools = [t for t in tools if t not in missing]
    levels = [int(c) for c in args.concurrency.split(",")]
    behaviour = Behaviour(args.latency, args.jitter, args.rate_429, args.rate_500)
    report: dict[str, Any] = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": platform.platform(),
        "python": platform.python_version(),
        "items": args.items,
        "repeats": args.repeats,
        "behaviour": vars(behaviour),
        "runs": [],
    }
    stem = args.out or RESULTS / f"throughput-{'quick-' if args.quick else ''}{dt.date.today()}"
    with tempfile.TemporaryDirectory() as tmp:
        items_file = Path(tmp) / "items.jsonl"
        items_file.write_text(
            "".join(json.dumps(i) + "\n" for i in make_items(args.items, args.data)), encoding="utf-8"
        )
        for concurrency in levels:
            for tool in tools:
                runs = [run_once(tool, items_file, args.items, concurrency, behaviour) for _ in range(args.repeats)]
                result = median_run(runs)
                report["runs"].append(result)
                print(
                    f"{tool} c={concurrency}: {fmt(result['items_per_s'])} items/s, "
                    f"{fmt(result['share_of_ideal'])} of ideal, {result['failed_items']} failed",
                    file=sys.stderr,
                    flush=True,
                )
                report["ratios"] = ratios(report["runs"])
                write_results(stem, report, markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
