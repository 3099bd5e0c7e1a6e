"""Answers about a tool's JSON result, as an agent's context holds it: does the score keep a
faithful answer and notice a changed fact?

    python -m bench.tool_results                 # the offline verifier
    python -m bench.tool_results --model llm     # another judge

bench/data/tool-results.jsonl holds 20 crafted tool results (weather, orders, flights, people,
search results, calendars, ...: JSON with sorted keys on one line, as troth writes a tool's
structured result), each with a faithful answer and the same answer with one fact changed (a
value of the same result swapped in, or another value). Reported: the faithful answers' mean
score and the share scored 1.0, the share of changed answers scored below their faithful one,
beside the word counter (bench.verifier's baseline). Writes JSON and Markdown to bench/results/.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
from pathlib import Path
from typing import Any

from bench.common import RESULTS, fmt, table, write_results
from bench.metrics import roc_auc
from bench.verifier import overlap_baseline
from troth import Judge, create_faithfulness_scorer

DATA = Path(__file__).parent / "data" / "tool-results.jsonl"


async def score_items(model: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row's faithful and changed answers scored against its one-segment context."""
    judge = Judge(model)
    scorer = create_faithfulness_scorer(judge, reason="template")
    out = []
    for row in rows:
        scores = {}
        for kind in ("faithful", "changed"):
            result = await scorer.arun(output=row[kind], context=[row["context"]])
            counter = overlap_baseline({"output": row[kind], "context": [row["context"]]})
            least = min((p for v in result.verdicts if (p := v.p_supported) is not None), default=result.score)
            scores[kind] = {"judge": result.score, "judge_p": least, "counter": counter, "counter_p": counter}
        out.append({"faithful": row["faithful"], "scores": scores})
    await judge.aclose()
    return out


def summary(items: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per method: faithful mean score, share of faithful at 1.0, share of changed below faithful,
    ROC AUC of the least supported claim's P (the counter's share) between faithful and changed."""
    out = {}
    for method in ("judge", "counter"):
        good = [i["scores"]["faithful"][method] for i in items]
        bad = [i["scores"]["changed"][method] for i in items]
        out[method] = {
            "faithful_mean": sum(good) / len(good),
            "faithful_full": sum(g >= 1.0 for g in good) / len(good),
            "changed_lower": sum(b < g for g, b in zip(good, bad, strict=True)) / len(good),
            "roc_auc": roc_auc(
                [1] * len(items) + [0] * len(items),
                [i["scores"][kind][f"{method}_p"] for kind in ("faithful", "changed") for i in items],
            ),
        }
    return out


def markdown(report: dict[str, Any]) -> str:
    lines = [
        f"# Answers about JSON tool results ({report['date']}): {report['judge']}",
        "",
        f"{report['items']} crafted tool results (bench/data/tool-results.jsonl), a faithful and a changed answer each",
        "",
    ]
    rows = [
        [m, fmt(s["faithful_mean"], 2), fmt(s["faithful_full"], 2), fmt(s["changed_lower"], 2), fmt(s["roc_auc"], 3)]
        for m, s in report["summary"].items()
    ]
    head = ["method", "faithful: mean score", "faithful: scored 1.0", "changed: scored lower", "ROC AUC"]
    lines += table(head, rows)
    return "\n".join([*lines, ""])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="local", help="the judge (default: the offline verifier)")
    parser.add_argument("--out", type=Path, help="stem of the JSON and Markdown written (default: bench/results/...)")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    items = asyncio.run(score_items(args.model, rows))
    date = dt.date.today().isoformat()
    report = {"date": date, "judge": args.model, "items": len(items), "summary": summary(items), "results": items}
    write_results(args.out or RESULTS / f"tool-results-{args.model.replace('/', '_')}-{date}", report, markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
