"""Choose the claim head's weights for a claim's words that its context holds nowhere (features
``absent_names_numbers`` and ``absent_words``), by the ROC AUC of answers on the training halves.

    python -m train.absent --model src/troth/models/verifier-minilm \
        --folds /path/fold0 /path/fold1            # prints the grid and the best cell
    python -m train.absent ... --write             # and writes those weights into --model's card

Why not train.stack's fit: its examples are claims, most negatives same-context edits that bring
no new word in, so a fitted weight for these counts comes out near 0 (-0.10 and -0.03), though on
whole answers they separate faithful from not better than any sign. Here each training-half
answer is scored as troth scores it, through the verifier trained without its fold (train.verifier
--leave-fold: the shipped one has seen these answers and is surer of them than of new ones), with
--model's claim head; each claim's log-odds then fall by ``w_names * names + w_words * words``,
and the cell of the grid with the best mean ROC AUC of the least supported claim wins.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from bench.common import DATA_DIR, FILES
from bench.metrics import roc_auc
from bench.splits import fold_of
from bench.verifier import card_copy, sample
from train.stack import check_folds, fold_arguments
from troth import Judge, create_faithfulness_scorer
from troth.judges.backends.verifier import find_verifier
from troth.judges.plans.stack import FEATURES, absent_counts
from troth.text.alignment import Alignment, ContextAlignment
from troth.text.overlap import log_odds

NAMES = FEATURES.index("absent_names_numbers")
WORDS = FEATURES.index("absent_words")
NAME_GRID = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0)
WORD_GRID = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5)
T = TypeVar("T")
Claim = tuple[float, int, int]
"""A claim's log-odds of support through the head without these counts, and the two counts."""


def with_head(fold: Path, head: dict[str, Any], into: Path) -> Path:
    """A copy of the fold's verifier (its files linked) whose card carries ``head``."""
    card_copy(f"local/{fold}", into, {"stack": head})
    return into


async def claim_readings(
    rows: list[dict[str, Any]], folders: Sequence[Path], read: Callable[[float, str, Alignment], T]
) -> list[list[T]]:
    """Each answer's claims, each through the verifier of ``folders`` that left its fold out, as
    ``read(z, claim, alignment)``: z the claim's log-odds of support (P kept within [1e-4, 1 - 1e-4]),
    its alignment in the answer's context."""
    judges = [Judge(f"local/{folder}") for folder in folders]
    out = []
    for row in rows:
        scorer = create_faithfulness_scorer(judges[fold_of(row, len(folders))], reason="template")
        result = await scorer.arun(output=row["output"], context=row["context"])
        aligned = ContextAlignment(row["context"])
        out.append(
            [
                read(log_odds(1.0 if v.p_supported is None else v.p_supported, 1e-4), v.claim, aligned.align(v.claim))
                for v in result.verdicts
            ]
        )
    for judge in judges:
        await judge.aclose()
    return out


def _counted(z: float, claim: str, alignment: Alignment) -> Claim:
    return (z, *absent_counts(alignment))


async def scored(rows: list[dict[str, Any]], folders: Sequence[Path]) -> list[list[Claim]]:
    """Each answer's claims as (z, absent numbers and names, absent words past the first)."""
    return await claim_readings(rows, folders, _counted)


def mean_auc(files: dict[str, tuple[list[int], list[list[Claim]]]], names: float, words: float) -> float:
    """The mean over files of the ROC AUC of each answer's least supported claim."""
    found = []
    for labels, answers in files.values():
        lowest = [min((z - names * n - words * w for z, n, w in claims), default=10.0) for claims in answers]
        auc = roc_auc(labels, lowest)
        found.append(0.5 if auc is None else auc)  # a file with one label only: no information
    return sum(found) / len(found)


def choose(model: Path, folds: list[Path], per_label: int, seed: int, data_dir: Path = DATA_DIR) -> dict[str, Any]:
    """The grid's mean ROC AUC per cell and the best cell's weights, with --model's head."""
    check_folds(folds)
    head = dict(find_verifier(str(model)).card["stack"])
    head["weights"] = [0.0 if i in (NAMES, WORDS) else w for i, w in enumerate(head["weights"])]
    files = {}
    with tempfile.TemporaryDirectory() as tmp:
        folders = [with_head(f, head, Path(tmp) / f"fold{k}") for k, f in enumerate(folds)]
        for name in FILES:
            rows = sample(data_dir / f"{name}.jsonl", per_label, seed, "train")
            files[name] = ([r["label"] for r in rows], asyncio.run(scored(rows, folders)))
    grid = {f"{n}/{w}": round(mean_auc(files, n, w), 4) for n in NAME_GRID for w in WORD_GRID}
    best = max(grid, key=lambda cell: (grid[cell], -sum(map(float, cell.split("/")))))  # a tie: the smaller
    names, words = (float(x) for x in best.split("/"))
    return {"weights": {"absent_names_numbers": -names, "absent_words": -words}, "mean_roc_auc": grid}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    fold_arguments(parser, "the weights")
    parser.add_argument("--write", action="store_true", help="write the weights into --model's card")
    args = parser.parse_args(argv)
    found = choose(args.model, args.folds, args.per_label, args.seed, args.data_dir)
    print(json.dumps(found, indent=1))
    if args.write:
        card_file = args.model / "card.json"
        card = json.loads(card_file.read_text(encoding="utf-8"))
        weights = list(card["stack"]["weights"]) + [0.0] * (len(FEATURES) - len(card["stack"]["weights"]))
        weights[NAMES], weights[WORDS] = found["weights"]["absent_names_numbers"], found["weights"]["absent_words"]
        chosen = {"script": "train/absent.py", "folds": [str(f) for f in args.folds], "per_label": args.per_label}
        card["stack"] |= {"features": list(FEATURES), "weights": weights, "absent": chosen | found}
        card_file.write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
