"""troth beside RAGAS and DeepEval: the same items, the same judge endpoint, the same temperature.

    python -m bench.compare --local --limit 8                          # the offline model, served on loopback
    python -m bench.compare --base-url URL --model NAME --limit 50     # any OpenAI-compatible server
    python -m bench.compare --quick --local                            # smoke: 2 items of one file

Each tool runs in its own process (peers from bench/peers/.venv-<tool>, made by
bench/peers/setup.sh) at temperature 0, and every judge request goes through
bench/proxy.py, which counts calls and tokens per tool and item as the upstream reports them.
Reported per tool and file: balanced accuracy of "unfaithful" detection (score < 1.0, and at
the threshold tuned on the other half), ROC AUC, calls/item, tokens/item, items/s, failed
items; then troth's ratios to the best peer.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.accuracy import load
from bench.common import DATA_DIR, FILES, RESULTS, TOOLS, fmt, run_runner, table, tool_python, write_results
from bench.local_server import judge_endpoint
from bench.metrics import detection, roc_auc, tuned_accuracy
from bench.proxy import RecordingProxy


def summarise(
    tool: str, rows: list[dict[str, Any]], report: dict[str, Any], proxy: RecordingProxy, prefix: str = ""
) -> dict[str, Any]:
    n = len(rows)
    scored = [(r["label"], i["score"]) for r, i in zip(rows, report["items"], strict=True) if i["error"] is None]
    labels = [y for y, _ in scored]
    scores = [s for _, s in scored]
    usage = [proxy.log.item(tool, f"{prefix}{i}") for i in range(n)]
    return {
        "tool": tool,
        "version": report["version"],
        "items": n,
        "failed_items": n - len(scored),
        "errors": sorted({i["error"][:120] for i in report["items"] if i["error"]})[:3],
        "balanced_accuracy": detection(labels, scores, 1.0)["balanced_accuracy"] if scored else None,
        "balanced_accuracy_tuned": tuned_accuracy(labels, scores),
        "roc_auc": roc_auc(labels, scores),
        "calls_per_item": sum(u.calls for u in usage) / max(n, 1),
        "failed_calls": sum(u.failures for u in usage),
        "prompt_tokens_per_item": sum(u.prompt_tokens for u in usage) / max(n, 1),
        "completion_tokens_per_item": sum(u.completion_tokens for u in usage) / max(n, 1),
        "items_per_s": n / report["wall_s"] if report["wall_s"] else None,
        "wall_s": report["wall_s"],
    }


COLUMNS = (
    "balanced_accuracy",
    "balanced_accuracy_tuned",
    "roc_auc",
    "calls_per_item",
    "prompt_tokens_per_item",
    "completion_tokens_per_item",
    "items_per_s",
    "failed_items",
)


def ratios(results: list[dict[str, Any]]) -> dict[str, float | None]:
    """troth / best peer for each column (best = highest, or lowest for costs)."""
    troth = next((r for r in results if r["tool"] == "troth"), None)
    peers = [r for r in results if r["tool"] != "troth"]
    out: dict[str, float | None] = {}
    if troth is None or not peers:
        return out
    lower_is_better = {"calls_per_item", "prompt_tokens_per_item", "completion_tokens_per_item"}
    for col in ("balanced_accuracy", "roc_auc", "calls_per_item", "prompt_tokens_per_item", "items_per_s"):
        values = [p[col] for p in peers if p[col]]
        if troth[col] is None or not values:
            out[col] = None
            continue
        best = min(values) if col in lower_is_better else max(values)
        out[col] = troth[col] / best
    return out


def markdown(report: dict[str, Any]) -> str:
    lines = [
        f"Judge `{report['judge']}` at temperature 0, {report['date']}, {report['machine']}; "
        f"{report['limit']} label-balanced items per file (seed {report['seed']}), concurrency {report['concurrency']}",
        "",
        *table(
            ["file", "tool", "version", *COLUMNS],
            (
                [name, r["tool"], r["version"], *(fmt(r[c]) for c in COLUMNS)]
                for name, results in report["files"].items()
                for r in results
            ),
        ),
    ]
    lines += ["", "troth / best peer (accuracy, AUC, items/s: higher is better; calls, tokens: lower is better):", ""]
    for name, r in report["ratios"].items():
        lines.append(f"- {name}: " + ", ".join(f"{k} {fmt(v)}" for k, v in r.items()))
    if report.get("notes"):
        lines += ["", f"Note: {report['notes']}"]
    return "\n".join(lines) + "\n"


def parse(argv: list[str] | None) -> tuple[argparse.Namespace, list[Path], list[str]]:
    """The options, the data files and the tools, checked (a bad one is a usage error)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", help="upstream OpenAI-compatible server")
    parser.add_argument("--model", default="judge", help="model name sent upstream")
    parser.add_argument("--local", nargs="?", const="", help="serve the local model (optionally a name or path)")
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--data", type=Path, nargs="*", help="JSONL files (default: every file in ../shared/data)")
    parser.add_argument("--limit", type=int, default=8, help="label-balanced sample size per file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="2 items of one file")
    parser.add_argument("--out", type=Path, help="output stem (default: bench/results/compare-<judge>-<date>)")
    args = parser.parse_args(argv)
    if (args.base_url is None) == (args.local is None):
        parser.error("give exactly one of --base-url and --local")
    files = args.data or [DATA_DIR / f"{name}.jsonl" for name in FILES]
    if args.quick:
        files, args.limit = files[:1], 2
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        parser.error(f"data file(s) not found: {', '.join(missing)}")
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    absent = [t for t in tools if t not in TOOLS or tool_python(t) is None]
    if absent:
        parser.error(f"not available: {', '.join(absent)} (known: {', '.join(TOOLS)}; run bash bench/peers/setup.sh)")
    return args, files, tools


def compare_file(
    path: Path, tools: list[str], args: argparse.Namespace, proxy: RecordingProxy, tmp: Path
) -> list[dict[str, Any]]:
    """Every tool on one file's sample, through the recording proxy."""
    rows = load(path, args.limit, args.seed)
    items_file = tmp / f"{path.stem}.jsonl"
    items_file.write_text(
        "".join(
            json.dumps({"index": i, "context": r["context"], "output": r["output"]}) + "\n" for i, r in enumerate(rows)
        ),
        encoding="utf-8",
    )
    results = []
    for tool in tools:
        # items are tagged "<file>.<index>" for the proxy, so files do not mix
        url = proxy.base_url(tool, f"{path.stem}.{{item}}")
        print(f"{path.stem}: {tool} on {len(rows)} items", file=sys.stderr, flush=True)
        run = run_runner(tool, items_file, url, args.model, args.concurrency)
        results.append(summarise(tool, rows, run, proxy, prefix=f"{path.stem}."))
    return results


def main(argv: list[str] | None = None) -> int:
    args, files, tools = parse(argv)
    with judge_endpoint(args.local, args.base_url, args.model) as (base_url, judge):
        report: dict[str, Any] = {
            "judge": judge,
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "machine": platform.platform(),
            "limit": args.limit,
            "seed": args.seed,
            "concurrency": args.concurrency,
            "files": {},
            "ratios": {},
        }
        slug = judge.split(" ")[0].replace("/", "_")
        stem = args.out or RESULTS / f"compare-{'quick-' if args.quick else ''}{slug}-{dt.date.today()}"
        with RecordingProxy(base_url) as proxy, tempfile.TemporaryDirectory() as tmp:
            for path in files:
                results = compare_file(path, tools, args, proxy, Path(tmp))
                report["files"][path.stem] = results
                report["ratios"][path.stem] = ratios(results)
                write_results(stem, report, markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
