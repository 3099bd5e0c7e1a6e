"""The offline verifier, the word-overlap baseline, and (optionally) the cascade and the
LLM-only offline judge, side by side on the held-out half of every dev file (bench.splits).

    python -m bench.verifier                                   # verifier + baseline, 75 items per label
    python -m bench.verifier --llm llm/qwen2.5-coder-1.5b --llm-items 16   # + cascade and LLM-only
    python -m bench.verifier --quick                           # smoke run

Per file and method: ROC AUC, balanced accuracy at the method's own cut (score < 1.0, i.e. any
claim not supported) and at a threshold tuned on the other half of the sample (both ways,
averaged), expected calibration error of P(faithful) (the least supported claim's P), predicted
verdict counts by gold label, claims/s. Process-wide: peak RSS and cold start (a fresh process
scoring the bundled example). Writes JSON and Markdown to bench/results/.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.common import DATA_DIR, FILES, RESULTS, fmt, table, write_results
from bench.metrics import detection, roc_auc, tuned_accuracy
from bench.splits import Half, read_half
from troth import Judge, create_faithfulness_scorer
from troth.judges.backends.verifier import VerifierBackend
from troth.text.sentences import split_sentences
from troth.text.windows import terms


def sample(path: Path, per_label: int, seed: int, half: Half = "held") -> list[dict[str, Any]]:
    """Up to ``per_label`` items of each label from ``half`` of the file, shuffled."""
    rows = read_half(path, half)
    rng = random.Random(seed)
    picked = []
    for label in (0, 1):
        group = [r for r in rows if r["label"] == label]
        picked += rng.sample(group, min(per_label, len(group)))
    rng.shuffle(picked)
    return picked


def overlap_baseline(row: dict[str, Any]) -> float:
    """The lowest share of a sentence's content words found anywhere in the context."""
    context = set(terms(" ".join(row["context"])))
    shares = [sum(w in context for w in ws) / len(ws) for s in split_sentences(row["output"]) if (ws := terms(s))]
    return min(shares, default=1.0)


def ece(labels: list[int], probs: list[float], bins: int = 10) -> float:
    """Expected calibration error of P(faithful) against the labels."""
    total, n = 0.0, len(labels)
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        idx = [i for i, p in enumerate(probs) if lo <= p < hi or (b == bins - 1 and p == 1.0)]
        if idx:
            total += len(idx) / n * abs(sum(labels[i] for i in idx) / len(idx) - sum(probs[i] for i in idx) / len(idx))
    return total


async def score_rows(judge: Judge, rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], float]:
    """Each row scored by the faithfulness scorer on ``judge``: score, min P(supported), verdicts."""
    scorer = create_faithfulness_scorer(judge, reason="template")
    out = []
    started = time.perf_counter()
    for row in rows:
        result = await scorer.arun(output=row["output"], context=row["context"])
        verdicts = result.analyze_step_result.verdicts
        ps = [p for v in verdicts if (p := v.p_supported) is not None]
        out.append(
            {
                "id": row["id"],
                "label": row["label"],
                "score": result.score,
                "p_faithful": min(ps, default=1.0),
                "verdicts": [v.verdict for v in verdicts],
                "decided_by": [v.decided_by for v in verdicts],
            }
        )
    await judge.aclose()
    return out, time.perf_counter() - started


def summarise(items: list[dict[str, Any]], wall: float | None, first: str | None = None) -> dict[str, Any]:
    """Metrics of scored items; with ``first`` (a cascade's first stage), the share of claims
    that its second judge decided."""
    labels = [i["label"] for i in items]
    scores = [i["score"] for i in items]
    probs = [i["p_faithful"] for i in items]
    claims = sum(len(i.get("verdicts", [])) for i in items)
    sent = sum(1 for i in items for by in i.get("decided_by", []) if first and by not in (None, first))
    counts = {str(y): dict(Counter(v for i in items if i["label"] == y for v in i.get("verdicts", []))) for y in (0, 1)}
    return {
        "items": len(items),
        "balanced_accuracy": detection(labels, scores, 1.0)["balanced_accuracy"],
        "balanced_accuracy_tuned": tuned_accuracy(labels, probs),
        "roc_auc": roc_auc(labels, probs),
        "ece": ece(labels, probs),
        "claims_per_s": claims / wall if wall and claims else None,
        "share_to_second": sent / claims if first and claims else None,
        "verdicts_by_label": counts,
    }


def card_copy(model: str, folder: Path, overrides: dict[str, Any]) -> str:
    """A copy of the verifier ``model`` (its files linked) whose card has ``overrides``
    (``scan_windows``: every window of a long context; ``aligned_window``; ``second_look``)."""
    source = Judge(model).backend()
    if not isinstance(source, VerifierBackend):
        raise SystemExit("--scan-windows, --aligned-window and --second-look need a verifier model")
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("model.onnx", "tokenizer.json"):
        (folder / name).symlink_to((source.model.path / name).resolve())
    (folder / "card.json").write_text(json.dumps(source.model.card | overrides))
    return f"local/{folder}"


