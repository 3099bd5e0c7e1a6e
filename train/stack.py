"""Fit the verifier's claim head (troth.judges.plans.stack) on the training halves of the dev
files and same-context edits of their claims.

    python -m train.stack --model src/troth/models/verifier-minilm                  # prints the head and its fit
    python -m train.stack --model src/troth/models/verifier-minilm --write          # and writes it into the card
    python -m train.stack --model ... --signs swapped_number substitute_gain       # other signs
    python -m train.stack --model ... --all-features                               # every feature, with a bias

By default only the features named by ``--signs`` (the alignment's three signs: a swapped number
or name, a negation mismatch) get weights, added to the classifier's log-odds as they are (weight
1, no bias): a claim without a sign keeps the classifier's
P(supported) exactly, so the card's threshold and uncertain band still hold. With
``--all-features`` every feature and a bias are fitted, and the threshold (the best balanced
accuracy on the real, unedited examples) and the band are chosen anew.

Examples: each claim of a faithful answer (supported), the one claim of an unfaithful one-claim
answer (not), and every edit of a faithful claim made from its own context (bench.perturb): a
number or name swapped, a negation (not supported), a synonym or a dropped intensifier
(supported). The held-out halves are never read.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import DATA_DIR
from bench.metrics import best_threshold, detection, roc_auc
from bench.perturb import edits_that_apply
from bench.splits import fold_of, read_half
from train.data import DEV_FILES
from train.head import fit
from train.package import BAND_SHARE, band_around
from troth.judges.backends.verifier import VerifierBackend, find_verifier
from troth.judges.plans.pairs import gather, pair_windows
from troth.judges.plans.stack import FEATURES, claim_features, substitute_gain, substitute_pairs
from troth.text.sentences import split_claims
from troth.text.windows import window_text

Example = tuple[list[str], str, int, bool]
"""(context, claim, 1 = supported, made by an edit)"""
SIGNS = FEATURES[3:]  # every feature but the classifier's log-odds and the coverage


def edited(context: list[str], claim: str, rng: random.Random) -> list[Example]:
    """Every fact edit (not supported) and kept-meaning edit (supported) that applies to a claim."""
    return [(context, e, 0 if fact else 1, True) for e, fact in edits_that_apply(claim, " ".join(context), rng)]


def examples(data_dir: Path, per_file: int, seed: int) -> list[Example]:
    """Real and edited examples from the training half of every dev file."""
    rng = random.Random(seed)
    out: list[Example] = []
    for name in DEV_FILES:
        rows = read_half(data_dir / f"{name}.jsonl", "train")
        rng.shuffle(rows)
        faithful = [r for r in rows if r["label"] == 1][:per_file]
        wrong = [r for r in rows if r["label"] == 0 and len(split_claims(r["output"])) == 1][:per_file]
        for row in faithful:
            for claim in split_claims(row["output"]):
                out.append((row["context"], claim, 1, False))
                out += edited(row["context"], claim, rng)
        out += [(r["context"], split_claims(r["output"])[0], 0, False) for r in wrong]
    return out


def features_of(backends: list[VerifierBackend], found: list[Example]) -> np.ndarray:
    """The head's features of each example, through the verifier as troth runs it; with several
    ``backends`` (cross-fitting), each example through the one trained without its fold."""
    rows = []
    for context, claim, _, _ in found:
        backend = backends[fold_of({"context": context}, len(backends))]  # one backend: fold 0 of 1
        found_windows = pair_windows(context, [claim], False, aligned=True)
        windows, (alignment,), (read,) = found_windows.windows, found_windows.alignments, found_windows.readings
        contrasts, _ = substitute_pairs([read], [window_text(found_windows.runs[0])])
        own = [(window_text(w), read) for w in windows[0]]
        scores = backend.classify_now(own + contrasts)
        (scored,) = gather([claim], windows, scores[: len(own)])
        supported, contradicted = scored.probability("supported"), scored.probability("contradicted")
        rows.append(claim_features(supported, contradicted, alignment, substitute_gain(scores[len(own) :])))
    return np.array(rows)


def check_folds(folds: Sequence[Path]) -> None:
    """Each of ``folds`` was trained without its own fold, in order (its card says so); else a
    SystemExit naming the first that was not."""
    for k, folder in enumerate(folds):
        left_out = find_verifier(str(folder)).card.get("training", {}).get("left_out_fold")
        if len(folds) < 2 or left_out != f"{k}/{len(folds)}":
            raise SystemExit(
                f"--folds: {folder} was trained without fold {left_out or 'none'}; "
                f"expected {k}/{len(folds)} (train.verifier train --leave-fold {k}/{len(folds)})"
            )


def fold_arguments(parser: argparse.ArgumentParser, gets: str) -> None:
    """The arguments of a script that reads its answers through fold verifiers: the verifier whose
    card ``gets`` the choice, the folds, the data and the sample."""
    parser.add_argument("--model", type=Path, required=True, help=f"the verifier whose claim head gets {gets}")
    parser.add_argument("--folds", type=Path, nargs="+", required=True, help="as train.stack --folds")
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    parser.add_argument("--per-label", type=int, default=75, help="answers of each label per file")
    parser.add_argument("--seed", type=int, default=0)


def fit_signs(x: np.ndarray, y: np.ndarray, signs: list[int], l2: float = 1.0, steps: int = 50) -> list[float]:
    """Weights of the features ``signs`` (indices) added to the classifier's log-odds (feature 0,
    weight 1, no bias); every other weight 0. Newton's method, classes balanced, an L2 penalty."""
    offset, chosen = x[:, 0], x[:, signs]
    balance = np.where(y == 1, 0.5 / max(y.mean(), 1e-9), 0.5 / max(1 - y.mean(), 1e-9))
    w = np.zeros(len(signs))
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(offset + chosen @ w)))
        grad = chosen.T @ (balance * (p - y)) + l2 * w
        hess = (chosen * (balance * p * (1 - p))[:, None]).T @ chosen + l2 * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    weights = [1.0] + [0.0] * (x.shape[1] - 1)
    for index, value in zip(signs, w, strict=True):
        weights[index] = round(float(value), 5)
    return weights


