"""Training pairs for the claim verifier: the shared entailment sets, the training half of the
dev files, and synthetic pairs made from their contexts.

Every pair is ``(passage, claim, target)``; the passage is the window the verifier would see
(troth.text.windows), so training and inference read contexts the same way. Targets: 0 supported,
1 contradicted, 2 unverifiable, or 3 "not supported" for sources whose labels merge the last two
(trained with a binary loss on P(supported)).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

from bench.splits import Fold, read_half
from train.pairs import CONTRADICTED, NOT_SUPPORTED, SUPPORTED, UNVERIFIABLE, Pair
from troth.judges.plans.pairs import WINDOW_CHARS
from troth.text.sentences import split_claims, split_sentences
from troth.text.windows import claim_windows, context_sentences, window_text

_LABELS = {"supported": SUPPORTED, "contradicted": CONTRADICTED, "unverifiable": UNVERIFIABLE}
# Sources whose "unverifiable" merges contradiction and neutral (see ../shared/data/train/README.md).
_BINARY_SOURCES = ("fever-nli-binary", "mnli-binary", "summedits")
DEV_FILES = ("cliff-val", "qags-all", "qags-sentences", "wice-dev", "begin-dev")


def passage_for(context: list[str], claim: str) -> str:
    """The first window the verifier checks ``claim`` against."""
    windows = claim_windows(context_sentences(context, WINDOW_CHARS), claim, WINDOW_CHARS, scan=False)
    return window_text(windows[0]) if windows else ""


def shared_pairs(train_dir: Path) -> Iterator[Pair]:
    """The entailment and faithfulness pairs of ``../shared/data/train``."""
    for path in sorted(train_dir.glob("*.jsonl")):
        binary = path.stem in _BINARY_SOURCES
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            target = _LABELS[row["label"]]
            if binary and target != SUPPORTED:
                target = NOT_SUPPORTED
            yield Pair(passage_for([row["context"]], row["claim"]), row["claim"], target, path.stem)


def dev_pairs(data_dir: Path, leave: Fold | None = None) -> Iterator[Pair]:
    """The training half of each dev file (less fold ``leave``): each sentence of a faithful
    output is supported; an unfaithful output is "not supported" as a whole (which sentence is
    wrong is not labeled)."""
    for name in DEV_FILES:
        for row in read_half(data_dir / f"{name}.jsonl", "train", leave):
            context = row["context"]
            if row["label"] == 1:
                for sentence in split_sentences(row["output"]):
                    yield Pair(passage_for(context, sentence), sentence, SUPPORTED, name)
            else:
                yield Pair(passage_for(context, row["output"]), row["output"], NOT_SUPPORTED, name)


_NEGATIONS = [
    (" is ", " is not "),
    (" was ", " was not "),
    (" are ", " are not "),
    (" were ", " were not "),
    (" has ", " has not "),
    (" can ", " cannot "),
    (" will ", " will not "),
    (" did ", " did not "),
]
_NUMBER = re.compile(r"\b\d[\d,.]*\b")
_NAME = re.compile(r"(?<!^)(?<![.!?] )\b[A-Z][a-z]{2,}\b")


def _negate(sentence: str, rng: random.Random) -> str | None:
    for plain, negated in rng.sample(_NEGATIONS, len(_NEGATIONS)):
        if negated in sentence:
            return sentence.replace(negated, plain, 1)
        if plain in sentence:
            return sentence.replace(plain, negated, 1)
    return None


def _swap_number(sentence: str, rng: random.Random) -> str | None:
    numbers = _NUMBER.findall(sentence)
    if not numbers:
        return None
    old = rng.choice(numbers)
    digits = old.replace(",", "").split(".")[0]
    if not digits.isdigit():
        return None
    value = int(digits)
    new = str(value + rng.choice([-1, 1]) * max(1, int(value * rng.uniform(0.2, 0.6)) or 1))
    return sentence.replace(old, new, 1) if new != old else None


def _swap_name(sentence: str, context: str, rng: random.Random) -> str | None:
    own = set(_NAME.findall(sentence))
    others = sorted(set(_NAME.findall(context)) - own)
    if not own or not others:
        return None
    return re.sub(rf"\b{re.escape(rng.choice(sorted(own)))}\b", rng.choice(others), sentence, count=1)


def synthetic_pairs(contexts: list[list[str]], count: int, seed: int) -> list[Pair]:
    """Edits of context sentences: copies and shortened copies are supported; negations,
    swapped numbers and swapped names are contradicted; a sentence of another document is
    unverifiable."""
    rng = random.Random(seed)
    pairs: list[Pair] = []
    while len(pairs) < count:
        context = rng.choice(contexts)
        sentences = [s for seg in context for s in split_sentences(seg) if 30 <= len(s) <= 300]
        if not sentences:
            continue
        sentence = rng.choice(sentences)
        kind = rng.randrange(6)
        claim: str | None
        if kind == 0:
            claim, target = sentence, SUPPORTED
        elif kind == 1:
            head = sentence.split(", ")[0].rstrip(".") + "."
            claim, target = (head, SUPPORTED) if len(head) > 25 else (None, SUPPORTED)
        elif kind == 2:
            claim, target = _negate(sentence, rng), CONTRADICTED
        elif kind == 3:
            claim, target = _swap_number(sentence, rng), CONTRADICTED
        elif kind == 4:
            claim, target = _swap_name(sentence, " ".join(context), rng), CONTRADICTED
        else:
            other = [s for seg in rng.choice(contexts) for s in split_sentences(seg) if 30 <= len(s) <= 300]
            claim, target = (rng.choice(other) if other else None), UNVERIFIABLE
        if claim:
            pairs.append(Pair(passage_for(context, claim), claim, target, "synthetic"))
    return pairs


def supported_claims(data_dir: Path, leave: Fold | None = None) -> Iterator[tuple[list[str], str]]:
    """(context, claim) of every supported claim: the faithful answers' claims of the dev files'
    training halves (less fold ``leave``), and the supported pairs of ``../shared/data/train``."""
    for name in DEV_FILES:
        for row in read_half(data_dir / f"{name}.jsonl", "train", leave):
            if row["label"] == 1:
                yield from ((row["context"], claim) for claim in split_claims(row["output"]))
    for path in sorted((data_dir / "train").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row["label"] == "supported":
                yield [row["context"]], row["claim"]


def edit_pairs(data_dir: Path, seed: int, leave: Fold | None = None) -> list[Pair]:
    """Same-context edits of supported claims (``bench.perturb``'s: a number or name swapped for
    another of the context, a negation: contradicted; a synonym, a dropped intensifier, clauses
    reordered: supported), each beside its unedited claim (supported), against the window the
    verifier reads for the edited claim. Claims with no fact edit are left out; a negation
    (which applies to most claims) is made for a third of them only."""
    from bench.perturb import edits_that_apply

    rng = random.Random(seed)
    pairs: list[Pair] = []
    for context, claim in supported_claims(data_dir, leave):
        found = edits_that_apply(claim, " ".join(context), rng, lambda kind: kind != "negation" or rng.random() < 1 / 3)
        made = {(edited, CONTRADICTED if fact else SUPPORTED) for edited, fact in found}
        if any(target == CONTRADICTED for _, target in made):
            made.add((claim, SUPPORTED))
            pairs += [Pair(passage_for(context, c), c, target, "edits") for c, target in sorted(made)]
    return pairs


def factcg_pairs(path: Path) -> list[Pair]:
    """FactCG's CG2C pairs (repository derenlei/FactCG, MIT licence; one JSON object a line: a
    document ``text_a``, a claim ``text_b[0]``, ``orig_label`` 1 grounded or 0 not, the document
    then edited so that it no longer links what the claim links): supported or "not supported"."""
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            claim = row["text_b"][0]
            target = SUPPORTED if row["orig_label"] == 1 else NOT_SUPPORTED
            pairs.append(Pair(passage_for([row["text_a"]], claim), claim, target, "factcg"))
    return pairs


def training_pairs(
    data_dir: Path,
    synthetic: int,
    seed: int,
    edits: bool = False,
    leave: Fold | None = None,
    factcg: Path | None = None,
) -> list[Pair]:
    """All training pairs, shuffled; with ``edits``, same-context edits after them, and with
    ``factcg`` (a CG2C file), its pairs after those (never among the first pairs, which are held
    out for validation). With ``leave`` (k, n), nothing is made from the dev rows of fold k: not
    their pairs, edits or synthetic sentences."""
    pairs = list(shared_pairs(data_dir / "train")) + list(dev_pairs(data_dir, leave))
    contexts = [row["context"] for name in DEV_FILES for row in read_half(data_dir / f"{name}.jsonl", "train", leave)]
    contexts += [[p.passage] for p in pairs if p.source in ("summedits", "fever-nli-binary") and len(p.passage) > 200]
    pairs += synthetic_pairs(contexts, synthetic, seed)
    random.Random(seed).shuffle(pairs)
    return pairs + (edit_pairs(data_dir, seed, leave) if edits else []) + (factcg_pairs(factcg) if factcg else [])
