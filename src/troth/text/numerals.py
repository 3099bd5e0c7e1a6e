"""How a claim's numbers are read against its context: by the value they stand for ("1.5 million",
"$1.5m" and "1,500,000" are one number), by the word that leads them ("fell 5%" where the window
says "fell 3%"), and by their scale word ("$5.2 million" where it says "$5.2 billion"). Units and
times are not converted ("2.5 km" is not "2,500 metres"). Used by :mod:`troth.text.alignment`."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation

from troth.text.times import MONTHS
from troth.text.windows import terms

_DIGITS = r"(?<![\w.,])\d+(?:[.,]\d+)*"
# a number may carry its unit or suffix in the same word: "3rd", "40C", "5km", "9am", "1990s", "£50m"
NUMBER = re.compile(_DIGITS + r"(?=[^\W\d_]*(?!\w))")
_SPLIT_THOUSANDS = re.compile(r"(\d), (\d{3})\b")
_SPLIT_DECIMAL = re.compile(r"(\d)\. (\d)\b")
TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")
LEAD = 3
"""Words searched, before a number or beside a name, for the content word next to it."""
# dates, not names: a claim may date what its window leaves undated
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
CALENDAR = frozenset([*_DAYS, *MONTHS])
_MULTIPLIERS = {"k": 3, "thousand": 3, "m": 6, "million": 6, "billion": 9, "bn": 9, "trillion": 12}
_SCALE_WORDS = "thousand|million|billion|trillion|bn"
_MULTIPLIED = re.compile(rf"\s*({_SCALE_WORDS}|m|k)(?!\w)", re.IGNORECASE)
_CURRENCY = re.compile(r"[$£€¥]\s*$")
_SCALE = re.compile(rf"({_DIGITS})\s*({_SCALE_WORDS}|%|percent|per cent)(?!\w)", re.IGNORECASE)
_SCALE_NAMES = {"bn": "billion", "%": "percent", "per cent": "percent"}


def numbers(text: str) -> set[str]:
    """The numbers of ``text``, thousands separators dropped ("20,000", "20, 000" and "20000" alike)."""
    return {n.replace(",", "") for n in NUMBER.findall(joined(text))}


def value(number: str, scale: str = "") -> str:
    """A number as written (thousands separators dropped) or, with a ``scale`` word such as
    "million", the number it stands for: "1.5" with "million" and "1,500,000" are both "1500000"."""
    bare = number.replace(",", "")
    power = _MULTIPLIERS.get(scale.lower())
    if power is None:
        return bare
    try:
        return format(Decimal(bare).scaleb(power).normalize(), "f")
    except InvalidOperation:  # "1.2.3": no one number
        return bare


def number_values(text: str) -> list[tuple[str, int, int]]:
    """Each number of ``text`` (after :func:`joined`) as its :func:`value`, and where it stands
    there: "1.5 million", "$1.5m" and "1,500,000" alike are "1500000"."""
    text = joined(text)
    found = []
    for m in NUMBER.finditer(text):
        scale = _MULTIPLIED.match(text, m.end())
        word = scale.group(1).lower() if scale else ""
        if word in ("m", "k") and not _CURRENCY.search(text, max(m.start() - 8, 0), m.start()):  # "100m": metres
            word = ""
        found.append((value(m.group(), word), m.start(), m.end()))
    return found


def values(text: str) -> set[str]:
    """The :func:`value` of each number of ``text``."""
    return {v for v, _, _ in number_values(text)}


def nearest(side: Iterable[str]) -> str:
    """The first content word of ``side``, lower-cased; "" when a number, or nothing, comes first."""
    word = next((t for t in side if t[0].isdigit() or terms(t)), "")
    return "" if not word or word[0].isdigit() else word.lower()


def number_leads(text: str) -> dict[str, set[str]]:
    """Each number of ``text`` with the content words that lead it: the nearest one within
    :data:`LEAD` words before it, another number in between stopping the search ("fell 3%": fell)."""
    text = joined(text)
    # a month or day leads no number: "May 7, 2018" and "7 May 2018" are one date
    tokens = [(m.start(), m.group()) for m in TOKEN.finditer(text) if m.group() not in CALENDAR]
    starts = [at for at, _ in tokens]
    leads: dict[str, set[str]] = {}
    for number, start, _ in number_values(text):
        before = bisect_left(starts, start)  # the tokens before the number
        if lead := nearest(token for _, token in reversed(tokens[max(before - LEAD, 0) : before])):
            leads.setdefault(number, set()).add(lead)
    return leads


def displaced_numbers(claim: str, window: str) -> set[str]:
    """Numbers of the claim, present in the window or not, whose leading word leads only other
    numbers there ("prices fell 5%" where the window says "prices fell 3%, after rising 5%")."""
    ours, theirs = number_leads(claim), number_leads(window)
    displaced = set()
    for number, leads in ours.items():
        for lead in leads:
            led = {n for n, found in theirs.items() if lead in found}
            if led and number not in led:
                displaced.add(number)
    return displaced


def number_scales(text: str) -> dict[str, set[str]]:
    """Each number of ``text`` written with a scale word, and its scales ("5.2 billion": billion;
    "8%" and "8 percent": percent)."""
    scales: dict[str, set[str]] = {}
    for number, scale in _SCALE.findall(joined(text)):
        scales.setdefault(number.replace(",", ""), set()).add(_SCALE_NAMES.get(scale.lower(), scale.lower()))
    return scales


def rescaled_numbers(claim: str, window: str) -> set[str]:
    """Numbers of the claim (as their :func:`value`) whose scale the window gives them only
    otherwise ("$5.2 million" where the window says "$5.2 billion")."""
    ours, theirs = number_scales(claim), number_scales(window)
    return {value(n, min(scales)) for n, scales in ours.items() if n in theirs and not scales & theirs[n]}


def joined(text: str) -> str:
    """Numbers that tokenised text splits ("13, 000", "7. 8") joined again."""
    return _SPLIT_DECIMAL.sub(r"\1.\2", _SPLIT_THOUSANDS.sub(r"\1,\2", text))
