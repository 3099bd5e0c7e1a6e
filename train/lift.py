"""Choose a lift of the claim head's verdicts: a bias ``b`` added to every claim's log-odds, and
``b * s`` taken back for each sign of an edited fact (a swapped number, a swapped name, a negation
mismatch), by the balanced accuracy of whole answers at troth's own cut (an answer is called
faithful when every claim is supported), cross-fitted.

    python -m train.lift --model src/troth/models/verifier-minilm \
        --folds /path/fold0 /path/fold1            # prints the grid and the chosen cell
    python -m train.lift ... --write             # and writes it into --model's card

Why: the classifier is unsure of long faithful claims (WiCE's above all), so at its own cut most
faithful answers hold one claim below it. A bias lifts them, and a share of it taken from the signs
keeps a swapped fact below the cut. Chosen on the training halves, each answer through the
verifier trained without its fold (train.verifier --leave-fold: the shipped one has seen them and
is surer of them than of new answers), with --model's claim head. The rule, fixed before any
reading: the cell with the best mean own balanced accuracy over wice-dev, cliff-val and begin-dev
such that the share of same-context fact edits that lower a faithful answer's score
(bench.perturb's edits of the training halves) stays within 0.02 of the head without a lift, no
more meaning-kept edits lower one, neither QAGS file falls by more than 0.02, and the mean over
every file does not fall; a tie (within 0.002) goes to the smaller lift; a gain under 0.01 keeps
the head as it is.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

from bench.common import DATA_DIR, FILES
from bench.perturb import FACT_EDITS, edits_of, faithful_sample
from bench.verifier import sample
from train.absent import claim_readings, with_head
from train.stack import check_folds, fold_arguments
from troth.judges.backends.verifier import find_verifier
from troth.text.alignment import Alignment
from troth.text.overlap import log_odds

SIGNS = ("swapped_number", "swapped_name", "negation_mismatch")
TARGET = ("wice-dev", "cliff-val", "begin-dev")
QAGS = ("qags-all", "qags-sentences")
EDITED = ("cliff-val", "wice-dev", "begin-dev", "qags-all")
BIASES = tuple(b / 4 for b in range(17))
SHARES = (0.0, 0.25, 0.5, 0.75, 1.0)
Claim = tuple[float, int]
"""A claim's log-odds of support through the head, and how many kinds of sign it shows."""
Files = dict[str, tuple[list[int], list[list[Claim]]]]
Groups = list[dict[str, list[Claim]]]


def _read(z: float, claim: str, alignment: Alignment) -> Claim:
    signs = bool(alignment.swapped_numbers) + bool(alignment.swapped_names) + alignment.negation_mismatch
    return z, int(signs)


def answer_score(claims: list[Claim], bias: float, share: float, cut: float) -> float:
    """The share of claims supported once lifted: as troth's score, the unsure counted as not."""
    if not claims:
        return 1.0
    return sum(z + bias - bias * share * signs >= cut for z, signs in claims) / len(claims)


def own_ba(labels: list[int], answers: list[list[Claim]], bias: float, share: float, cut: float) -> float:
    """Balanced accuracy of "faithful when every claim is supported"."""
    right: dict[int, list[bool]] = {0: [], 1: []}
    for label, claims in zip(labels, answers, strict=True):
        right[label].append((answer_score(claims, bias, share, cut) == 1.0) == (label == 1))
    return statistics.mean(sum(r) / len(r) for r in right.values() if r)


def edit_drops(groups: Groups, bias: float, share: float, cut: float) -> tuple[float, int]:
    """The share of fact edits that lower a faithful answer's score (over those scored above 0),
    and how many meaning-kept edits lower one."""
    counted = lowered = kept = 0
    for group in groups:
        original = answer_score(group["original"], bias, share, cut)
        if original == 0:
            continue
        for kind, claims in group.items():
            low = kind != "original" and answer_score(claims, bias, share, cut) < original
            counted += kind in FACT_EDITS
            lowered += low and kind in FACT_EDITS
            kept += low and kind not in FACT_EDITS
    return lowered / max(counted, 1), kept


def cell(files: Files, groups: Groups, bias: float, share: float, cut: float) -> dict[str, Any]:
    """One lift's figures on the training halves."""
    ba = {name: round(own_ba(labels, answers, bias, share, cut), 4) for name, (labels, answers) in files.items()}
    fact, kept = edit_drops(groups, bias, share, cut)
    return {
        "bias": bias,
        "share": share,
        "own_ba": ba,
        "target_mean": round(statistics.mean(ba[n] for n in TARGET if n in ba), 4),
        "mean": round(statistics.mean(ba.values()), 4),
        "fact_edits_lowered": round(fact, 4),
        "kept_edits_lowered": kept,
    }


