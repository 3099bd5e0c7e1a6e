"""A deterministic sentence splitter: the fallback claim extractor."""

from __future__ import annotations

import re

_ABBREVIATIONS = {"mr", "mrs", "ms", "dr", "prof", "st", "vs", "etc", "e.g", "i.e", "inc", "ltd", "jr", "sr", "no"}
_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9\u00C0-\u024F])")


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences at ., ! or ? followed by a capitalised word or a digit.

    Common abbreviations ("Dr.", "e.g.") and single initials ("J. Smith") do not end a sentence.
    """
    pieces: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        candidate = text[start : match.start()].strip()
        last_word = candidate.rsplit(maxsplit=1)[-1].rstrip(".").lower() if candidate else ""
        if last_word in _ABBREVIATIONS or (len(last_word) == 1 and last_word.isalpha()):
            continue
        pieces.append(candidate)
        start = match.end()
    pieces.append(text[start:].strip())
    return [p for p in (" ".join(piece.split()) for piece in pieces) if p]
