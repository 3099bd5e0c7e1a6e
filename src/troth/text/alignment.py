"""Where a claim stands in its context: its best-aligned window of 1–3 sentences, and the signs of
an edited fact there.

- A swapped number: one the aligned window lacks while the rest of the context has it and the
  window holds another ("lost 4-5" where the window says 4-2 and a 5 appears elsewhere), or one
  whose leading word leads only other numbers in the window ("fell 5%" where it says "fell 3%").
- A rescaled number: one the window writes with another scale word ("$5.2 million" where it
  says "$5.2 billion").
- A swapped name: one the window lacks while the rest of the context has it, with a word beside
  it in the claim that sits beside another name in the window ("Tom Rask founded" where the window
  says "Anna Berg founded"); a true detail brought in from another sentence has no such neighbour.
- A negation mismatch: a word the claim negates that the window states plainly, or the reverse
  (read even where the claim aligns with no window: the negated word itself is what counts).

A paraphrase keeps its numbers and names in the window and is flagged by none of them. Numbers
are read as :mod:`troth.text.numerals` reads them: by value, a month or day leading none ("May 7,
2018" and "7 May 2018" are one date).

Read against the whole context, not the window: the claim's numbers and names, and its other
content words, that the context holds nowhere (what a claim brings in from outside it).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from troth.text.names import (
    SENTENCE_START,
    acronyms,
    displaced_names,
    folded,
    names,
    spelled_out,
    undotted,
    written_acronyms,
)
from troth.text.numerals import (
    NUMBER,
    admitted,
    displaced_numbers,
    joined,
    number_values,
    rescaled_numbers,
    rounded_numbers,
    spelled_values,
    values,
)
from troth.text.times import spelled_months
from troth.text.windows import Sentence, context_sentences, terms

MAX_SENTENCES = 3
ALIGNED = 0.6
"""The share of the claim's other words a window must hold for its signs to count: a claim pieced
together from far parts of a context aligns with no window, and its swaps would be noise."""
_WORD = re.compile(r"\w+")  # as troth.text.windows.terms splits words
_CLAUSE_END = re.compile(r"[,;:.!?()]|\b(?:and|but|while|when|because|although|though|whereas)\b")
# "not only ... but also" adds, it does not negate
_NEGATION = re.compile(r"(?:\b(?:not|never|cannot)\b|n't\b)(?!\s+(?:only|just|merely|simply)\b)", re.IGNORECASE)
REACH = 2
"""Content words after a negation, within its clause, that it negates ("did not win the cup")."""


@dataclass(frozen=True)
class Alignment:
    """A claim against its context: the best-aligned window, the share of the claim's content
    words it covers, the claim's numbers and names swapped for others of the context (see the
    module's note), whether one negates a word that the other states plainly, and the claim's
    content words that the context holds nowhere (:meth:`ContextAlignment.absent`)."""

    window: str
    coverage: float
    swapped_numbers: tuple[str, ...]  # as their value (troth.text.numerals.value)
    swapped_names: tuple[str, ...]
    negation_mismatch: bool
    span: tuple[int, int] = (0, 0)  # the window's sentences: the first one's index, and how many
    absent_names_numbers: tuple[str, ...] = ()  # the claim's numbers and names found nowhere in the context
    absent_words: tuple[str, ...] = ()  # its other content words found nowhere there (a synonym's too)

    @property
    def swapped(self) -> bool:
        return bool(self.swapped_numbers or self.swapped_names)


def negated_terms(text: str) -> set[str]:
    """The content words that a negation of ``text`` negates: up to :data:`REACH` after it, within
    its clause ("never lost five straight matches": lost, five, straight)."""
    found: set[str] = set()
    for cue in _NEGATION.finditer(text):
        rest = text[cue.end() :]
        clause = _CLAUSE_END.search(rest)
        found.update(terms(rest[: clause.start() if clause else len(rest)])[:REACH])
    return found


def negation_mismatch(claim: str, window: str) -> bool:
    """Whether the claim negates a word the window states plainly, or states plainly a word the
    window negates."""
    claim_negated, window_negated = negated_terms(claim), negated_terms(window)
    added = (claim_negated & set(terms(window))) - window_negated
    removed = (window_negated & set(terms(claim))) - claim_negated
    return bool(added or removed)


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
        # a window of table rows or JSON records: an answer says in its own words what the keys name
        self._structured = [bool(n) and all(s.structured for s in found[i : i + n]) for i, n in self.runs]
        self.windows = windows(texts) or [""]
        self._terms = [set(terms(w)) for w in self.windows]
        whole = " ".join([*context, *(s.text for s in found if s.original)])  # tables, JSON and links as read too
        whole = spelled_months(whole)
        self._numbers, self._lower, self._all_terms = values(whole), folded(whole.lower()), set(terms(folded(whole)))
        self._numbers |= spelled_values(whole)  # "2 platinum albums" where it says "two"
        self._acronyms, self._written_acronyms = acronyms(whole), written_acronyms(whole)

    def align(self, claim: str) -> Alignment:
        """The claim's best-aligned window (the highest coverage of the claim's words other than
        its numbers and names; on a tie, the fewer sentences, the higher coverage of all its words,
        the shorter) and its signs."""
        claim_terms, claim_names = set(terms(claim)), names(claim)
        # aligned on the claim's other words: a swapped-in number or name must not pull in its sentence
        bare = NUMBER.sub(" ", claim)
        for name in claim_names:
            bare = bare.replace(name, " ")
        anchors = set(terms(bare)) or claim_terms
        # on a tie, the fewer sentences, then the window holding more of the claim's numbers and
        # names (in a list of like sentences, "Item 4 costs 4 dollars. Item 5 costs 5 dollars.",
        # the claim's own), then the shorter
        index = max(range(len(self.windows)), key=lambda i: self._rank(i, anchors, claim_terms))
        best, covered = self.windows[index], _share(claim_terms, self._terms[index])
        span = self.runs[index]
        anywhere = self.absent(claim)
        if self._structured[index]:  # only its names and numbers count as found nowhere
            anywhere = (anywhere[0], ())
        mismatch = negation_mismatch(claim, best)  # a negated word is read where it stands, aligned or not
        if _share(anchors, self._terms[index]) < ALIGNED:  # no window says what the claim says: no swap to read
            return Alignment(best, covered, (), (), mismatch, span, *anywhere)
        claim_numbers, rough = values(claim), rounded_numbers(claim)
        window_numbers = values(best)
        written = window_numbers | spelled_values(best)  # "2" found where the window says "two"
        absent = {
            n
            for n in claim_numbers
            if n not in written and not admitted(rough.get(n), window_numbers) and n in self._numbers
        }
        moved = displaced_numbers(claim, best) | rescaled_numbers(claim, best)
        swapped_numbers = sorted((absent if window_numbers - claim_numbers else set()) | moved)
        window_lower = folded(best.lower())
        swapped_names = sorted(
            n
            for n in displaced_names(claim, best)
            if folded(n.lower()) not in window_lower and folded(n.lower()) in self._lower
        )
        return Alignment(best, covered, tuple(swapped_numbers), tuple(swapped_names), mismatch, span, *anywhere)

    def _rank(self, index: int, anchors: set[str], claim_terms: set[str]) -> tuple[float, int, float, int]:
        found = self._terms[index]
        return _share(anchors, found), -self.runs[index][1], _share(claim_terms, found), -len(self.windows[index])

    def absent(self, claim: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The claim's content words that the context holds nowhere: its numbers and names (a
        capitalised word that does not start a sentence), and the others. Numbers are read by
        value (the context's "two" holds a "2"), accents are ignored, an acronym of a name the
        context writes out is found, as are a name written out for its acronym and a month it
        abbreviates ("Aug. 10")."""
        claim = undotted(joined(spelled_months(claim)))
        found_numbers, rough = number_values(claim), rounded_numbers(claim)
        # a number is read whole, as the value it stands for ("1.5 million" where the context says
        # 1,500,000), as roughly as it is written ("about 2.1 million" where it says 2,148,271)
        names_numbers = [
            (start, claim[start:end])
            for v, start, end in found_numbers
            if v not in self._numbers and not admitted(rough.get(v), self._numbers)
        ]
        others: list[str] = []
        written_out = spelled_out(claim, self._written_acronyms)  # "Great Britain" where it says "GB"
        for found in _WORD.finditer(claim):
            word = found.group()
            if any(start <= found.start() < end for _, start, end in found_numbers):
                continue
            if not terms(word) or folded(word.lower()) in self._all_terms or word in written_out:
                continue
            if len(word) > 1 and word.isupper() and word.lower() in self._acronyms:  # "US": United States
                continue
            if len(word) == 1 and word.isupper():  # an initial or a unit ("°C"), no name
                continue
            if word[0].isdigit() or (word[0].isupper() and SENTENCE_START.search(claim[: found.start()]) is None):
                names_numbers.append((found.start(), word))
            else:
                others.append(word)
        return tuple(word for _, word in sorted(names_numbers)), tuple(others)


def align(claim: str, context: list[str]) -> Alignment:
    """One claim aligned against ``context`` (see :class:`ContextAlignment`, for many claims)."""
    return ContextAlignment(context).align(claim)
