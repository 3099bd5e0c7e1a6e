"""A deterministic sentence splitter with character offsets: the model-free claim extractor."""

from __future__ import annotations

import re

from troth.text.markup import block_breaks, prose_segments

_ABBREVIATIONS = {"mr", "mrs", "ms", "dr", "prof", "st", "vs", "etc", "e.g", "i.e", "inc", "ltd", "jr", "sr", "no"}
_BLANK_LINE = re.compile(r"\n[ \t]*\n\s*")
_NUMBERED = re.compile(r"\d{1,3}\.")
_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9\u00C0-\u024F])")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of the sentences of ``text``, leading and trailing blanks excluded.

    A blank line ends a sentence (a heading or a title line above a paragraph is one of its own),
    and so does markup (:func:`troth.text.markup.block_breaks`: an HTML block tag, a list item's
    or a heading's line).
    Else a sentence ends at ., ! or ? followed by a capitalised word or a digit; common
    abbreviations ("Dr.", "e.g.") and single initials ("J. Smith") do not end one; a unit after a
    number does ("330 m. It opened").
    """
    spans: list[tuple[int, int]] = []
    start = 0
    breaks = sorted([(m.start(), m.end()) for m in _BLANK_LINE.finditer(text)] + block_breaks(text))
    for begin, end in breaks:
        if begin >= start:
            spans += _paragraph_spans(text, start, begin)
        start = max(start, end)
    return spans + _paragraph_spans(text, start, len(text))


def _paragraph_spans(text: str, begin: int, finish: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = begin
    for match in _BOUNDARY.finditer(text, begin, finish):
        candidate = text[start : match.start()].strip()
        words = candidate.rsplit(maxsplit=2)[-2:] if candidate else [""]
        last_word = words[-1].rstrip(".").lower()
        # a lower-case unit after a number ends a sentence ("330 m."); "5 p. m." and "1101 W." do not
        number = len(words) == 2 and words[0].replace(",", "").replace(".", "").isdigit()
        unit = number and words[-1][:1].islower() and last_word not in ("a", "p")
        marker = _NUMBERED.fullmatch(candidate) is not None  # "1. Preheat the oven": a list item's number
        if marker or last_word in _ABBREVIATIONS or (len(last_word) == 1 and last_word.isalpha() and not unit):
            continue
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, finish))
    return [_strip(text, a, b) for a, b in spans if text[a:b].strip()]


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, inner whitespace collapsed to single spaces."""
    return [" ".join(text[a:b].split()) for a, b in sentence_spans(text)]


_JOINT = re.compile(r",?\s+(?:and|but|while|whereas)\s+|;\s+")
_VERB = re.compile(
    r"\b(?:is|are|was|were|has|have|had|will|would|can|could|did|does|do|may|might|must|should|"
    r"began|became|won|made|built|said|went|took|gave|found|came|grew|led|sold|left|held|got|ran|"
    r"wrote|rose|fell|saw|met|knew|\w+ed)\b",
    re.IGNORECASE,
)


_PRONOUN = frozenset(["it", "he", "she", "they", "we", "i", "you", "this", "these", "those", "there"])


def _has_verb(words: list[str]) -> bool:
    return any(_VERB.fullmatch(w.strip(",.;:!?\"'()")) for w in words)


def _starts_clause(words: list[str]) -> bool:
    """A verb among the first four words, or a subject pronoun first ("it carries ...")."""
    return _has_verb(words[:4]) or words[0].lower() in _PRONOUN


def split_claims(text: str) -> list[str]:
    """Claims without a model: each sentence of the answer's prose (:mod:`troth.text.markup`:
    list items, lines and HTML blocks apart, code, headings and markers left out), with
    coordinated clauses ("X is a sedan, and deliveries began in July") split into claims of their
    own. A part is split off only when both sides are clauses (three words or more with a verb;
    on the right, among its first four words or after a subject pronoun)."""
    claims: list[str] = []
    for sentence in (s for segment in prose_segments(text) for s in split_sentences(segment)):
        joints = list(_JOINT.finditer(sentence))
        start = 0
        for k, joint in enumerate(joints):
            left = sentence[start : joint.start()].split()
            right_end = joints[k + 1].start() if k + 1 < len(joints) else len(sentence)
            right = sentence[joint.end() : right_end].split()
            if len(left) >= 3 and len(right) >= 3 and _has_verb(left) and _starts_clause(right):
                claims.append(_as_sentence(sentence[start : joint.start()]))
                start = joint.end()
        claims.append(_as_sentence(sentence[start:]) if start else sentence)
    return claims


def _as_sentence(clause: str) -> str:
    clause = clause.strip().rstrip(",;")
    clause = clause[:1].upper() + clause[1:]
    return clause if clause.endswith((".", "!", "?")) else clause + "."
