"""Accuracy of troth's faithfulness scorer on human-labeled data.

    python -m bench.accuracy --model local --limit 16                 # offline judge
    python -m bench.accuracy --model gpt-4o-mini --base-url URL       # any OpenAI-compatible server
    python -m bench.accuracy --quick                                  # smoke run (a few items)

Reports per file: balanced accuracy of "unfaithful" detection at --threshold (score < threshold)
and at the best threshold found on the other half of the items, precision/recall/F1, ROC AUC,
judge calls and tokens per item, claims/s, wall time and peak memory. Writes JSON and Markdown
to bench/results/.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import platform
import random
import resource
import sys
import time
from pathlib import Path
from typing import Any

import troth
from bench.common import DATA_DIR, FILES, RESULTS, fmt, table, write_results
from bench.metrics import detection, roc_auc, tuned_accuracy
from troth import Judge, create_faithfulness_scorer


def load(path: Path, limit: int | None, seed: int) -> list[dict[str, Any]]:
    """Records of one file; with ``limit``, a label-balanced random sample of that size."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for i, row in enumerate(rows):
        if not isinstance(row.get("context"), list) or not isinstance(row.get("output"), str):
            raise SystemExit(f"{path}:{i + 1}: needs 'context' (list of strings) and 'output' (string)")
        if row.get("label") not in (0, 1):
            raise SystemExit(f"{path}:{i + 1}: 'label' must be 0 or 1")
    if limit is None or limit >= len(rows):
        return rows
    rng = random.Random(seed)
    by_label = {0: [r for r in rows if r["label"] == 0], 1: [r for r in rows if r["label"] == 1]}
    take0 = min(len(by_label[0]), limit // 2)
    take1 = min(len(by_label[1]), limit - take0)
    sample = rng.sample(by_label[0], take0) + rng.sample(by_label[1], take1)
    rng.shuffle(sample)
    return sample


async def score_all(rows: list[dict[str, Any]], judge: Judge, concurrency: int) -> list[dict[str, Any]]:
    scorer = create_faithfulness_scorer(judge, reason="template")
    gate = asyncio.Semaphore(concurrency)
    done = 0

    async def one(row: dict[str, Any]) -> dict[str, Any]:
        nonlocal done
        async with gate:
            started = time.perf_counter()
            try:
                result = await scorer.arun(output=row["output"], context=row["context"], run_id=row["id"])
                out: dict[str, Any] = {
                    "id": row["id"],
                    "label": row["label"],
                    "score": result.score,
                    "claims": len(result.preprocess_step_result or []),
                    "calls": sum(u.calls for u in result.usage.values()),
                    "prompt_tokens": sum(u.prompt_tokens for u in result.usage.values()),
                    "completion_tokens": sum(u.completion_tokens for u in result.usage.values()),
                    "verdicts": [v.verdict for v in result.verdicts],
                }
                p_yes = [p for v in result.analyze_step_result.verdicts if (p := v.p_supported) is not None]
                if p_yes:
                    out["min_p_yes"] = min(p_yes)
            except troth.TrothError as exc:
                out = {"id": row["id"], "label": row["label"], "error": f"{type(exc).__name__}: {exc}"}
            out["seconds"] = round(time.perf_counter() - started, 2)
            done += 1
            print(
                f"  [{done}/{len(rows)}] {row['id']}: {out.get('score', out.get('error'))} "
                f"(label {row['label']}, {out['seconds']}s)",
                file=sys.stderr,
                flush=True,
            )
            return out

    return list(await asyncio.gather(*(one(r) for r in rows)))


def summarise(items: list[dict[str, Any]], threshold: float, wall: float) -> dict[str, Any]:
    ok = [i for i in items if "error" not in i]
    with_p = [i for i in ok if "min_p_yes" in i]  # local judge: the least supported claim's P(yes)
    labels = [i["label"] for i in ok]
    scores = [i["score"] for i in ok]
    n = max(len(ok), 1)
    claims = sum(i["claims"] for i in ok)
    return {
        "items": len(items),
        "errors": len(items) - len(ok),
        "threshold": threshold,
        **detection(labels, scores, threshold),
        "balanced_accuracy_tuned": tuned_accuracy(labels, scores),
        "roc_auc": roc_auc(labels, scores),
        "roc_auc_min_p_yes": roc_auc([i["label"] for i in with_p], [i["min_p_yes"] for i in with_p])
        if len(with_p) == len(ok)
        else None,
        "calls_per_item": sum(i["calls"] for i in ok) / n,
        "prompt_tokens_per_item": sum(i["prompt_tokens"] for i in ok) / n,
        "completion_tokens_per_item": sum(i["completion_tokens"] for i in ok) / n,
        "claims_per_item": claims / n,
        "claims_per_s": claims / wall if wall else None,
        "wall_s": round(wall, 1),
    }


def markdown(report: dict[str, Any]) -> str:
    cols = (
        "items",
        "errors",
        "balanced_accuracy",
        "balanced_accuracy_tuned",
        "roc_auc",
        "roc_auc_min_p_yes",
        "f1",
        "calls_per_item",
        "prompt_tokens_per_item",
        "claims_per_s",
        "wall_s",
    )
    lines = [
        f"Model `{report['model']}`, troth {report['troth_version']} ({report['prompt_version']}), "
        f"{report['date']}, {report['machine']}, peak RSS {report['peak_rss_mb']:.0f} MB",
        "",
        *table(
            ["file", *cols], ([name, *(fmt(summary[c]) for c in cols)] for name, summary in report["files"].items())
        ),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="local", help="'provider/model', 'local[/name]', or a server's model name")
    parser.add_argument("--base-url", help="OpenAI-compatible server (then --model is the server's model name)")
    parser.add_argument("--api-key", help="key for --base-url (default: $TROTH_API_KEY)")
    parser.add_argument("--data", type=Path, nargs="*", help="JSONL files (default: every file in ../shared/data)")
    parser.add_argument("--limit", type=int, help="label-balanced sample size per file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threshold", type=float, default=1.0, help="score < threshold counts as unfaithful")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--quick", action="store_true", help="4 items from 2 files: a smoke test")
    parser.add_argument("--out", type=Path, help="output stem (default: bench/results/accuracy-<model>-<date>)")
    args = parser.parse_args(argv)

    files = args.data or [DATA_DIR / f"{name}.jsonl" for name in FILES]
    limit = args.limit
    if args.quick:
        files, limit = files[:2], 4
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        parser.error(f"data file(s) not found: {', '.join(missing)}")
    judge = Judge(args.model, base_url=args.base_url, api_key=args.api_key) if args.base_url else Judge(args.model)

    report: dict[str, Any] = {
        "model": judge.model_id,
        "troth_version": troth.__version__,
        "prompt_version": create_faithfulness_scorer(judge).prompt_version,
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": platform.platform(),
        "python": platform.python_version(),
        "limit": limit,
        "seed": args.seed,
        "files": {},
        "items": {},
    }
    stem = args.out or RESULTS / f"accuracy-{judge.model_id.replace('/', '_')}-{dt.date.today()}"
    for path in files:
        rows = load(path, limit, args.seed)
        print(f"{path.stem}: {len(rows)} items", file=sys.stderr)
        started = time.perf_counter()
        items = asyncio.run(score_all(rows, judge, args.concurrency))
        report["files"][path.stem] = summarise(items, args.threshold, time.perf_counter() - started)
        report["items"][path.stem] = items
        report["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        write_results(stem, report, markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