def allowed(found: dict[str, Any], base: dict[str, Any]) -> bool:
    """The rule's bounds against the head without a lift."""
    qags = all(found["own_ba"][n] >= base["own_ba"][n] - 0.02 for n in QAGS if n in base["own_ba"])
    return (
        qags
        and found["fact_edits_lowered"] >= base["fact_edits_lowered"] - 0.02
        and found["kept_edits_lowered"] <= base["kept_edits_lowered"]
        and found["mean"] >= base["mean"]
    )


def best(cells: list[dict[str, Any]]) -> dict[str, Any]:
    """The rule's cell: ``cells[0]`` is the head without a lift."""
    base = cells[0]
    fit = [c for c in cells if allowed(c, base)]
    top = max(c["target_mean"] for c in fit)
    chosen = min((c for c in fit if c["target_mean"] >= top - 0.002), key=lambda c: (c["bias"], c["share"]))
    return chosen if chosen["target_mean"] >= base["target_mean"] + 0.01 else base


async def readings(folders: list[Path], per_label: int, limit: int, seed: int, data_dir: Path) -> tuple[Files, Groups]:
    """The claims of each file's sampled answers, and of each edit of its faithful answers."""
    files: Files = {}
    for name in FILES:
        rows = sample(data_dir / f"{name}.jsonl", per_label, seed, "train")
        files[name] = ([r["label"] for r in rows], await claim_readings(rows, folders, _read))
    groups: Groups = []
    for name in (n for n in EDITED if n in FILES):
        for row in faithful_sample(name, "train", seed, limit, data_dir):
            texts = {"original": row["output"], **edits_of(row, seed)}
            if len(texts) > 1:
                claims = await claim_readings([{**row, "output": t} for t in texts.values()], folders, _read)
                groups.append(dict(zip(texts, claims, strict=True)))
    return files, groups


def choose(
    model: Path, folds: list[Path], per_label: int, limit: int, seed: int, data_dir: Path = DATA_DIR
) -> dict[str, Any]:
    """Every cell of the grid and the chosen one, with --model's claim head and threshold."""
    check_folds(folds)
    card = find_verifier(str(model)).card
    cut = log_odds(float(card["yes_threshold"]), 1e-4)
    with tempfile.TemporaryDirectory() as tmp:
        head = lifted(dict(card["stack"]), 0.0, 0.0)  # a lift the card carries is chosen again, not stacked
        folders = [with_head(f, head, Path(tmp) / f"fold{k}") for k, f in enumerate(folds)]
        files, groups = asyncio.run(readings(folders, per_label, limit, seed, data_dir))
    cells = [cell(files, groups, b, s, cut) for b in BIASES for s in SHARES if b or not s]
    return {"chosen": best(cells), "grid": cells}


def lifted(head: dict[str, Any], bias: float, share: float) -> dict[str, Any]:
    """``head`` with a lift of ``bias`` and ``share`` in place of the one it carries (none: 0, 0)."""
    old = head.get("lift", {"bias": 0.0, "share": 0.0})
    weights = list(head["weights"])
    for sign in SIGNS:
        i = head["features"].index(sign)
        weights[i] = round(weights[i] + old["bias"] * old["share"] - bias * share, 5)
    return head | {"weights": weights, "bias": round(head["bias"] - old["bias"] + bias, 5)}


def write(model: Path, found: dict[str, Any], settings: dict[str, Any]) -> None:
    """The chosen lift into --model's card: the head's bias, and each sign's weight lowered by b * s."""
    card_file = model / "card.json"
    card = json.loads(card_file.read_text(encoding="utf-8"))
    bias, share = found["chosen"]["bias"], found["chosen"]["share"]
    record = {"script": "train/lift.py", **settings, "bias": bias, "share": share, "chosen": found["chosen"]}
    card["stack"] = lifted(card["stack"], bias, share) | {"lift": record}
    card_file.write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    fold_arguments(parser, "the lift")
    parser.add_argument("--limit", type=int, default=60, help="faithful answers a file edited")
    parser.add_argument("--write", action="store_true", help="write the chosen lift into --model's card")
    args = parser.parse_args(argv)
    found = choose(args.model, args.folds, args.per_label, args.limit, args.seed, args.data_dir)
    print(json.dumps(found, indent=1))
    if args.write:
        folds = [f"{k}/{len(args.folds)}" for k in range(len(args.folds))]  # as check_folds required
        write(args.model, found, {"folds": folds, "per_label": args.per_label, "limit": args.limit, "seed": args.seed})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
