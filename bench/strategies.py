"""Single pass against two steps on the same judge: balanced accuracy on the dev files, calls and
tokens per item, and the paired bootstrap interval of the accuracy difference.

    python -m bench.strategies --local --limit 60                  # the offline LLM, served on loopback
    python -m bench.strategies --base-url URL --model NAME --limit 60
    python -m bench.strategies --local --quick                     # smoke: 4 items of one file

For each file, a label-balanced sample (seed ``--seed``) is scored twice by troth's faithfulness
scorer with ``reason="template"`` (the comparison is of claims and verdicts): ``strategy="two-step"``
and ``strategy="single-pass"``, item by item, at temperature 0. "Unfaithful" is a score under 1.
Reported per file and strategy: balanced accuracy, failed items, judge calls, prompt and
completion tokens per item, seconds per item; and the difference single pass minus two steps with
its 95% paired bootstrap interval (the items resampled, both strategies' verdicts kept together;
``scipy.stats.bootstrap``, 2,000 resamples). Results are written after every file, with each
item's outcome per strategy and the prompt version it ran under.

    python -m bench.strategies --local --data F.jsonl --reuse two-step=OLD.json   # single pass only

The report is saved after every item. ``--reuse STRATEGY=REPORT.json`` takes that strategy's
per-item outcomes from an earlier report instead of scoring them again, for every file whose
sample (limit, seed, labels) and prompt version match, and scores only the items it lacks: an
interrupted run resumes with ``--reuse two-step=R.json --reuse single-pass=R.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.accuracy import load
from bench.common import DATA_DIR, FILES, RESULTS, fmt, table, write_results
from bench.local_server import endpoint_judge, judge_endpoint
from troth import Judge, Scorer, create_faithfulness_scorer
from troth.scorers.claims import SINGLE_PASS_FALLBACK

STRATEGIES = ("two-step", "single-pass")


def scorer_for(judge: Judge, strategy: str) -> Scorer:
    """The faithfulness scorer of one strategy, reason by template."""
    return create_faithfulness_scorer(judge, strategy=strategy, reason="template")  # type: ignore[arg-type]


Outcomes = list[dict[str, Any]]


async def score(
    rows: list[dict[str, Any]], judge: Judge, strategy: str, done: Outcomes, saved: Callable[[Outcomes], None]
) -> Outcomes:
    """Each row after those ``done`` scored in turn: its score (None: failed), calls, tokens and
    seconds; ``saved`` gets the outcomes so far after every item."""
    scorer = scorer_for(judge, strategy)
    out = list(done)
    for n, row in enumerate(rows[len(out) :], len(out) + 1):
        started = time.perf_counter()
        try:
            result = await scorer.arun(input=row.get("input") or None, output=row["output"], context=row["context"])
            usage = list(result.usage.values())
            out.append(
                {
                    "score": result.score,
                    "calls": sum(u.calls for u in usage),
                    "prompt_tokens": sum(u.prompt_tokens for u in usage),
                    "completion_tokens": sum(u.completion_tokens for u in usage),
                    "error": None,
                    "flags": list(result.flags),
                }
            )
        except Exception as exc:  # a failed item is counted, not fatal
            out.append(
                {
                    "score": None,
                    "calls": 0,
                    "prompt_tokens": 0,
                    "completion_tokens": 0,
                    "error": f"{type(exc).__name__}: {exc}"[:200],
                }
            )
        out[-1]["seconds"] = time.perf_counter() - started
        saved(out)
        print(f"  {strategy} {n}/{len(rows)}: {out[-1]['score']}", file=sys.stderr, flush=True)
    return out


def balanced_accuracy(labels: Any, flagged: Any) -> float:
    """Balanced accuracy of ``flagged`` (predicted unfaithful) against labels (0: unfaithful)."""
    import numpy as np

    labels, flagged = np.asarray(labels), np.asarray(flagged, dtype=bool)
    bad, good = labels == 0, labels == 1
    recall = flagged[bad].mean() if bad.any() else 0.5
    specificity = (~flagged[good]).mean() if good.any() else 0.5
    return float((recall + specificity) / 2)


def difference(labels: list[int], a: list[bool], b: list[bool]) -> dict[str, float]:
    """BA(b) - BA(a) and its 95% paired bootstrap interval (items resampled together)."""
    import numpy as np
    from scipy import stats

    def diff(y: Any, fa: Any, fb: Any) -> float:
        return balanced_accuracy(y, fb) - balanced_accuracy(y, fa)

    found = stats.bootstrap(
        (labels, a, b),
        diff,
        paired=True,
        vectorized=False,
        n_resamples=2000,
        method="percentile",
        rng=np.random.default_rng(0),
    )
    interval = found.confidence_interval
    return {"difference": diff(labels, a, b), "ci_low": float(interval.low), "ci_high": float(interval.high)}


def fell_back(outcome: dict[str, Any]) -> bool:
    """Whether a single-pass outcome was judged in two steps instead."""
    return SINGLE_PASS_FALLBACK in outcome.get("flags", [])


def one_pass_subset(labels: list[int], flags: dict[str, list[bool]], single: Outcomes) -> dict[str, Any]:
    """Both strategies on the items that single pass judged itself (no fallback to two steps)."""
    keep = [i for i, r in enumerate(single) if not fell_back(r)]
    y = [labels[i] for i in keep]
    out: dict[str, Any] = {"items": len(keep), "unfaithful": y.count(0)}
    if 0 < y.count(0) < len(y):
        picked = {s: [flags[s][i] for i in keep] for s in STRATEGIES}
        out.update({s: balanced_accuracy(y, picked[s]) for s in STRATEGIES})
        if len(y) >= 4:
            out["single_minus_two_step"] = difference(y, picked["two-step"], picked["single-pass"])
    return out


def summary(rows: list[dict[str, Any]], runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Per strategy and the paired difference, over the items both strategies scored."""
    both = [i for i in range(len(rows)) if all(runs[s][i]["score"] is not None for s in STRATEGIES)]
    labels = [rows[i]["label"] for i in both]
    flags = {s: [runs[s][i]["score"] < 1.0 for i in both] for s in STRATEGIES}
    out: dict[str, Any] = {"items": len(rows), "scored_by_both": len(both)}
    for s in STRATEGIES:
        found = runs[s]
        out[s] = {
            "balanced_accuracy": balanced_accuracy(labels, flags[s]) if both else None,
            "failed_items": sum(r["score"] is None for r in found),
            "calls_per_item": sum(r["calls"] for r in found) / len(found),
            "prompt_tokens_per_item": sum(r["prompt_tokens"] for r in found) / len(found),
            "completion_tokens_per_item": sum(r["completion_tokens"] for r in found) / len(found),
            "seconds_per_item": sum(r["seconds"] for r in found) / len(found),
            "fell_back": sum(map(fell_back, found)),
            "errors": sorted({r["error"] for r in found if r["error"]})[:3],
        }
    if len(both) >= 4:
        out["single_minus_two_step"] = difference(labels, flags["two-step"], flags["single-pass"])
    out["judged_in_one_pass"] = one_pass_subset(labels, flags, [runs["single-pass"][i] for i in both])
    return out


