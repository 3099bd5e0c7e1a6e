"""Would the embedding cosine between a claim and its best-aligned window help the claim head?

    python -m train.cosine --folds DIR0 DIR1          # training halves, cross-fitted: choose
    python -m train.cosine --half held                # held-out halves, the shipped verifier: check

Each answer is scored as troth scores it (the shipped claim head; with ``--folds``, through the
verifier trained without the answer's fold, as ``train.absent`` does). Each claim's log-odds z
then gain ``w * (cos - c)`` (``symmetric``) or ``w * min(cos - c, 0)`` (``penalty``: a low
cosine lowers P, a high one raises nothing), where cos is the cosine of mean-pooled
all-MiniLM-L6-v2 embeddings (the verifier's base, from the ``train`` extra; torch) of the claim
and its best-aligned window (``troth.text.alignment``). Per variant: ROC AUC of the least
supported claim and balanced accuracy of the verifier's own cut (every claim's z + gain at or
above the judge's ``yes_threshold`` in log-odds; the rule that a likelier contradiction decides
"no" is left out, for every row alike), per file and their means. The gains are data of this
probe: nothing here changes the shipped verifier.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import tempfile
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from bench.common import DATA_DIR, FILES, RESULTS, write_results
from bench.metrics import detection, roc_auc
from bench.splits import Half, fold_of
from bench.verifier import sample
from train.absent import claim_readings, with_head
from train.stack import check_folds
from troth.judges.backends.verifier import find_verifier
from troth.text.alignment import Alignment
from troth.text.overlap import log_odds

SHIPPED = Path(__file__).resolve().parents[1] / "src" / "troth" / "models" / "verifier-minilm"
GRID = [(w, c) for w in (4.0, 6.0, 8.0, 10.0, 14.0) for c in (0.5, 0.6, 0.7, 0.8)]
Answer = dict[str, Any]
"""label, threshold (the judge's yes_threshold as log-odds) and claims: [(z, cos)]"""


class Embedder:
    """The verifier's base sentence encoder, mean-pooled and normalised."""

    def __init__(self) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        from train.verifier import base_model_dir

        torch.set_num_threads(2)
        self.torch, folder = torch, str(base_model_dir())
        self.tokenizer, self.model = AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()

    def cosine(self, a: str, b: str) -> float:
        with self.torch.no_grad():
            batch = self.tokenizer([a, b], padding=True, truncation=True, max_length=256, return_tensors="pt")
            hidden, mask = self.model(**batch).last_hidden_state, batch["attention_mask"].unsqueeze(-1).float()
            pooled = self.torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=-1)
            return float(pooled[0] @ pooled[1])


async def answers(rows: list[dict[str, Any]], folders: Sequence[Path], embedder: Embedder) -> list[Answer]:
    """Each answer's claims as (z, cos), each through the verifier of ``folders`` for its fold."""
    thresholds = [log_odds(float(find_verifier(str(folder)).card["yes_threshold"]), 1e-4) for folder in folders]

    def read(z: float, claim: str, alignment: Alignment) -> tuple[float, float]:
        return z, embedder.cosine(claim, alignment.window)

    found = await claim_readings(rows, folders, read)
    return [
        {"label": row["label"], "threshold": thresholds[fold_of(row, len(folders))], "claims": claims}
        for row, claims in zip(rows, found, strict=True)
    ]


Gain = Callable[[float], float]


def measured(files: dict[str, list[Answer]], gain: Gain) -> dict[str, dict[str, float]]:
    """Per file, the ROC AUC of the least supported claim and the balanced accuracy of the own
    cut, with each claim's log-odds raised by ``gain(cos)``; and their means."""
    out: dict[str, dict[str, float]] = {}
    for name, found in files.items():
        labels = [a["label"] for a in found]
        lowest = [min((z + gain(cos) for z, cos in a["claims"]), default=10.0) for a in found]
        own = [float(all(z + gain(cos) >= a["threshold"] for z, cos in a["claims"])) for a in found]
        balanced = detection(labels, own, 1.0)["balanced_accuracy"]
        out[name] = {"roc_auc": roc_auc(labels, lowest) or 0.5, "balanced_accuracy": balanced or 0.0}
    out["mean"] = {m: sum(v[m] for v in out.values()) / len(files) for m in ("roc_auc", "balanced_accuracy")}
    return out


def symmetric(weight: float, centre: float, cos: float) -> float:
    return weight * (cos - centre)


def penalty(weight: float, centre: float, cos: float) -> float:
    return weight * min(cos - centre, 0.0)


def variants(grid: Sequence[tuple[float, float]] = GRID) -> dict[str, Gain]:
    """The shipped head unchanged, then each (weight, centre) of ``grid``, symmetric and penalty."""
    found: dict[str, Gain] = {"shipped": partial(symmetric, 0.0, 0.0)}
    for w, c in grid:
        found[f"symmetric {w:g}/{c:g}"] = partial(symmetric, w, c)
        found[f"penalty {w:g}/{c:g}"] = partial(penalty, w, c)
    return found


def table(report: dict[str, dict[str, dict[str, float]]], title: str = "") -> str:
    names = [n for n in next(iter(report.values())) if n != "mean"]
    lines = [
        *([title, ""] if title else []),
        f"| variant | ROC AUC: {' / '.join(names)} | mean | own-cut BA: {' / '.join(names)} | mean |",
        "|---|---|---|---|---|",
    ]
    for variant, m in report.items():
        auc = " / ".join(f"{m[n]['roc_auc']:.3f}" for n in names)
        ba = " / ".join(f"{m[n]['balanced_accuracy']:.3f}" for n in names)
        lines.append(
            f"| {variant} | {auc} | {m['mean']['roc_auc']:.4f} | {ba} | {m['mean']['balanced_accuracy']:.4f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, default=SHIPPED, help="the verifier whose claim head is used")
    parser.add_argument("--folds", type=Path, nargs="*", default=[], help="as train.stack --folds (training halves)")
    parser.add_argument("--half", choices=["train", "held"], default="train")
    parser.add_argument("--per-label", type=int, default=75)
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    parser.add_argument(
        "--out", type=Path, help="stem of the JSON and Markdown (default: bench/results/cosine-probe-...)"
    )
    args = parser.parse_args(argv)
    half: Half = args.half
    if args.folds:
        check_folds(args.folds)
    embedder, files = Embedder(), {}
    with tempfile.TemporaryDirectory() as tmp:
        head = find_verifier(str(args.model)).card["stack"]
        folders = [with_head(f, head, Path(tmp) / f"fold{k}") for k, f in enumerate(args.folds)] or [args.model]
        for name in FILES:
            rows = sample(args.data_dir / f"{name}.jsonl", args.per_label, 0, half)
            files[name] = asyncio.run(answers(rows, folders, embedder))
    report = {name: measured(files, gain) for name, gain in variants().items()}
    through = ", ".join(map(str, args.folds)) if args.folds else str(args.model)
    title = f"# Embedding cosine probe ({dt.date.today()}): {half} halves through {through}"
    print(table(report, title))
    write_results(
        args.out or RESULTS / f"cosine-probe-{dt.date.today()}-{half}-half", report, table(report, title) + "\n"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
