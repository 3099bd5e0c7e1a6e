"""Judge calls, tokens and dollars per 1,000 items, from side-by-side runs of ``bench.compare``.

    python -m bench.cost RESULT.json[#TOOL[=LABEL],...] ... [--model openai/gpt-4o-mini] [--out STEM]

Each argument is a ``bench.compare`` JSON report; after ``#``, the tools to take from it and the
label each gets in the table (default: every tool, by its name). Per row: calls, prompt and
completion tokens per 1,000 items, pooled over the report's files (tokens as the judge endpoint
counted them, through the recording proxy), and what they cost at ``--model``'s list prices
(``troth.prices``). Rows are only comparable when their reports scored the same items on the
same judge: the reports' samples and judges are printed beside the table.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench.common import fmt, table, write_results
from troth.prices import price_for

PER = 1000


def parse_spec(spec: str) -> tuple[Path, dict[str, str] | None]:
    """``PATH#tool=label,tool`` -> (PATH, {tool: label}); no ``#``: every tool."""
    path, _, picks = spec.partition("#")
    if not picks:
        return Path(path), None
    chosen = {}
    for pick in picks.split(","):
        tool, _, label = pick.partition("=")
        chosen[tool.strip()] = label.strip() or tool.strip()
    return Path(path), chosen


def pooled(report: dict[str, Any], tool: str) -> dict[str, float] | None:
    """Calls and tokens per item of ``tool`` over every file of ``report`` (weighted by items)."""
    rows = [r for results in report["files"].values() for r in results if r["tool"] == tool]
    items = sum(r["items"] for r in rows)
    if not items:
        return None
    keys = ("calls_per_item", "prompt_tokens_per_item", "completion_tokens_per_item")
    return {k: sum(r[k] * r["items"] for r in rows) / items for k in keys} | {"items": items}


def rows_of(specs: list[str], model: str) -> tuple[list[dict[str, Any]], list[str]]:
    """One row per chosen tool of each report, and a line per report saying what it measured."""
    prices = price_for(model)
    if prices is None:
        raise SystemExit(f"no list price for {model!r}: pick a model troth.prices knows")
    rows, sources = [], []
    for spec in specs:
        path, chosen = parse_spec(spec)
        report = json.loads(path.read_text(encoding="utf-8"))
        sources.append(
            f"`{path.name}`: judge `{report['judge']}`, {report['limit']} items per file "
            f"(seed {report['seed']}) of {', '.join(report['files'])}"
        )
        tools = chosen or {t: t for t in dict.fromkeys(r["tool"] for rs in report["files"].values() for r in rs)}
        for tool, label in tools.items():
            found = pooled(report, tool)
            if found is None:
                raise SystemExit(f"{path}: no rows of {tool!r}")
            prompt, completion = found["prompt_tokens_per_item"] * PER, found["completion_tokens_per_item"] * PER
            dollars = (prompt * prices.input_per_million + completion * prices.output_per_million) / 1e6
            rows.append(
                {
                    "label": label,
                    "items": found["items"],
                    "calls": found["calls_per_item"] * PER,
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "usd": dollars,
                }
            )
    return rows, sources


def markdown(rows: list[dict[str, Any]], sources: list[str], model: str) -> str:
    lines = [f"Per {PER:,} items, at the list prices of `{model}`:", ""]
    lines += table(
        ["tool", "items measured", "judge calls", "prompt tokens", "completion tokens", "US$"],
        (
            [
                r["label"],
                r["items"],
                f"{r['calls']:,.0f}",
                f"{r['prompt_tokens']:,.0f}",
                f"{r['completion_tokens']:,.0f}",
                fmt(r["usd"], 3),
            ]
            for r in rows
        ),
    )
    return "\n".join([*lines, "", "Measured by:", "", *(f"- {s}" for s in sources)]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reports", nargs="+", help="bench.compare JSON reports, each PATH[#TOOL[=LABEL],...]")
    parser.add_argument("--model", default="openai/gpt-4o-mini", help="whose list prices (default: %(default)s)")
    parser.add_argument("--out", type=Path, help="also write <out>.json and <out>.md")
    args = parser.parse_args(argv)
    rows, sources = rows_of(args.reports, args.model)
    text = markdown(rows, sources, args.model)
    if args.out is not None:
        write_results(args.out, {"model": args.model, "per_items": PER, "rows": rows, "sources": sources}, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
