"""Names in a claim and its context: runs of capitalised words, a name set beside another's words
(the sign of a swapped name), a name read without its accents, and the acronyms of a context's
names and a claim's names written out for a context's acronym ("Great Britain" for "GB")."""

from __future__ import annotations

import re
import unicodedata

from troth.text.numerals import CALENDAR, LEAD, TOKEN, joined, nearest
from troth.text.windows import terms

_NAME = re.compile(r"\b[A-Z][a-z]{2,}(?: [A-Z][a-z]{2,})*")
SENTENCE_START = re.compile(r"(^|[.!?\"'“‘]\s*)$")
DOTTED = re.compile(r"\b(?:[A-Z]\.){2,}")
_TITLED = re.compile(r"\b[A-Z][a-z]+(?:\s+(?:of|and|for|the|de)?\s*[A-Z][a-z]+)+")
_CAPITALS = re.compile(r"\b[A-Z]{2,6}\b")


def names(text: str, *, initial: bool = False) -> set[str]:
    """Runs of capitalised words that do not start a sentence (names, places, organisations);
    with ``initial``, runs of two or more words that do ("Anna Berg founded ...") too."""
    found = set()
    for m in _NAME.finditer(text):
        starts = SENTENCE_START.search(text[: m.start()]) is not None
        if m.group() not in CALENDAR and (not starts or (initial and " " in m.group())):
            found.add(m.group())
    return found


def _neighbours(text: str, found: set[str]) -> dict[str, set[str]]:
    """Each of ``found`` (names of ``text``) with the content words beside it: the nearest one
    within :data:`LEAD` words before it and after it, a number in between stopping the search."""
    tokens = TOKEN.findall(joined(text))
    out: dict[str, set[str]] = {}
    for name in found:
        size = len(name.split())
        for at in range(len(tokens) - size + 1):
            if " ".join(tokens[at : at + size]) != name:
                continue
            for side in (reversed(tokens[max(at - LEAD, 0) : at]), tokens[at + size : at + size + LEAD]):
                if word := nearest(side):
                    out.setdefault(name, set()).add(word)
    return out


def displaced_names(claim: str, window: str) -> set[str]:
    """Names of the claim that a word beside them sets beside another name of the window, and
    never beside them there ("Tom Rask founded the firm" where the window says "Anna Berg founded
    the firm")."""
    ours, found = _neighbours(claim, names(claim, initial=True)), names(window, initial=True)
    lower = claim.lower()
    others, theirs = {n for n in found if n.lower() not in lower}, _neighbours(window, found)
    displaced = set()
    for name, beside in ours.items():
        taken = {w for other in others for w in theirs.get(other, set())}
        if beside & taken - theirs.get(name, set()):
            displaced.add(name)
    return displaced


def undotted(text: str) -> str:
    """``text`` with its dotted acronyms undotted ("U.S.": "US")."""
    return DOTTED.sub(lambda m: m.group().replace(".", ""), text)


def _dotted(text: str) -> set[str]:
    """The dotted acronyms of ``text``, undotted and lower-cased ("U.S.": "us")."""
    return {undotted(found).lower() for found in DOTTED.findall(text)}


def folded(text: str) -> str:
    """``text`` without its accents: "Zürich" and "Zurich", "José" and "Jose" alike."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def acronyms(text: str) -> set[str]:
    """The initials of each run of capitalised words in ``text``, lower-cased: "United Nations"
    gives "un", "Federal Bureau of Investigation" "fbi" (what a claim may write for them); and
    its dotted acronyms undotted ("U.S.": "us")."""
    found = _dotted(text)
    for run in _TITLED.finditer(text):
        words = [w for w in run.group().split() if w[0].isupper()]
        initials = "".join(w[0] for w in words).lower()
        found.update(initials[i:j] for i in range(len(initials)) for j in range(i + 2, len(initials) + 1))
    return found


def written_acronyms(text: str) -> set[str]:
    """The acronyms ``text`` writes, lower-cased: its runs of 2 to 6 capitals that are no common
    word ("GB", "PCC"; not "BE") and its dotted acronyms undotted ("U.S.": "us")."""
    return _dotted(text) | {w.lower() for w in _CAPITALS.findall(text) if terms(w)}


def spelled_out(claim: str, written: set[str]) -> set[str]:
    """The words of the claim's runs of capitalised words whose initials are one of ``written``
    (a context's acronyms): "Great Britain" where the context writes "GB". A common word
    capitalised ("The", "In") is no part of the run's initials."""
    found: set[str] = set()
    for run in _TITLED.finditer(claim):
        words = [w for w in run.group().split() if w[0].isupper() and terms(w)]
        if len(words) > 1 and "".join(w[0] for w in words).lower() in written:
            found.update(words)
    return found
