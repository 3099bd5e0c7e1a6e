"""How a claim's numbers are read against its context: by the value they stand for ("1.5 million",
"$1.5m" and "1,500,000" are one number), as roughly as they are written ("about 2.1 million" may
stand for 2,148,271, "over 300" for 330), by the word that leads them ("fell 5%" where the window
says "fell 3%"), and by their scale word ("$5.2 million" where it says "$5.2 billion"); a clock
time by its 24-hour value ("2:45 pm" is "14:45"); a context's number written in words ("two gold
albums") is found for a claim's "2". Units are not converted ("2.5 km" is not "2,500 metres").
Used by :mod:`troth.text.alignment`."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from troth.text.times import MONTHS, Clock, clock_times
from troth.text.windows import terms

_DIGITS = r"(?<![\w.,])\d+(?:[.,]\d+)*"
# a number may carry its unit or suffix in the same word: "3rd", "40C", "5km", "9am", "1990s", "£50m"
NUMBER = re.compile(_DIGITS + r"(?=[^\W\d_]*(?!\w))")
_SPLIT_THOUSANDS = re.compile(r"(?<![\w.,])\d{1,3}(?:, ?\d{3})*, \d{3}\b")  # "53, 193, 914", not "2014, 150"
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
_HEDGE_WAYS = {
    "above": ("over", "more than", "above", "at least", "just over", "upwards of"),
    "below": ("under", "less than", "below", "fewer than", "up to", "at most", "just under", "nearly", "almost"),
}
_HEDGES = ("about", "around", "approximately", "roughly", "some", "close to", "circa", "an estimated")
_HEDGE_WORDS = "|".join(w.replace(" ", r"\s+") for w in (*_HEDGES, *(h for hs in _HEDGE_WAYS.values() for h in hs)))
_HEDGE = re.compile(rf"(?:\b({_HEDGE_WORDS})\s+|~\s*)(?:[$£€¥]\s*)?$", re.IGNORECASE)
# a decade of years ("the late 1880s", "1990's"): any year of it
_DECADE_YEAR = re.compile(r"1\d\d0|20\d0")
_DECADE = re.compile(r"'?s(?!\w)")
_DECADE_LEAD = re.compile(r"\bthe\s+(?:(?:early|mid|late)[\s-]+)?$", re.IGNORECASE)


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


@dataclass(frozen=True)
class Rounded:
    """A number written roughly ("about 2.1 million", "over 300", "$3m"): its value, the unit of
    its last written digit, and where the number it stands for may lie: ``near`` it (within half
    a unit), ``above`` or ``below`` it (by at most a unit: "over 300" is 300 to 400, "nearly 50"
    40 to 50), or in its ``decade`` ("the 1880s": 1880 to 1889)."""

    value: Decimal
    unit: Decimal
    way: str

    def admits(self, number: str) -> bool:
        """Whether ``number``, a value of the context, is one this rough number may stand for."""
        try:
            found = Decimal(number)
        except InvalidOperation:  # a clock time ("14:45")
            return False
        if self.way == "decade":
            return self.value <= found < self.value + self.unit
        if self.way == "above":
            return self.value <= found <= self.value + self.unit
        if self.way == "below":
            return self.value - self.unit <= found <= self.value
        return abs(found - self.value) * 2 <= self.unit


def _rounded(number: str, scale: str, hedge: str) -> Rounded | None:
    """``number`` with its scale word and the hedge before it, as a :class:`Rounded`; None when it
    has neither (a number written out is exact)."""
    if not hedge and not scale:
        return None
    bare, power = number.replace(",", ""), _MULTIPLIERS.get(scale, 0)
    places = -len(bare.partition(".")[2]) if "." in bare else len(bare) - len(bare.rstrip("0"))
    try:
        found = Decimal(bare).scaleb(power)
    except InvalidOperation:
        return None
    if not found:  # "000 million", a number lost in tokenising, stands for nothing
        return None
    way = next((w for w, hedges in _HEDGE_WAYS.items() if hedge in hedges), "near")
    return Rounded(found, Decimal(1).scaleb(power + places), way)


def _readings(text: str) -> list[tuple[str, int, int, Rounded | Clock | None]]:
    """Each number of ``text`` (after :func:`joined`): its :func:`value`, where it stands with its
    hedge and scale word (or as a decade: "the late 1880s"), and how roughly it is written; a
    clock time is one number, its 24-hour value ("2:45 pm": "14:45", :func:`clock_times`)."""
    text = joined(text)
    clocks = clock_times(text)
    found: list[tuple[str, int, int, Rounded | Clock | None]] = [(c.value, c.start, c.end, c) for c in clocks]
    for m in NUMBER.finditer(text):
        if any(c.start <= m.start() < c.end for c in clocks):
            continue
        scale = _MULTIPLIED.match(text, m.end())
        word = scale.group(1).lower() if scale else ""
        if word in ("m", "k") and not _CURRENCY.search(text, max(m.start() - 8, 0), m.start()):  # "100m": metres
            word = ""
        hedge = _HEDGE.search(text, max(m.start() - 24, 0), m.start())
        start, end = hedge.start() if hedge else m.start(), scale.end() if scale and word else m.end()
        said = " ".join((hedge.group(1) or "~").lower().split()) if hedge else ""
        decade = _DECADE.match(text, m.end()) if _DECADE_YEAR.fullmatch(m.group()) else None
        if decade and not hedge:
            lead = _DECADE_LEAD.search(text, max(m.start() - 20, 0), m.start())
            start, end = lead.start() if lead else m.start(), decade.end()
            found.append((m.group(), start, end, Rounded(Decimal(m.group()), Decimal(10), "decade")))
            continue
        found.append((value(m.group(), word), start, end, _rounded(m.group(), word, said)))
    return sorted(found, key=lambda reading: reading[1])


def number_values(text: str) -> list[tuple[str, int, int]]:
    """Each number of ``text`` (after :func:`joined`) as its :func:`value`, and where it stands
    there with its hedge and scale word ("about 1.5 million"): "1.5 million", "$1.5m" and
    "1,500,000" alike are "1500000"."""
    return [(v, start, end) for v, start, end, _ in _readings(text)]


def rounded_numbers(text: str) -> dict[str, Rounded | Clock]:
    """The numbers of ``text`` written roughly, by :func:`value`: with a hedge ("about", "over",
    "nearly", "~") or a scale word ("2.1 million" may stand for 2,148,271); and its clock times
    ("3:30" may be 15:30)."""
    return {v: r for v, _, _, r in _readings(text) if r is not None}


def written_numbers(context: str) -> dict[str, str]:
    """Each number of ``context`` by its :func:`value`, as the context first writes it (read once
    for all the claims :func:`resolved` reads against it)."""
    context = joined(context)
    written: dict[str, str] = {}
    for number, start, end in number_values(context):
        written.setdefault(number, context[start:end])
    return written


def resolved(claim: str, written: dict[str, str]) -> str:
    """``claim`` with each number it writes roughly replaced by the one number of the context
    (``written``: :func:`written_numbers`) that it may stand for, as the context writes it: "about
    2.1 million" where the context says 2,148,271 reads "2,148,271" (what a classifier, blind to
    rounding, then reads). A rough number the context holds as written, or that stands for none or
    several of its numbers, stays."""
    claim = joined(claim)
    for number, start, end, rough in reversed(_readings(claim)):
        if isinstance(rough, Clock):  # a time as the context writes it ("2:45 pm" where it says 14:45)
            same = number if number in written else rough.twin if rough.twin in written else ""
            claim = claim[:start] + written[same] + claim[end:] if same else claim
            continue
        if rough is None or number in written:
            continue
        (only, *others) = [v for v in written if admitted(rough, [v])] or [""]
        if only and not others:
            claim = claim[:start] + written[only] + claim[end:]
    return claim


def admitted(rounded: Rounded | Clock | None, found: Iterable[str]) -> bool:
    """Whether a number written roughly (or a clock time) may stand for one of ``found`` (values)."""
    return rounded is not None and any(rounded.admits(number) for number in found)


def values(text: str) -> set[str]:
    """The :func:`value` of each number of ``text``."""
    return {v for v, _, _ in number_values(text)}


_UNITS = ("two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_SPELLED = re.compile(
    rf"\b(?:({'|'.join(_TENS)})(?:[- ](one|{'|'.join(_UNITS)}))?|({'|'.join(_UNITS + _TEENS)}))\b", re.IGNORECASE
)


_WORD_VALUES = {word: n for n, word in enumerate(("one", *_UNITS, *_TEENS), start=1)}
_TENS_VALUES = {word: 10 * n for n, word in enumerate(_TENS, start=2)}


def spelled_values(text: str) -> set[str]:
    """The values of the numbers ``text`` writes in words from two to ninety-nine ("two platinum
    albums", "a twelve-bar blues", "twenty-five"); "one" is left out, a pronoun as often as not."""
    found = set()
    for m in _SPELLED.finditer(text):
        tens, unit, small = (g.lower() if g else "" for g in m.groups())
        found.add(str(_WORD_VALUES[small] if small else _TENS_VALUES[tens] + _WORD_VALUES.get(unit, 0)))
    return found


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
    ours, theirs, rough = number_leads(claim), number_leads(window), rounded_numbers(claim)
    displaced = set()
    for number, leads in ours.items():
        for lead in leads:
            led = {n for n, found in theirs.items() if lead in found}
            if led and number not in led and not admitted(rough.get(number), led):
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
    return _SPLIT_DECIMAL.sub(r"\1.\2", _SPLIT_THOUSANDS.sub(lambda m: m.group().replace(" ", ""), text))