def interval(d: dict[str, float]) -> str:
    """A difference with its interval, as a table cell ("" when there is none)."""
    return f"{fmt(d['difference'])} [{fmt(d['ci_low'])}, {fmt(d['ci_high'])}]" if d else ""


def markdown(report: dict[str, Any]) -> str:
    lines = [
        f"# Single pass against two steps ({report['judge']}, {report['date']})",
        "",
        f"{report['machine']}; {report['limit']} label-balanced items per file (seed {report['seed']}); "
        "reason by template; unfaithful = score < 1.",
        "",
    ]
    rows = []
    for name, f in report["files"].items():
        if "two-step" not in f:  # still being scored
            continue
        d = f.get("single_minus_two_step", {})
        for s in STRATEGIES:
            r = f[s]
            rows.append(
                [
                    name,
                    s,
                    fmt(r["balanced_accuracy"]),
                    r["failed_items"],
                    fmt(r["calls_per_item"]),
                    fmt(r["prompt_tokens_per_item"], 0),
                    fmt(r["completion_tokens_per_item"], 0),
                    fmt(r["seconds_per_item"], 1),
                    r["fell_back"],
                    interval(d) if s == "single-pass" else "",
                ]
            )
    lines += table(
        [
            "file",
            "strategy",
            "balanced accuracy",
            "failed",
            "calls/item",
            "prompt tokens/item",
            "completion tokens/item",
            "s/item",
            "two-step fallbacks",
            "single − two-step (95% CI)",
        ],
        rows,
    )
    return "\n".join(lines + one_pass_table(report)) + "\n"


