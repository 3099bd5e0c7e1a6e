"""Should a "supported" verdict without a quote found in the context count as supported?

    python -m bench.evidence_policy --limit 24            # the local model over HTTP, every dev file
    python -m bench.evidence_policy --base-url URL --model NAME --limit 100

One pass of the faithfulness scorer with ``require_evidence=False`` through an HTTP judge (the
strategy that asks for evidence quotes); each item is then scored both ways from the same
verdicts: as given, and with unquoted support counted as unsure (``require_evidence=True``).
Reports balanced accuracy of "unfaithful" detection (score < 1, and at the best threshold),
ROC AUC and the share of supported verdicts that were unquoted, per file. Writes JSON and
Markdown to bench/results/.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import platform
import sys
from pathlib import Path
from typing import Any

from bench.accuracy import load
from bench.common import DATA_DIR, FILES, RESULTS, fmt, table, write_results
from bench.metrics import detection, roc_auc, tuned_accuracy
from troth import Judge, TrothError, create_faithfulness_scorer
from troth.testing import FakeOpenAIServer


def item_scores(verdicts: list[Any]) -> dict[str, Any]:
    """Score as given and with unquoted support demoted, from one item's verdicts."""
    n = max(len(verdicts), 1)
    yes = sum(v.verdict == "yes" for v in verdicts)
    unquoted = sum(v.verdict == "yes" and v.unquoted for v in verdicts)
    return {"as_given": yes / n, "require_evidence": (yes - unquoted) / n, "yes": yes, "unquoted": unquoted}


async def score_file(rows: list[dict[str, Any]], judge: Judge, concurrency: int) -> list[dict[str, Any]]:
    scorer = create_faithfulness_scorer(judge, reason="template", require_evidence=False)
    gate = asyncio.Semaphore(concurrency)

    async def one(row: dict[str, Any]) -> dict[str, Any]:
        async with gate:
            try:
                result = await scorer.arun(output=row["output"], context=row["context"])
            except TrothError as exc:
                print(f"  {row['id']}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
                return {"label": row["label"], "error": str(exc)}
            out = {"label": row["label"], **item_scores(list(result.analyze_step_result.verdicts))}
            print(f"  {row['id']}: {out}", file=sys.stderr, flush=True)
            return out

    return list(await asyncio.gather(*(one(r) for r in rows)))


def summarise(items: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [i for i in items if "error" not in i]
    labels = [i["label"] for i in ok]
    out: dict[str, Any] = {"items": len(items), "errors": len(items) - len(ok)}
    for policy in ("as_given", "require_evidence"):
        scores = [i[policy] for i in ok]
        out[f"{policy}_ba"] = detection(labels, scores, 1.0)["balanced_accuracy"]
        out[f"{policy}_ba_tuned"] = tuned_accuracy(labels, scores)
        out[f"{policy}_auc"] = roc_auc(labels, scores)
    yes = sum(i["yes"] for i in ok)
    out["unquoted_share_of_yes"] = sum(i["unquoted"] for i in ok) / yes if yes else None
    return out


def markdown(report: dict[str, Any]) -> str:
    cols = [
        "items",
        "errors",
        "unquoted_share_of_yes",
        "as_given_ba",
        "require_evidence_ba",
        "as_given_ba_tuned",
        "require_evidence_ba_tuned",
        "as_given_auc",
        "require_evidence_auc",
    ]
    rows = ([n, *(fmt(s[c]) for c in cols)] for n, s in report["files"].items())
    head = f"Judge `{report['judge']}` ({report['base_url']}), {report['date']}, {report['limit']} items per file"
    return "\n".join([head, "", *table(["file", *cols], rows)]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", help="OpenAI-compatible judge (default: the local model served on loopback)")
    parser.add_argument("--model", default="judge", help="the server's model name, or the local model to serve")
    parser.add_argument("--files", default=",".join(FILES))
    parser.add_argument("--limit", type=int, default=24, help="label-balanced items per file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--out", type=Path, help="output stem (default: bench/results/evidence-policy-<date>)")
    args = parser.parse_args(argv)
    if args.base_url:
        return run(args, args.base_url)
    from bench.local_server import LocalModelResponder

    model = None if args.model == "judge" else args.model
    with FakeOpenAIServer(responder=LocalModelResponder(model)) as server:
        return run(args, server.base_url)


def run(args: argparse.Namespace, base_url: str) -> int:
    judge = Judge(args.model, base_url=base_url, api_key="not-needed", timeout=600, max_retries=0)
    files: dict[str, Any] = {}
    report = {
        "date": dt.date.today().isoformat(),
        "machine": platform.platform(),
        "judge": args.model,
        "base_url": args.base_url or "local model on loopback",
        "limit": args.limit,
        "files": files,
    }
    stem = args.out or RESULTS / f"evidence-policy-{report['date']}"
    for name in args.files.split(","):
        rows = load(DATA_DIR / f"{name}.jsonl", args.limit, args.seed)
        print(f"{name}: {len(rows)} items", file=sys.stderr, flush=True)
        files[name] = summarise(asyncio.run(score_file(rows, judge, args.concurrency)))
        write_results(stem, report, markdown(report))  # after every file: a long run keeps what it finished
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
