"""Fit the verifier's calibration head: a logistic regression over the classifier's log-odds and
the claim's lexical evidence in its passage (troth.text.overlap).

It is fitted on pairs the classifier never saw: the validation pairs held out of training
(``--on valid``, the default, used for the shipped model). ``--on dev`` fits it on claims of the
dev files' training half instead (each sentence-claim of a faithful output supported, a
one-claim unfaithful output not); the classifier was trained on those, so it trusts the
classifier too much there (on the held-out halves: ROC AUC lower on 4 of 5 files).

    python -m train.head --model src/troth/models/verifier-minilm      # prints the head as JSON
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import DATA_DIR
from bench.splits import Fold, read_half
from train.data import DEV_FILES, passage_for, training_pairs
from train.pairs import SUPPORTED
from troth.judges.backends.verifier import VerifierBackend, VerifierModel
from troth.text.overlap import FEATURES, features
from troth.text.sentences import split_claims


def claim_examples(data_dir: Path, per_file: int) -> list[tuple[str, str, int]]:
    """(passage, claim, 1 = supported) from the training half of every dev file."""
    out = []
    for name in DEV_FILES:
        taken = 0
        for row in read_half(data_dir / f"{name}.jsonl", "train"):
            claims = split_claims(row["output"])
            if row["label"] == 0 and len(claims) != 1:
                continue  # which claim is wrong is not labeled
            out += [(passage_for(row["context"], claim), claim, int(row["label"])) for claim in claims]
            taken += 1
            if taken >= per_file:
                break
    return out


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 50) -> tuple[list[float], float]:
    """Logistic regression by Newton's method with an L2 penalty on the weights, classes balanced."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    weight = np.where(y == 1, 0.5 / max(y.mean(), 1e-9), 0.5 / max(1 - y.mean(), 1e-9))
    w = np.zeros(xb.shape[1])
    penalty = np.eye(xb.shape[1]) * l2
    penalty[-1, -1] = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(xb @ w)))
        grad = xb.T @ (weight * (p - y)) + penalty @ w
        hess = (xb * (weight * p * (1 - p))[:, None]).T @ xb + penalty
        w -= np.linalg.solve(hess, grad)
    return [round(float(v), 5) for v in w[:-1]], round(float(w[-1]), 5)


def validation_examples(
    data_dir: Path, synthetic: int, valid: int, seed: int, leave: Fold | None = None
) -> list[tuple[str, str, int]]:
    """(passage, claim, 1 = supported) for the validation pairs held out of training (of a run
    trained with fold ``leave`` left out: that run's own)."""
    pairs = training_pairs(data_dir, synthetic=synthetic, seed=seed, leave=leave)[:valid]
    return [(p.passage, p.claim, int(p.target == SUPPORTED)) for p in pairs]


def fit_head(model_dir: Path, examples: list[tuple[str, str, int]]) -> dict[str, Any]:
    raw = VerifierModel("raw", model_dir, {"max_tokens": 256})  # no head: the classifier alone
    scores = VerifierBackend(raw).classify_now([(p, c) for p, c, _ in examples])
    x = np.array(
        [
            features(p, c, (s.supported, s.contradicted, s.unverifiable))
            for (p, c, _), s in zip(examples, scores, strict=True)
        ]
    )
    y = np.array([label for _, _, label in examples], dtype=float)
    weights, bias = fit(x, y)
    return {
        "features": list(FEATURES),
        "weights": weights,
        "bias": bias,
        "claims": len(examples),
        "supported_share": round(float(y.mean()), 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, required=True, help="folder with model.onnx and tokenizer.json")
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    parser.add_argument("--on", choices=("valid", "dev"), default="valid")
    parser.add_argument("--per-file", type=int, default=400, help="with --on dev: items per dev file")
    args = parser.parse_args(argv)
    examples = (
        validation_examples(args.data_dir, 8000, 400, 0)
        if args.on == "valid"
        else claim_examples(args.data_dir, args.per_file)
    )
    print(json.dumps(fit_head(args.model, examples), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