def one_pass_table(report: dict[str, Any]) -> list[str]:
    """Both strategies on the items that single pass judged without falling back."""
    rows = []
    for name, f in report["files"].items():
        sub = f.get("judged_in_one_pass")
        if sub is None:
            continue
        d = sub.get("single_minus_two_step", {})
        rows.append(
            [
                name,
                f"{sub['items']} of {f['items']}",
                sub["unfaithful"],
                fmt(sub.get("single-pass")),
                fmt(sub.get("two-step")),
                interval(d),
            ]
        )
    if not rows:
        return []
    head = ["", "Items that single pass judged in one pass (no fallback), both strategies on them:", ""]
    return head + table(["file", "items", "unfaithful", "single pass", "two steps", "single − two-step (95% CI)"], rows)


def reused(report: dict[str, Any] | None, strategy: str, stem: str, sample: dict[str, Any]) -> Any:
    """A strategy's per-item outcomes for file ``stem`` from an earlier report, when its sample
    (limit, seed, labels) and prompt version match."""
    if report is None or report.get("limit") != sample["limit"] or report.get("seed") != sample["seed"]:
        return None
    found = report.get("files", {}).get(stem, {})
    if found.get("labels") != sample["labels"] or found.get("prompt_versions", {}).get(strategy) != sample["version"]:
        return None
    return found.get("runs", {}).get(strategy)


def run_file(
    path: Path,
    judge: Callable[[], Judge],
    args: argparse.Namespace,
    earlier: dict[str, Any],
    save: Callable[[dict[str, Any]], None],
) -> dict[str, Any]:
    """One file's sample scored under both strategies (reused items kept), summarised; ``save``
    gets the file's outcomes so far after every item. Each strategy gets a judge of its own
    (``judge()``): one judge object keeps the claims it extracted, and a single pass falling back
    to two steps would otherwise reuse the two-step run's extraction and count one call too few."""
    rows = load(path, args.limit, args.seed)
    labels = [r["label"] for r in rows]
    versions = {s: scorer_for(judge(), s).prompt_version for s in STRATEGIES}
    partial: dict[str, Any] = {"labels": labels, "prompt_versions": versions, "runs": {}}
    for s in STRATEGIES:
        sample = {"limit": args.limit, "seed": args.seed, "labels": labels, "version": versions[s]}
        done = reused(earlier.get(s), s, path.stem, sample) or []

        def saved(out: Outcomes, s: str = s) -> None:
            partial["runs"][s] = out
            save(partial)

        partial["runs"][s] = asyncio.run(score(rows, judge(), s, done, saved))
    return {**partial, **summary(rows, partial["runs"])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url")
    parser.add_argument("--model", default="judge")
    parser.add_argument("--local", nargs="?", const="", help="serve the local model (optionally a name or path)")
    parser.add_argument("--data", type=Path, nargs="*", help="JSONL files (default: every dev file)")
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--reuse",
        action="append",
        default=[],
        metavar="STRATEGY=REPORT.json",
        help="take a strategy's per-item outcomes from an earlier report",
    )
    args = parser.parse_args(argv)
    earlier = {}
    for spec in args.reuse:
        strategy, _, path = spec.partition("=")
        if strategy not in STRATEGIES or not path:
            parser.error(f"--reuse takes STRATEGY=REPORT.json with STRATEGY one of {', '.join(STRATEGIES)}: {spec!r}")
        earlier[strategy] = json.loads(Path(path).read_text(encoding="utf-8"))
    if (args.base_url is None) == (args.local is None):
        parser.error("give exactly one of --base-url and --local")
    files = args.data or [DATA_DIR / f"{name}.jsonl" for name in FILES]
    if args.quick:
        files, args.limit = files[:1], 4
    with judge_endpoint(args.local, args.base_url, args.model) as (base_url, name):
        report: dict[str, Any] = {
            "judge": name,
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "machine": platform.platform(),
            "limit": args.limit,
            "seed": args.seed,
            "files": {},
        }
        stem = args.out or RESULTS / f"strategies-{name.split(' ')[0].replace('/', '_')}-{dt.date.today()}"

        def judge() -> Judge:
            return endpoint_judge(base_url, args.model)

        for path in files:

            def save(entry: dict[str, Any], name: str = path.stem) -> None:
                report["files"][name] = entry
                write_results(stem, report, markdown(report))

            save(run_file(path, judge, args, earlier, save))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
