"""Context windows for a pair classifier: the context's sentences, packed to fit a window.

A claim is checked against each window of its context: first the sentences that share the
most words with it (in context order), then the whole context in consecutive windows, so a
context of any length is covered and nothing is cut. Each sentence keeps its segment and
character offsets, so the sentence that decides a verdict becomes its evidence.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, replace

from troth.text.html_tables import html_table_blocks
from troth.text.markup import closed_at, line_reading, table_blocks
from troth.text.records import json_records
from troth.text.sentences import sentence_spans

_WORD = re.compile(r"\w+")
_STOPWORD_TEXT = (
    "a an and are as at be been but by did do does for from had has have he her his i in is it its of on or "
    "she so than that the their them there they this to was we were which who will with you"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@dataclass(frozen=True)
class Sentence:
    """One sentence of a context: its text, segment index and ``start:end`` offsets there (a
    Markdown or HTML table row read as a sentence: "Eiffel Tower: Height: 330 m.", see
    :func:`troth.text.markup.table_blocks` and :mod:`troth.text.html_tables`; a Markdown link
    read as its words)."""

    text: str
    segment: int
    start: int
    end: int
    original: str = ""  # the context's own words, where ``text`` reads them otherwise (a table row, a link)
    structured: bool = False  # a table row or a JSON object: fields named by a header or keys

    @property
    def quote(self) -> str:
        """The context's words at ``start:end``, what evidence quotes."""
        return self.original or self.text


def terms(text: str) -> list[str]:
    """Lower-cased content words of ``text``."""
    return [w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS]


def context_sentences(context: list[str], max_chars: int) -> list[Sentence]:
    """The context's sentences, each row of a Markdown or HTML table read as one, a JSON segment read
    object by object (:mod:`troth.text.records`); one longer than ``max_chars`` is cut into
    pieces at spaces."""
    out: list[Sentence] = []
    for index, segment in enumerate(context):
        if (records := json_records(segment, max_chars)) is not None:
            out += [Sentence(r.text, index, r.start, r.end, segment[r.start : r.end], True) for r in records]
            continue
        at = 0
        for start, end, rows in sorted(table_blocks(segment) + html_table_blocks(segment), key=lambda b: b[0]):
            out += _prose(segment, index, at, start, max_chars)
            out += [Sentence(r.text, index, r.start, r.end, segment[r.start : r.end], True) for r in rows]
            at = end
        out += _prose(segment, index, at, len(segment), max_chars)
    return out


def _prose(segment: str, index: int, begin: int, finish: int, max_chars: int) -> list[Sentence]:
    out: list[Sentence] = []
    for start, end in sentence_spans(segment[begin:finish]):
        out.extend(_pieces(segment, index, begin + start, begin + end, max_chars))
    read = [line_reading(s.text, closed_at(segment, s.end)) for s in out]
    kept = [(s, r) for s, r in zip(out, read, strict=True) if any(c.isalnum() for c in r)]  # not a bare tag
    return [s if r == s.text else replace(s, text=r, original=s.text) for s, r in kept]


def _pieces(segment: str, index: int, start: int, end: int, max_chars: int) -> list[Sentence]:
    pieces: list[Sentence] = []
    while end - start > max_chars:
        cut = segment.rfind(" ", start + 1, start + max_chars)
        cut = cut if cut > start else start + max_chars
        pieces.append(Sentence(segment[start:cut], index, start, cut))
        start = cut + 1 if segment[cut : cut + 1] == " " else cut
    pieces.append(Sentence(segment[start:end], index, start, end))
    return pieces


def rank(sentences: list[Sentence], claim: str) -> list[float]:
    """How well each sentence matches ``claim``: IDF-weighted share of the claim's words it has."""
    claim_terms = set(terms(claim))
    if not claim_terms:
        return [0.0] * len(sentences)
    bags = [set(terms(s.text)) for s in sentences]
    df = Counter(t for bag in bags for t in bag if t in claim_terms)
    weight = {t: math.log(1 + (len(bags) + 1) / (df[t] + 0.5)) for t in claim_terms}
    total = sum(weight.values())
    return [sum(weight[t] for t in claim_terms & bag) / total for bag in bags]


def pack(sizes: list[int], order: list[int], budget_chars: int) -> list[int]:
    """Indices taken greedily in ``order`` while their ``sizes`` (plus a separator each) fit
    ``budget_chars`` together; returned sorted (context order)."""
    chosen: list[int] = []
    used = 0
    for i in order:
        if used + sizes[i] + 1 <= budget_chars:
            chosen.append(i)
            used += sizes[i] + 1
    return sorted(chosen)


def best_sentences(sentences: list[Sentence], claim: str, budget_chars: int) -> list[Sentence]:
    """The sentences sharing words with ``claim`` that fit ``budget_chars`` together, best first,
    returned in context order (the best one alone when none shares a word)."""
    scores = rank(sentences, claim)
    order = sorted(range(len(sentences)), key=lambda i: (-scores[i], i))
    order = [i for i in order if scores[i] > 0] or order[:1]
    return [sentences[i] for i in pack([len(s.text) for s in sentences], order, budget_chars)]


def consecutive(sentences: list[Sentence], budget_chars: int) -> list[list[Sentence]]:
    """All sentences in order, packed into windows of at most ``budget_chars``, each window
    starting with the previous window's last sentence (so no sentence pair is split apart)."""
    windows: list[list[Sentence]] = []
    current: list[Sentence] = []
    used = 0
    for sentence in sentences:
        size = len(sentence.text) + 1
        if current and used + size > budget_chars:
            windows.append(current)
            current = [current[-1]] if len(current[-1].text) + 1 + size <= budget_chars else []
            used = sum(len(s.text) + 1 for s in current)
        current.append(sentence)
        used += size
    if current:
        windows.append(current)
    return windows


def claim_windows(
    sentences: list[Sentence], claim: str, budget_chars: int, *, scan: bool = True
) -> list[list[Sentence]]:
    """The windows a claim is checked against: the whole context when it fits, else its
    best-matching sentences first, then (with ``scan``) every consecutive window."""
    if sum(len(s.text) + 1 for s in sentences) <= budget_chars:
        return [sentences] if sentences else []
    best = best_sentences(sentences, claim, budget_chars)
    return [best, *consecutive(sentences, budget_chars)] if scan else [best]


def window_text(window: list[Sentence]) -> str:
    """A window as one passage."""
    return " ".join(s.text for s in window)
