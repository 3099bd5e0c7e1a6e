"""The verifier's pairs classified one at a time against batches of 16, side by side.

    python -m bench.pair_batches                    # 60 answers of cliff-val's held-out half, 3 repeats
    python -m bench.pair_batches --file wice-dev --answers 30

The pairs are those the verifier reads: each claim of an answer against its windows of the
context. Each repeat classifies them alone (as troth does) and in batches of 16 sorted by length
(as it did before 2026-12-06), one way after the other. Reported: pairs/s of each (medians over
the repeats) and their ratio, and how far a pair's P(supported) in a batch lies from the same
pair's alone: the int8 model quantizes its activations over the whole input, so a batch couples
its pairs. Writes JSON and Markdown to bench/results/.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.common import DATA_DIR, RESULTS, fmt, table, write_results
from bench.splits import read_half
from troth.judges.backends.verifier import VerifierBackend, find_verifier, load_session, probabilities
from troth.judges.plans.pairs import pair_windows
from troth.text.sentences import split_claims
from troth.text.windows import window_text

BATCH = 16


def verifier_pairs(file: str, answers: int) -> list[tuple[str, str]]:
    """Each claim of the first ``answers`` answers of ``file``'s held-out half, against its windows."""
    pairs = []
    for row in read_half(Path(DATA_DIR) / f"{file}.jsonl", "held")[:answers]:
        claims = split_claims(row["output"])
        for claim, windows in zip(
            claims, pair_windows(row["context"], claims, False, aligned=False).windows, strict=True
        ):
            pairs += [(window_text(w), claim) for w in windows]
    return pairs


def batched(backend: VerifierBackend, pairs: list[tuple[str, str]]) -> list[float]:
    """P(supported) of each pair (before the card's calibration head), classified in padded
    batches of :data:`BATCH` sorted by length."""
    session, tokenizer = load_session(backend.model)
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
    out = [0.0] * len(pairs)
    for start in range(0, len(order), BATCH):
        chunk = order[start : start + BATCH]
        encodings = [tokenizer.encode(*pairs[i]) for i in chunk]
        probs = probabilities(session, encodings)
        for i, p in zip(chunk, probs, strict=True):
            out[i] = float(p[0])
    return out


def alone(backend: VerifierBackend, pairs: list[tuple[str, str]]) -> list[float]:
    """P(supported) of each pair classified alone (``backend`` without its calibration head)."""
    return [s.supported for s in backend.classify_now(pairs)]


def measure(file: str, answers: int, repeats: int) -> dict[str, Any]:
    model = find_verifier(None)
    backend = VerifierBackend(replace(model, card={**model.card, "head": None}))  # raw P, as batched() reads it
    pairs = verifier_pairs(file, answers)
    rates: dict[str, list[float]] = {"alone": [], "batches of 16": []}
    found: dict[str, list[float]] = {}
    alone(backend, pairs[:2])  # the session loaded before the clock starts
    for _ in range(repeats):
        for way, run in (("alone", alone), ("batches of 16", batched)):
            start = time.perf_counter()
            found[way] = run(backend, pairs)
            rates[way].append(len(pairs) / (time.perf_counter() - start))
    moved = [abs(a - b) for a, b in zip(found["alone"], found["batches of 16"], strict=True)]
    speed = {way: statistics.median(r) for way, r in rates.items()}
    return {
        "pairs": len(pairs),
        "pairs_per_s": speed,
        "ratio_alone_to_batches": speed["alone"] / speed["batches of 16"],
        "p_supported_moved": {
            "max": max(moved),
            "mean": statistics.fmean(moved),
            "over_0.02": sum(m > 0.02 for m in moved),
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", default="cliff-val")
    parser.add_argument("--answers", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    report = {"date": dt.date.today().isoformat(), "file": args.file, "answers": args.answers, "repeats": args.repeats}
    report |= measure(args.file, args.answers, args.repeats)
    moved = report["p_supported_moved"]
    lines = [
        f"# Verifier pairs alone and in batches ({report['date']})",
        "",
        f"{report['pairs']} pairs: the claims of {args.answers} answers of {args.file}'s held-out half against "
        f"their windows; medians over {args.repeats} repeats, both ways in each.",
        "",
        *table(["way", "pairs/s"], [[w, fmt(r, 1)] for w, r in report["pairs_per_s"].items()]),
        "",
        f"Alone / batches: {report['ratio_alone_to_batches']:.2f}x. P(supported) in a batch against alone: "
        f"max {moved['max']:.3f}, mean {moved['mean']:.3f}, {moved['over_0.02']} pairs moved by more than 0.02.",
        "",
    ]
    write_results(RESULTS / f"pair-batches-{args.file}-{report['date']}", report, "\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
