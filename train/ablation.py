"""What the verifier's classifier adds to lexical evidence, on the held-out half of every dev file.

    python -m train.ablation            # 75 items per label held out, 150 per label to fit
    python -m train.ablation --quick    # smoke run

Every claim of an output (troth.text.sentences.split_claims) is classified against its windows, as
the verifier does (troth.judges.plans.pairs). An output's P(faithful) is its least
supported claim's P under each of these methods:

- ``baseline``: the word-overlap baseline of bench.verifier (no model);
- ``shipped``: the shipped verifier (its card's head over the best window);
- ``classifier``: the classifier's own P(supported), best window, no head;
- ``lexical head``: a logistic regression over the claim's content-word share, missing words,
  missing number and missing name in the *whole* context (no model);
- ``classifier + lexical``: the same with the classifier's two log-odds added.

The two heads are fitted on claims of the dev files' training half (every claim of a faithful
output supported; a one-claim unfaithful output not), as ``train.head --on dev`` does; the
classifier was trained on that half too. Reported per file: balanced accuracy at a threshold
tuned on the other half of the sample (bench.metrics.tuned_accuracy) and ROC AUC.
"""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Callable
from typing import Any

import numpy as np

from bench.common import DATA_DIR, FILES, RESULTS, fmt, table, write_results
from bench.metrics import roc_auc, tuned_accuracy
from bench.verifier import overlap_baseline, sample
from train.head import fit
from troth.judges.backends.verifier import VerifierBackend, VerifierModel, find_verifier
from troth.judges.plans.pairs import WINDOW_CHARS
from troth.text.overlap import apply_head, features
from troth.text.sentences import split_claims
from troth.text.windows import claim_windows, context_sentences, window_text

Item = dict[str, Any]
HEADS = {"lexical head": slice(2, 6), "classifier + lexical": slice(0, 6)}


def claim_features(raw: VerifierBackend, head: dict[str, Any], row: Item) -> list[dict[str, Any]]:
    """Per claim: the shipped head's and the classifier's P over its best window, and the
    classifier's log-odds there followed by the claim's lexical evidence in the whole context."""
    sentences = context_sentences(row["context"], WINDOW_CHARS)
    full = " ".join(row["context"])
    out = []
    for claim in split_claims(row["output"]):
        pairs = [(window_text(w), claim) for w in claim_windows(sentences, claim, WINDOW_CHARS, scan=False)]
        if not pairs:
            continue
        scores = raw.classify_now(pairs)
        local = [
            features(p, claim, (s.supported, s.contradicted, s.unverifiable))
            for (p, _), s in zip(pairs, scores, strict=True)
        ]
        shipped = [apply_head(x, head["weights"], head["bias"]) for x in local]
        best = int(np.argmax(shipped))
        out.append(
            {
                "shipped": shipped[best],
                "classifier": max(s.supported for s in scores),
                "x": local[best][:2] + features(full, claim, (0.5, 0.5, 0.0))[2:],
            }
        )
    return out


def items_of(raw: VerifierBackend, head: dict[str, Any], rows: list[Item]) -> list[Item]:
    return [
        {"label": r["label"], "baseline": overlap_baseline(r), "claims": claim_features(raw, head, r)} for r in rows
    ]


def fit_head(train: list[Item], columns: slice) -> Callable[[list[float]], float]:
    """A claim head over ``columns`` of the claim features, fitted on labeled claims of ``train``."""
    pairs = [
        (c["x"][columns], it["label"])
        for it in train
        for c in it["claims"]
        if it["label"] == 1 or len(it["claims"]) == 1
    ]
    weights, bias = fit(np.array([x for x, _ in pairs]), np.array([y for _, y in pairs], dtype=float))
    return lambda x: apply_head(x[columns], weights, bias)


def methods(train: list[Item]) -> dict[str, Callable[[Item], float]]:
    """Each method's P(faithful) of an item."""
    heads = {name: fit_head(train, columns) for name, columns in HEADS.items()}

    def least(key: Callable[[dict[str, Any]], float]) -> Callable[[Item], float]:
        return lambda it: min((key(c) for c in it["claims"]), default=1.0)

    found: dict[str, Callable[[Item], float]] = {
        "baseline": lambda it: float(it["baseline"]),
        "shipped": least(lambda c: float(c["shipped"])),
        "classifier": least(lambda c: float(c["classifier"])),
    }

    def on_features(head: Callable[[list[float]], float]) -> Callable[[dict[str, Any]], float]:
        return lambda c: head(c["x"])

    return found | {name: least(on_features(head)) for name, head in heads.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=None, help="a packaged verifier or a folder (default: shipped)")
    parser.add_argument("--per-label", type=int, default=75)
    parser.add_argument("--fit-per-label", type=int, default=150)
    parser.add_argument("--quick", action="store_true", help="10 items per label, 20 to fit")
    args = parser.parse_args(argv)
    if args.quick:
        args.per_label, args.fit_per_label = 10, 20
    model = find_verifier(args.model)
    raw = VerifierBackend(VerifierModel("raw", model.path, {"max_tokens": model.max_tokens}))  # no head
    held: dict[str, list[Item]] = {}
    train: list[Item] = []
    for name in FILES:
        held[name] = items_of(raw, model.card["head"], sample(DATA_DIR / f"{name}.jsonl", args.per_label, 0))
        train += items_of(raw, model.card["head"], sample(DATA_DIR / f"{name}.jsonl", args.fit_per_label, 1, "train"))
    report = {
        "model": model.name,
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "per_label": args.per_label,
        "fit_items": len(train),
        "files": {},
    }
    for method, p in methods(train).items():
        for name, items in held.items():
            labels, probs = [it["label"] for it in items], [p(it) for it in items]
            entry = {"balanced_accuracy_tuned": tuned_accuracy(labels, probs), "roc_auc": roc_auc(labels, probs)}
            report["files"].setdefault(method, {})[name] = entry
    rows = [
        [
            m,
            *(f"{fmt(e['balanced_accuracy_tuned'])} / {fmt(e['roc_auc'])}" for e in f.values()),
            fmt(float(np.mean([e["balanced_accuracy_tuned"] for e in f.values()]))),
        ]
        for m, f in report["files"].items()
    ]
    text = "\n".join(
        [
            f"Verifier ablation, `{model.name}`, {report['date']}: held-out halves, up to {args.per_label} "
            f"items per label; heads fitted on {len(train)} training-half items. Cells: tuned balanced "
            "accuracy / ROC AUC.",
            "",
            *table(["method", *FILES, "mean tuned BA"], rows),
            "",
        ]
    )
    write_results(RESULTS / f"verifier-ablation-{dt.date.today()}{'-quick' if args.quick else ''}", report, text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