def stack_head(
    model: Path, data_dir: Path, per_file: int, seed: int, signs: tuple[str, ...] | None, folds: Sequence[Path] = ()
) -> dict[str, Any]:
    """The fitted head and how it fits; with ``signs`` None, every feature (and a threshold and
    band); with ``folds``, features through the verifiers trained without each fold."""
    card = find_verifier(str(model)).card
    check_folds(folds)
    found = examples(data_dir, per_file, seed)
    x = features_of([VerifierBackend(find_verifier(str(m))) for m in (folds or [model])], found)
    y = np.array([label for _, _, label, _ in found], dtype=float)
    if signs is None:
        weights, bias = fit(x, y)
    else:
        weights, bias = fit_signs(x, y, [FEATURES.index(s) for s in signs]), 0.0
    p = 1 / (1 + np.exp(-(x @ np.array(weights) + bias)))
    real = [i for i, example in enumerate(found) if not example[3]]
    labels, scores = [int(y[i]) for i in real], [float(p[i]) for i in real]
    yes = round(best_threshold(labels, scores), 4) if signs is None else float(card["yes_threshold"])
    edits = [i for i, (_, _, label, made) in enumerate(found) if made and label == 0]
    head: dict[str, Any] = {
        "features": list(FEATURES),
        "weights": weights,
        "bias": bias,
        "script": "train/stack.py",
        "seed": seed,
        "fitted": "every feature" if signs is None else list(signs),
        "examples": len(found),
        **({"cross_fitted": [str(m) for m in folds]} if folds else {}),
        "edited": sum(example[3] for example in found),
        "fit": {
            "real_examples": len(real),
            "roc_auc": roc_auc(labels, scores),
            "balanced_accuracy": detection(labels, scores, yes)["balanced_accuracy"],
            "fact_edits_below_threshold": float(np.mean([p[i] < yes for i in edits])) if edits else None,
        },
    }
    if signs is None:
        return {"stack": head, "yes_threshold": yes, "uncertain_band": list(band_around(yes, scores, BAND_SHARE))}
    return {"stack": head}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, required=True, help="the verifier's folder (with card.json)")
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    parser.add_argument("--per-file", type=int, default=150, help="faithful and unfaithful answers per dev file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--signs",
        nargs="+",
        choices=SIGNS,
        default=["swapped_number", "swapped_name", "negation_mismatch"],
        help="the signs fitted (substitute_gain: the classifier reads each claim's substitutes too)",
    )
    parser.add_argument(
        "--folds",
        type=Path,
        nargs="+",
        default=[],
        help="verifiers trained with --leave-fold 0/N ... N-1/N, in order: each example's features come from "
        "the one that never saw it (the head then holds for --model, trained on every fold)",
    )
    parser.add_argument("--all-features", action="store_true", help="every feature and a bias; a new threshold")
    parser.add_argument("--write", action="store_true", help="write the head (and threshold and band) into the card")
    args = parser.parse_args(argv)
    signs = None if args.all_features else tuple(args.signs)
    found = stack_head(args.model, args.data_dir, args.per_file, args.seed, signs, args.folds)
    print(json.dumps(found, indent=1))
    if args.write:
        card_file = args.model / "card.json"
        card = json.loads(card_file.read_text(encoding="utf-8"))
        card.update(found)
        card_file.write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
