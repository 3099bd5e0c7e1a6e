"""A claim with one of its names or numbers replaced by another of its aligned window.

A pair classifier judges one (window, claim) pair at a time, and a small one reads "released on
Germany 7th 2010" against "unveiled on June 7, 2010, ... in Germany" as support: every word is
there. Asked about the same claim with "June" in place of "Germany", it is far surer. A claim
whose own name or number fits its window worse than one the window offers instead is the mark of
a swap; a faithful claim's own fits best. The substitutes are what the classifier is asked about.
"""

from __future__ import annotations

import re

from troth.text.names import names
from troth.text.numerals import CALENDAR, joined, numbers

MOST = 6
"""Substitutes a claim gets at most: the classifier reads each one, one pair more."""
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:,\d{3})*(?:\.\d+)?(?![\w])")


def substitutes(claim: str, window: str, most: int = MOST) -> list[str]:
    """The claim with one name replaced by a name of ``window`` it lacks, or one number by a
    number of ``window`` it lacks; round-robin over the claim's names and numbers, in order."""
    text = joined(claim)
    lower = text.lower()
    offered = names(window, initial=True) | {w for w in re.findall(r"\b[A-Z][a-z]+\b", window) if w in CALENDAR}
    theirs = [n for n in _in_order(window, offered) if n.lower() not in lower]
    kinds: list[list[str]] = []
    for name in _in_order(text, names(text, initial=True)):
        kinds.append([_replaced(text, name, other) for other in theirs if other not in name and name not in other])
    other_numbers = [n for n in _in_order(joined(window), numbers(window)) if n not in numbers(text)]
    for found in _NUMBER.finditer(text):
        kinds.append([text[: found.start()] + n + text[found.end() :] for n in other_numbers])
    out: list[str] = []
    for depth in range(max((len(k) for k in kinds), default=0)):
        out += [k[depth] for k in kinds if depth < len(k) and k[depth] not in out]
    return out[:most]


def _in_order(text: str, found: set[str]) -> list[str]:
    """``found`` in the order each first appears in ``text`` (numbers without their commas)."""
    bare = text.replace(",", "")
    return sorted(found, key=lambda f: (bare.find(f) if f in bare else text.find(f), f))


def _replaced(text: str, old: str, new: str) -> str:
    return re.sub(rf"\b{re.escape(old)}\b", new, text, count=1)
