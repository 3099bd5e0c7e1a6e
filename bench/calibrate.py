"""Calibrate a local judge's ``yes_threshold`` on claim-level gold labels.

    python -m bench.calibrate --model llm/qwen2.5-coder-1.5b --limit 64

Each record's output is taken as one claim (qags-sentences has a human label per summary
sentence) and judged by the library's own verdict strategy for that judge; P(supported) is
the verifier's, or the LLM's P(yes) read from its token probabilities. The sample is split in
two halves (alternate items): the threshold with the best balanced accuracy on the dev half is
reported with its balanced accuracy on the test half, beside the ROC AUC of P(yes) and the
balanced accuracy of the model's current threshold.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

from bench.accuracy import load
from bench.common import DATA_DIR, RESULTS, write_results
from bench.metrics import best_threshold, detection, roc_auc
from troth import Judge
from troth.errors import ConfigError
from troth.judges.plans import support_probabilities
from troth.scorers.base import StepContext, StepResults
from troth.values import ScorerRun


async def p_yes(judge: Judge, rows: list[dict[str, Any]]) -> list[float]:
    out = []
    for i, row in enumerate(rows):
        started = time.perf_counter()
        run = ScorerRun(input="", output=row["output"], run_id=str(i), context=row["context"])
        session = StepContext(run=run, results=StepResults(), judge=judge, step="analyze")
        out.extend(await support_probabilities(session, row["context"], [row["output"]]))
        print(
            f"  [{i + 1}/{len(rows)}] label {row['label']} P(yes) {out[-1]:.3f} ({time.perf_counter() - started:.1f}s)",
            file=sys.stderr,
            flush=True,
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="local")
    parser.add_argument("--data", type=Path, default=DATA_DIR / "qags-sentences.jsonl")
    parser.add_argument("--limit", type=int, default=64, help="label-balanced sample size")
    parser.add_argument("--seed", type=int, default=1, help="sample seed (bench.accuracy uses 0)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if not args.data.is_file():
        parser.error(f"data file not found: {args.data}")
    judge = Judge(args.model)
    rows = load(args.data, args.limit, args.seed)
    try:
        scores = asyncio.run(p_yes(judge, rows))
    except ConfigError as exc:
        parser.error(str(exc))
    dev_s, test_s = scores[0::2], scores[1::2]
    labels = [r["label"] for r in rows]
    dev_y, test_y = labels[0::2], labels[1::2]
    # detection() flags score < threshold as unfaithful: a claim is supported when P(yes) >= threshold
    tuned = best_threshold(dev_y, dev_s)
    current = judge.yes_threshold
    report = {
        "model": judge.model_id,
        "data": args.data.name,
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": platform.platform(),
        "items": len(rows),
        "seed": args.seed,
        "roc_auc": roc_auc(labels, scores),
        "tuned_threshold": round(tuned, 3),
        "tuned_balanced_accuracy_dev": detection(dev_y, dev_s, tuned)["balanced_accuracy"],
        "tuned_balanced_accuracy_test": detection(test_y, test_s, tuned)["balanced_accuracy"],
        "current_threshold": current,
        "current_balanced_accuracy": detection(labels, scores, current)["balanced_accuracy"],
        "argmax_balanced_accuracy": detection(labels, scores, 0.5)["balanced_accuracy"],
        "p_yes": [
            {"id": r["id"], "label": r["label"], "p_yes": round(s, 4)} for r, s in zip(rows, scores, strict=True)
        ],
    }
    stem = args.out or RESULTS / f"calibrate-{judge.model_id.replace('/', '_')}-{dt.date.today()}"
    write_results(stem, report)
    print(json.dumps({k: v for k, v in report.items() if k != "p_yes"}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