def with_card_options(args: argparse.Namespace) -> str:
    """``args.model``, or a copy of it whose card turns on what --scan-windows, --aligned-window
    and --second-look ask for."""
    model: str = args.model
    if args.scan_windows:
        model = card_copy(model, Path(tempfile.mkdtemp()) / "scan", {"scan_windows": True, "name": "scan"})
    if args.aligned_window:
        model = card_copy(model, Path(tempfile.mkdtemp()) / "aligned", {"aligned_window": True, "name": "aligned"})
    if args.second_look is not None:
        look = {"second_look": args.second_look, "name": f"look-{args.second_look}"}
        model = card_copy(model, Path(tempfile.mkdtemp()) / "look", look)
    return model


def cold_start(model: str) -> float:
    """Seconds for a fresh interpreter to import troth, load the verifier and score the example."""
    code = (
        "import json,time;t=time.perf_counter();from troth import create_faithfulness_scorer as c;"
        "from importlib import resources;e=json.loads(resources.files('troth').joinpath('examples/model3.json')"
        ".read_text());"
        f"c({model!r},context=e['context']).run(output=e['output']);print(time.perf_counter()-t)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


async def one_file(name: str, args: argparse.Namespace) -> dict[str, Any]:
    rows = sample(DATA_DIR / f"{name}.jsonl", args.per_label, args.seed, args.half)
    baseline = [{"label": r["label"], "score": b, "p_faithful": b} for r in rows if (b := overlap_baseline(r)) >= 0]
    verified, wall = await score_rows(Judge(args.model), rows)
    report = {"baseline": summarise(baseline, None), "verifier": summarise(verified, wall)}
    if args.llm:
        few = rows[: args.llm_items]
        by_id = {v["id"]: v for v in verified}
        report["verifier (LLM items)"] = summarise([by_id[r["id"]] for r in few], None)
        if not args.skip_llm_only:
            llm, llm_wall = await score_rows(Judge(args.llm), few)
            report["LLM only"] = summarise(llm, llm_wall)
        cascade, c_wall = await score_rows(Judge(args.model, second_opinion=args.llm), few)
        report["cascade"] = summarise(cascade, c_wall, first=Judge(args.model).backend().model_id)
    return report


def markdown(report: dict[str, Any]) -> str:
    cols = (
        "items",
        "balanced_accuracy",
        "balanced_accuracy_tuned",
        "roc_auc",
        "ece",
        "claims_per_s",
        "share_to_second",
    )
    rows = [
        [name, method, *(fmt(s[c]) for c in cols)]
        for name, methods in report["files"].items()
        for method, s in methods.items()
    ]
    head = (
        f"Verifier `{report['model']}`, {report['date']}, {report['machine']}; "
        f"{report.get('half', 'held-out')} halves, up to {report['per_label']} items per label; "
        f"peak RSS {report['peak_rss_mb']:.0f} MB; "
        f"cold start {report['cold_start_s']:.2f} s."
    )
    return "\n".join([head, "", *table(["file", "method", *cols], rows), ""])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="local")
    parser.add_argument("--per-label", type=int, default=75)
    parser.add_argument("--llm", help="a local LLM judge for the cascade and LLM-only rows")
    parser.add_argument("--llm-items", type=int, default=16)
    parser.add_argument("--skip-llm-only", action="store_true", help="with --llm: the cascade row only")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--files", nargs="*", default=list(FILES))
    parser.add_argument("--quick", action="store_true", help="4 items per label, two files")
    parser.add_argument("--scan-windows", action="store_true", help="check every window of long contexts too")
    parser.add_argument(
        "--aligned-window", action="store_true", help="read every claim against its best-aligned sentences too"
    )
    parser.add_argument(
        "--second-look",
        action=argparse.BooleanOptionalAction,
        help="a contradicted claim checked again against its aligned sentences (default: as the card says)",
    )
    parser.add_argument(
        "--half",
        choices=["held", "train"],
        default="held",
        help="the held-out halves (what is reported), or the training halves (to choose a variant)",
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if args.quick:
        args.per_label, args.files = 4, args.files[:2]
    args.model = with_card_options(args)
    report: dict[str, Any] = {
        "model": Judge(args.model).backend().model_id,
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "per_label": args.per_label,
        "half": "held-out" if args.half == "held" else "training",
        "cold_start_s": cold_start(args.model),
        "files": {},
    }
    suffix = (
        ("-quick" if args.quick else "")
        + ("-scan" if args.scan_windows else "")
        + ("-aligned-window" if args.aligned_window else "")
        + ({True: "-second-look", False: "-no-second-look", None: ""}[args.second_look])
        + ("-train-half" if args.half == "train" else "")
    )
    stem = args.out or RESULTS / f"verifier-{dt.date.today()}{suffix}"
    for name in args.files:
        report["files"][name] = asyncio.run(one_file(name, args))
        report["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        write_results(stem, report, markdown(report))
        print(json.dumps({name: report["files"][name]}, indent=1), flush=True)
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
