"""Where a claim stands in its context: its best-aligned window of 1–3 sentences, and the signs of
an edited fact there.

A number or a name of the claim that the aligned window lacks, while the rest of the context has
it, is the signature of a swap ("lost 4-5" where the window says 4-2 and a 5 appears elsewhere);
a claim that negates what its aligned sentence affirms, or the reverse, is a negation mismatch.
A paraphrase keeps its numbers and names in the window and is flagged by neither.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from troth.text.sentences import split_sentences
from troth.text.windows import terms

MAX_SENTENCES = 3
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?!\w)")
_NAME = re.compile(r"\b[A-Z][a-z]{2,}(?: [A-Z][a-z]{2,})*")
_SENTENCE_START = re.compile(r"(^|[.!?\"'“‘]\s*)$")
_NEGATION = re.compile(r"\b(not|no|never|none|nobody|nothing|neither|nor|without|cannot)\b|n't\b", re.IGNORECASE)


@dataclass(frozen=True)
class Alignment:
    """A claim against its context: the best-aligned window, the share of the claim's content
    words it covers, the claim's numbers and names missing there but found elsewhere in the
    context, and whether the claim and the window's closest sentence differ in negation."""

    window: str
    coverage: float
    swapped_numbers: tuple[str, ...]
    swapped_names: tuple[str, ...]
    negation_mismatch: bool

    @property
    def swapped(self) -> bool:
        return bool(self.swapped_numbers or self.swapped_names)


def numbers(text: str) -> set[str]:
    """The numbers of ``text``, thousands separators dropped ("20,000" and "20000" alike)."""
    return {n.replace(",", "") for n in _NUMBER.findall(text)}


def names(text: str) -> set[str]:
    """Runs of capitalised words that do not start a sentence (names, places, organisations)."""
    return {m.group() for m in _NAME.finditer(text) if not _SENTENCE_START.search(text[: m.start()])}


def negated(text: str) -> bool:
    return _NEGATION.search(text) is not None


def windows(sentences: list[str], most: int = MAX_SENTENCES) -> list[str]:
    """Every run of 1 to ``most`` consecutive sentences, joined."""
    return [" ".join(sentences[i : i + n]) for n in range(1, most + 1) for i in range(len(sentences) - n + 1)]


def coverage(claim_terms: set[str], text: str) -> float:
    """The share of the claim's content words found in ``text`` (1.0 for a claim without any)."""
    return len(claim_terms & set(terms(text))) / len(claim_terms) if claim_terms else 1.0


def _closest(claim_terms: set[str], window: str) -> str:
    sentences = split_sentences(window) or [window]
    return max(sentences, key=lambda s: coverage(claim_terms, s))


def align(claim: str, context: list[str]) -> Alignment:
    """The claim's best-aligned window (the highest coverage of the claim's words other than its
    numbers and names, the shorter on a tie) and its signs."""
    sentences = [s for segment in context for s in split_sentences(segment)]
    claim_terms = set(terms(claim))
    # aligned on the claim's other words: a swapped-in number or name must not pull in its sentence
    facts = set(terms(" ".join([*numbers(claim), *names(claim)])))
    anchors = claim_terms - facts or claim_terms
    candidates = windows(sentences) or [""]
    best = max(candidates, key=lambda w: (coverage(anchors, w), -len(w)))
    whole = " ".join(context)
    in_window_numbers, in_window_names = numbers(best), best.lower()
    swapped_numbers = sorted(n for n in numbers(claim) if n not in in_window_numbers and n in numbers(whole))
    swapped_names = sorted(
        n for n in names(claim) if n.lower() not in in_window_names and n.lower() in whole.lower()
    )  # fmt: skip
    mismatch = bool(best) and negated(claim) != negated(_closest(claim_terms, best))
    return Alignment(best, coverage(claim_terms, best), tuple(swapped_numbers), tuple(swapped_names), mismatch)
