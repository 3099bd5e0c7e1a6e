"""Does the score notice a changed fact? Same-context edits of faithful answers, scored side by side.

    python -m bench.perturb                          # the offline verifier, 60 faithful answers a file
    python -m bench.perturb --model llm --limit 20   # another judge
    python -m bench.perturb --quick                  # smoke run

From the held-out half of each dev file (bench.splits; ``--half train``: the training half),
faithful answers (label 1) get one edit each of every kind that applies:

- changes of fact: a number swapped for another number of the same context, a capitalised name
  swapped for another name of the same context, a negation added (or removed);
- edits that keep the meaning: two sentences in the other order, a word replaced by a synonym,
  an intensifier dropped ("very", "also", ...), a date or large number written the other way
  ("7 May 2018" as "May 7, 2018", "1,500,000" as "1.5 million"); and as an assistant writes a
  RAG answer: a citation marker after each sentence ("[1]"), or the answer framed ("According to
  the context, ... I hope this helps!").

For each kind: the share of edits that lower the score, counted over the originals the judge
scored above 0 (a change of fact should, a kept meaning should not: a "false drop"), beside the
same share for the word counter (the lowest share of a sentence's content words found in the
context: bench.verifier's baseline), and the share of edits that add a sign of an edited fact
(:mod:`troth.text.alignment`: a swapped number or name, a negation mismatch) over all
originals: what a head over those signs could notice. Writes JSON and Markdown to bench/results/.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.common import DATA_DIR, RESULTS, fmt, table, write_results
from bench.splits import Half, read_half
from bench.verifier import overlap_baseline
from troth import Judge, create_faithfulness_scorer
from troth.text.alignment import ContextAlignment
from troth.text.sentences import split_claims, split_sentences

Edit = Callable[[str, str, random.Random], str | None]
"""(output, context text, rng) -> the edited output, or None when the edit does not apply."""

_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\w])")
_NAME = re.compile(r"\b[A-Z][a-z]{2,}(?: [A-Z][a-z]{2,})*")
_AUX = re.compile(r"\b(is|are|was|were|has|have|had|will|can|could|would|should|does|did)\b(?! not\b)")
_NEGATED = re.compile(r"\b(is|are|was|were|has|have|had|will|can|could|would|should|does|did) not\b")
SYNONYMS = {
    "said": "stated",
    "began": "started",
    "begin": "start",
    "big": "large",
    "bought": "purchased",
    "about": "around",
    "help": "assist",
    "buy": "purchase",
    "shows": "indicates",
    "showed": "indicated",
    "children": "kids",
    "quickly": "rapidly",
    "enough": "sufficient",
    "main": "principal",
    "get": "obtain",
    "told": "informed",
    "start": "begin",
    "end": "finish",
    "ended": "finished",
    "near": "close to",
}
INTENSIFIERS = ("very", "really", "also", "just", "quite")


def names(text: str) -> list[str]:
    """Runs of capitalised words that do not start a sentence."""
    return [m.group() for m in _NAME.finditer(text) if not re.search(r"(^|[.!?\"']\s*)$", text[: m.start()])]


def swap_number(output: str, context: str, rng: random.Random) -> str | None:
    """One number of the answer replaced by a different number found in the context."""
    ours = _NUMBER.findall(output)
    theirs = sorted({n for n in _NUMBER.findall(context) if n not in ours})
    if not ours or not theirs:
        return None
    old = rng.choice(ours)
    return re.sub(rf"(?<![\w.,]){re.escape(old)}(?![\w])", rng.choice(theirs), output, count=1)


def swap_name(output: str, context: str, rng: random.Random) -> str | None:
    """One capitalised name of the answer (not a sentence's first word) replaced by another name
    of the context that the answer does not use."""
    ours = [n for n in names(output) if n in context]
    theirs = sorted({n for n in names(context) if n not in output and not any(n in o or o in n for o in ours)})
    if not ours or not theirs:
        return None
    return output.replace(rng.choice(ours), rng.choice(theirs), 1)


def negate(output: str, context: str, rng: random.Random) -> str | None:
    """ "not" removed after the first negated auxiliary, else added after the first auxiliary."""
    if found := _NEGATED.search(output):
        return output[: found.start()] + found.group(1) + output[found.end() :]
    if found := _AUX.search(output):
        return output[: found.end()] + " not" + output[found.end() :]
    return None


def reorder(output: str, context: str, rng: random.Random) -> str | None:
    """The first two sentences in the other order."""
    sentences = split_sentences(output)
    if len(sentences) < 2:
        return None
    return " ".join([sentences[1], sentences[0], *sentences[2:]])


def synonym(output: str, context: str, rng: random.Random) -> str | None:
    """One word replaced by a synonym (a fixed list)."""
    found = [w for w in SYNONYMS if re.search(rf"\b{w}\b", output)]
    if not found:
        return None
    word = rng.choice(found)
    return re.sub(rf"\b{word}\b", SYNONYMS[word], output, count=1)


def drop_intensifier(output: str, context: str, rng: random.Random) -> str | None:
    """One intensifier ("very", "also", ...) dropped."""
    found = [w for w in INTENSIFIERS if re.search(rf"\b{w} ", output)]
    if not found:
        return None
    return re.sub(rf"\b{rng.choice(found)} ", "", output, count=1)


_MONTH = "(January|February|March|April|May|June|July|August|September|October|November|December)"
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}}) {_MONTH},? (\d{{4}})\b")
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH} (\d{{1,2}}),? (\d{{4}})\b")
_MILLIONS = re.compile(
    r"(?<![\w.,])(\d{1,3}(?:,\d{3}){2,})(?![\w,]|\.\d)|(?<![\w.,])(\d+(?:\.\d+)?) (million|billion)\b"
)


def rewrite_number(output: str, context: str, rng: random.Random) -> str | None:
    """One date or large number written the other way: "7 May 2018" and "May 7, 2018";
    "1,500,000" and "1.5 million"."""
    found = [
        *((m, f"{m.group(2)} {m.group(1)}, {m.group(3)}") for m in _DAY_MONTH_YEAR.finditer(output)),
        *((m, f"{m.group(2)} {m.group(1)} {m.group(3)}") for m in _MONTH_DAY_YEAR.finditer(output)),
        *((m, _other_writing(m)) for m in _MILLIONS.finditer(output)),
    ]
    if not found:
        return None
    match, rewritten = rng.choice(found)
    return output[: match.start()] + rewritten + output[match.end() :]


def _other_writing(match: re.Match[str]) -> str:
    """ "1,500,000" as "1.5 million"; "1.5 million" as "1,500,000"."""
    if match.group(1):
        digits = int(match.group(1).replace(",", ""))
        scale, word = (10**9, "billion") if digits >= 10**9 else (10**6, "million")
        return f"{digits / scale:g} {word}"
    power = 6 if match.group(3) == "million" else 9
    return f"{round(float(match.group(2)) * 10**power):,}"


_PLAIN_START = frozenset(
    {"the", "a", "an", "it", "he", "she", "they", "this", "these", "there", "in", "on", "at", "its", "his", "her"}
)


def cite(output: str, context: str, rng: random.Random) -> str | None:
    """A citation marker after each sentence, as a RAG answer writes it ("... tall [1].")."""
    sentences = split_sentences(output)
    if not sentences:
        return None
    return " ".join(f"{s[:-1]} [{rng.randint(1, 3)}]{s[-1]}" if s[-1] in ".!?" else f"{s} [1]" for s in sentences)


def frame(output: str, context: str, rng: random.Random) -> str | None:
    """The answer as an assistant frames it: "According to the context, ..." before it and
    "I hope this helps!" after it."""
    if not output.strip():
        return None
    text = output.strip()
    first = text.split(maxsplit=1)[0]
    opened = text[:1].lower() + text[1:] if first.lower() in _PLAIN_START else text
    ended = opened if opened.endswith((".", "!", "?")) else opened + "."
    return f"According to the context, {ended} I hope this helps!"


FACT_EDITS: dict[str, Edit] = {"number swap": swap_number, "name swap": swap_name, "negation": negate}
KEPT_EDITS: dict[str, Edit] = {
    "reordered": reorder,
    "synonym": synonym,
    "intensifier dropped": drop_intensifier,
    "number rewritten": rewrite_number,
}
STYLE_EDITS: dict[str, Edit] = {"cited": cite, "framed": frame}
"""Meaning kept, the answer as a whole dressed as an assistant writes it (not claim edits: train.stack
reads KEPT_EDITS only)."""
ALL_EDITS: dict[str, Edit] = {**FACT_EDITS, **KEPT_EDITS, **STYLE_EDITS}


def edits_that_apply(
    claim: str, context: str, rng: random.Random, keep: Callable[[str], bool] = lambda kind: True
) -> list[tuple[str, bool]]:
    """(edited claim, fact changed) for each edit kind, fact edits first, that ``keep`` lets
    through (asked kind by kind, in order) and that changes ``claim``."""
    out = []
    for edits, fact in ((FACT_EDITS, True), (KEPT_EDITS, False)):
        for kind, edit in edits.items():
            if keep(kind) and (edited := edit(claim, context, rng)) is not None and edited != claim:
                out.append((edited, fact))
    return out


def edits_of(row: dict[str, Any], seed: int) -> dict[str, str]:
    """Every edit kind that applies to ``row``'s answer, each made once."""
    context = " ".join(row["context"])
    out = {}
    for kind, edit in ALL_EDITS.items():
        edited = edit(row["output"], context, random.Random(f"{seed}-{row['id']}-{kind}"))
        if edited is not None and edited != row["output"]:
            out[kind] = edited
    return out


async def run_file(judge: Judge, rows: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """Each faithful answer and its edits, scored by the judge and by the word counter."""
    scorer = create_faithfulness_scorer(judge, reason="template")
    found = []
    for row in rows:
        edits = edits_of(row, seed)
        if not edits:
            continue
        texts = {"original": row["output"], **edits}
        scores = {}
        for kind, text in texts.items():
            result = await scorer.arun(output=text, context=row["context"])
            scores[kind] = {
                "judge": result.score,
                "counter": overlap_baseline({**row, "output": text}),
                "signs": signs(text, row["context"]),
            }
        found.append({"id": row["id"], "edits": edits, "scores": scores})
    return found


def signs(output: str, context: list[str]) -> int:
    """Signs of an edited fact over the answer's claims as the scorer splits them, citation
    markers left out (troth.text.alignment): swapped numbers and names, and negation mismatches,
    against each claim's aligned window."""
    aligned = ContextAlignment(context)
    found = [aligned.align(claim) for claim in split_claims(output)]
    return sum(len(a.swapped_numbers) + len(a.swapped_names) + a.negation_mismatch for a in found)


def faithful_sample(file: str, half: Half, seed: int, limit: int, data_dir: Path = DATA_DIR) -> list[dict[str, Any]]:
    """Up to ``limit`` faithful answers of a dev file's half ("held" or "train"), shuffled by ``seed``."""
    faithful = [r for r in read_half(Path(data_dir) / f"{file}.jsonl", half) if r["label"] == 1]
    random.Random(seed).shuffle(faithful)
    return faithful[:limit]


def drops(items: list[dict[str, Any]], kind: str, method: str) -> dict[str, Any]:
    """How often ``kind`` lowered ``method``'s score, over the originals it scored above 0; for
    ``signs``, how often it raised their count, over every original."""
    raised = method == "signs"
    counted = [i for i in items if kind in i["scores"] and (raised or i["scores"]["original"][method] > 0)]
    moved = sum(
        (i["scores"][kind][method] > i["scores"]["original"][method])
        if raised
        else (i["scores"][kind][method] < i["scores"]["original"][method])
        for i in counted
    )
    return {"edits": len(counted), "lowered": moved, "share": moved / len(counted) if counted else None}


def summary(items: list[dict[str, Any]]) -> dict[str, Any]:
    methods = ("judge", "counter", "signs")
    return {kind: {m: drops(items, kind, m) for m in methods} for kind in ALL_EDITS}


def markdown(report: dict[str, Any]) -> str:
    lines = [
        f"# Same-context edits ({report['date']}): {report['judge']}",
        "",
        f"{report['limit']} faithful answers a file from the {report['half']} halves, seed {report['seed']}. "
        "Share of edits that lower the score, over the originals scored above 0 (edits counted); "
        "alignment signs (troth.text.alignment: what the verifier's claim head reads besides the classifier): "
        "share of edits that add one.",
        "",
    ]
    kinds = list(ALL_EDITS)
    rows = []
    for name, part in report["files"].items():
        for kind in kinds:
            cells = [f"{fmt(d['share'], 2)} ({d['edits']})" for d in part["summary"][kind].values()]
            rows.append([name, kind, "fact changed" if kind in FACT_EDITS else "meaning kept", *cells])
    lines += table(["file", "edit", "", "judge lowered", "word counter lowered", "alignment signs raised"], rows)
    return "\n".join([*lines, ""])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="local", help="the judge (default: the offline verifier)")
    parser.add_argument("--files", nargs="+", default=["cliff-val", "wice-dev", "begin-dev", "qags-all"])
    parser.add_argument("--limit", type=int, default=60, help="faithful answers a file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="8 answers of one file")
    parser.add_argument(
        "--half",
        choices=["held", "train"],
        default="held",
        help="the held-out halves (what is reported), or the training halves (to choose a variant)",
    )
    parser.add_argument("--out", type=Path, help="stem of the JSON and Markdown written (default: bench/results/...)")
    args = parser.parse_args(argv)
    files, limit = (args.files[:1], 8) if args.quick else (args.files, args.limit)
    judge = Judge(args.model)
    report: dict[str, Any] = {
        "date": dt.date.today().isoformat(),
        "judge": args.model,
        "limit": limit,
        "seed": args.seed,
        "half": "held-out" if args.half == "held" else "training",
        "files": {},
    }
    name = f"perturb-{args.model.replace('/', '_')}-{report['date']}{'-quick' if args.quick else ''}"
    stem = args.out or RESULTS / name
    for file in files:
        items = asyncio.run(run_file(judge, faithful_sample(file, args.half, args.seed, limit), args.seed))
        report["files"][file] = {"items": items, "summary": summary(items)}
        write_results(stem, report, markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
