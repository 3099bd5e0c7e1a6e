"""Where a claim stands in its context: its best-aligned window of 1–3 sentences, and the signs of
an edited fact there.

A number or a name of the claim that the aligned window lacks, while the rest of the context has
it and the window has another in its place, is the signature of a swap ("lost 4-5" where the
window says 4-2 and a 5 appears elsewhere);
a claim that negates what its aligned sentence affirms, or the reverse, is a negation mismatch.
A paraphrase keeps its numbers and names in the window and is flagged by neither.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from troth.text.sentences import split_sentences
from troth.text.windows import Sentence, context_sentences, terms

MAX_SENTENCES = 3
ALIGNED = 0.6
"""The share of the claim's other words a window must hold for its signs to count: a claim pieced
together from far parts of a context aligns with no window, and its signs would be noise."""
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?=(?:st|nd|rd|th)?(?!\w))")
_SPLIT_THOUSANDS = re.compile(r"(\d), (\d{3})\b")
_SPLIT_DECIMAL = re.compile(r"(\d)\. (\d)\b")
_NAME = re.compile(r"\b[A-Z][a-z]{2,}(?: [A-Z][a-z]{2,})*")
_SENTENCE_START = re.compile(r"(^|[.!?\"'“‘]\s*)$")
_CLAUSE = re.compile(r"[,;:]|\b(?:but|while|when|because|although|though|whereas)\b")
# dates, not names: a claim may date what its window leaves undated
_DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday"
_MONTHS = "January February March April May June July August September October November December"
_CALENDAR = frozenset(f"{_DAYS} {_MONTHS}".split())
_NEGATION = re.compile(r"\b(not|never|cannot)\b|n't\b", re.IGNORECASE)


@dataclass(frozen=True)
class Alignment:
    """A claim against its context: the best-aligned window, the share of the claim's content
    words it covers, the claim's numbers and names missing there but found elsewhere in the
    context, and whether the claim and the window's closest clause differ in negation."""

    window: str
    coverage: float
    swapped_numbers: tuple[str, ...]
    swapped_names: tuple[str, ...]
    negation_mismatch: bool
    span: tuple[int, int] = (0, 0)  # the window's sentences: the first one's index, and how many

    @property
    def swapped(self) -> bool:
        return bool(self.swapped_numbers or self.swapped_names)


def numbers(text: str) -> set[str]:
    """The numbers of ``text``, thousands separators dropped ("20,000", "20, 000" and "20000" alike)."""
    return {n.replace(",", "") for n in _NUMBER.findall(_joined(text))}


def names(text: str, *, initial: bool = False) -> set[str]:
    """Runs of capitalised words that do not start a sentence (names, places, organisations);
    with ``initial``, runs of two or more words that do ("Anna Berg founded ...") too."""
    found = set()
    for m in _NAME.finditer(text):
        starts = _SENTENCE_START.search(text[: m.start()]) is not None
        if m.group() not in _CALENDAR and (not starts or (initial and " " in m.group())):
            found.add(m.group())
    return found


def negated(text: str) -> bool:
    return _NEGATION.search(text) is not None


def _joined(text: str) -> str:
    """Numbers that tokenised text splits ("13, 000", "7. 8") joined again."""
    return _SPLIT_DECIMAL.sub(r"\1.\2", _SPLIT_THOUSANDS.sub(r"\1,\2", text))


def runs(count: int, most: int = MAX_SENTENCES) -> list[tuple[int, int]]:
    """Every run of 1 to ``most`` consecutive sentences of ``count``: (first index, length)."""
    return [(i, n) for n in range(1, most + 1) for i in range(count - n + 1)]


def windows(sentences: list[str], most: int = MAX_SENTENCES) -> list[str]:
    """Every run of 1 to ``most`` consecutive sentences, joined."""
    return [" ".join(sentences[i : i + n]) for i, n in runs(len(sentences), most)]


def _share(claim_terms: set[str], found: set[str]) -> float:
    return len(claim_terms & found) / len(claim_terms) if claim_terms else 1.0


def coverage(claim_terms: set[str], text: str) -> float:
    """The share of the claim's content words found in ``text`` (1.0 for a claim without any)."""
    return _share(claim_terms, set(terms(text)))


def _closest(claim_terms: set[str], window: str) -> str:
    """The clause of ``window`` that holds most of the claim's words."""
    clauses = [c for s in split_sentences(window) or [window] for c in _CLAUSE.split(s) if c.strip()] or [window]
    return max(clauses, key=lambda c: coverage(claim_terms, c))


class ContextAlignment:
    """A context split once into its windows of 1–3 sentences, with their words, so that each
    claim of an answer is aligned against it without splitting the context again."""

    def __init__(self, context: list[str], sentences: list[Sentence] | None = None) -> None:
        """``sentences``: the context's sentences as a classifier's windows hold them (long ones
        cut in pieces), to align on those; by default its sentences whole. Each alignment's
        ``span`` indexes them."""
        found = context_sentences(context, sys.maxsize) if sentences is None else sentences
        texts = [" ".join(s.text.split()) for s in found]
        self.runs = runs(len(texts)) or [(0, 0)]
        self.windows = windows(texts) or [""]
        self._terms = [set(terms(w)) for w in self.windows]
        whole = " ".join(context)
        self._numbers, self._lower = numbers(whole), whole.lower()

    def align(self, claim: str) -> Alignment:
        """The claim's best-aligned window (the highest coverage of the claim's words other than
        its numbers and names, the shorter on a tie) and its signs."""
        claim_terms, claim_names = set(terms(claim)), names(claim)
        # aligned on the claim's other words: a swapped-in number or name must not pull in its sentence
        bare = _NUMBER.sub(" ", claim)
        for name in claim_names:
            bare = bare.replace(name, " ")
        anchors = set(terms(bare)) or claim_terms
        index = max(range(len(self.windows)), key=lambda i: (_share(anchors, self._terms[i]), -len(self.windows[i])))
        best, covered = self.windows[index], _share(claim_terms, self._terms[index])
        span = self.runs[index]
        if _share(anchors, self._terms[index]) < ALIGNED:  # no window says what the claim says: no sign to read
            return Alignment(best, covered, (), (), False, span)
        claim_numbers, window_numbers = numbers(claim), numbers(best)
        absent = {n for n in claim_numbers if n not in window_numbers and n in self._numbers}
        swapped_numbers = sorted(absent) if window_numbers - claim_numbers else []
        window_lower = best.lower()
        other_names = {n for n in names(best, initial=True) if n.lower() not in claim.lower()}
        swapped_names = (
            sorted(n for n in claim_names if n.lower() not in window_lower and n.lower() in self._lower)
            if other_names
            else []
        )
        mismatch = negated(claim) != negated(_closest(claim_terms, best))
        return Alignment(best, covered, tuple(swapped_numbers), tuple(swapped_names), mismatch, span)


def align(claim: str, context: list[str]) -> Alignment:
    """One claim aligned against ``context`` (see :class:`ContextAlignment`, for many claims)."""
    return ContextAlignment(context).align(claim)
