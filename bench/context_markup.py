"""Contexts written in Markdown or HTML, as RAG chunks and web pages come: does the score stay
what it is for the same text written plainly?

    python -m bench.context_markup                      # the offline verifier
    python -m bench.context_markup --model llm --per-label 10

Each held-out item (bench.splits; up to --per-label of each label a file) is scored against its
context as given (*plain*) and written two other ways with the same sentences: *markdown*, a
heading over one list item a sentence ("## Source\\n- ...\\n- ..."), and *html*, a heading and one
``<p>`` a sentence. Reported per file and writing: ROC AUC of the least supported claim's P,
balanced accuracy at the judge's own cut (score < 1.0), the share of items whose score moved
from the plain one (down, up), and the share of supported claims whose evidence quotes at most
one of the context's sentences (a list item, a paragraph) rather than a run of them. Writes JSON and Markdown to
bench/results/.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
from pathlib import Path
from typing import Any

from bench.common import DATA_DIR, RESULTS, fmt, table, write_results
from bench.metrics import detection, roc_auc
from bench.verifier import sample
from troth import Judge, create_faithfulness_scorer
from troth.text.sentences import split_sentences

WRITINGS = ("plain", "markdown", "html")
FILES = ("cliff-val", "qags-sentences", "begin-dev")


def written(context: list[str], writing: str) -> list[str]:
    """``context`` as ``writing`` writes it, sentence by sentence."""
    if writing == "plain":
        return context
    out = []
    for segment in context:
        sentences = split_sentences(segment)
        if writing == "markdown":
            out.append("\n".join(["## Source", *(f"- {s}" for s in sentences)]))
        else:
            out.append("<h2>Source</h2>" + "".join(f"<p>{s}</p>" for s in sentences))
    return out


async def score_file(model: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row scored against each writing of its context."""
    judge = Judge(model)
    scorer = create_faithfulness_scorer(judge, reason="template")
    out = []
    for row in rows:
        scores: dict[str, Any] = {}
        plain = [s for segment in row["context"] for s in split_sentences(segment)]
        for writing in WRITINGS:
            result = await scorer.arun(output=row["output"], context=written(row["context"], writing))
            least = min((p for v in result.verdicts if (p := v.p_supported) is not None), default=result.score)
            quotes = [v.evidence.quote for v in result.verdicts if v.verdict == "yes" and v.evidence]
            single = sum(sum(s in q for s in plain) <= 1 for q in quotes)
            scores[writing] = {"score": result.score, "p": least, "quotes": len(quotes), "single": single}
        out.append({"label": row["label"], "scores": scores})
    await judge.aclose()
    return out


def summary(items: list[dict[str, Any]]) -> dict[str, dict[str, float | None]]:
    """Per writing: ROC AUC, own-cut balanced accuracy, share moved down and up from plain, share
    of supported claims quoted as one sentence."""
    labels = [i["label"] for i in items]
    out = {}
    for writing in WRITINGS:
        got = [i["scores"][writing] for i in items]
        plain = [i["scores"]["plain"]["score"] for i in items]
        quotes = sum(g["quotes"] for g in got)
        out[writing] = {
            "roc_auc": roc_auc(labels, [g["p"] for g in got]),
            "balanced_accuracy": detection(labels, [g["score"] for g in got], 1.0)["balanced_accuracy"],
            "lower": sum(g["score"] < p - 0.005 for g, p in zip(got, plain, strict=True)) / len(items),
            "higher": sum(g["score"] > p + 0.005 for g, p in zip(got, plain, strict=True)) / len(items),
            "one_sentence_evidence": sum(g["single"] for g in got) / quotes if quotes else None,
        }
    return out


def markdown(report: dict[str, Any]) -> str:
    lines = [
        f"# Contexts in Markdown and HTML ({report['date']}): {report['judge']}",
        "",
        f"Held-out halves, up to {report['per_label']} items per label, seed {report['seed']}.",
        "",
    ]
    head = ["file", "context", "ROC AUC", "balanced accuracy", "score lower", "score higher", "one-sentence evidence"]
    rows = [
        [name, w, *(fmt(s[k]) for k in ("roc_auc", "balanced_accuracy"))]
        + [fmt(s[k], 2) for k in ("lower", "higher", "one_sentence_evidence")]
        for name, per in report["summary"].items()
        for w, s in per.items()
    ]
    return "\n".join([*lines, *table(head, rows), ""])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="local", help="the judge (default: the offline verifier)")
    parser.add_argument("--files", nargs="+", default=list(FILES))
    parser.add_argument("--per-label", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="stem of the JSON and Markdown written (default: bench/results/...)")
    args = parser.parse_args(argv)
    date = dt.date.today().isoformat()
    report: dict[str, Any] = {"date": date, "judge": args.model, "per_label": args.per_label, "seed": args.seed}
    report |= {"summary": {}, "results": {}}
    stem = args.out or RESULTS / f"context-markup-{args.model.replace('/', '_')}-{date}"
    for name in args.files:
        rows = sample(DATA_DIR / f"{name}.jsonl", args.per_label, args.seed)
        items = asyncio.run(score_file(args.model, rows))
        report["summary"][name], report["results"][name] = summary(items), items
        write_results(stem, report, markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
