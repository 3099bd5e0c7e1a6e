"""What an answer says about itself rather than about the world: the assistant's pleasantries
("Sure!", "I hope this helps!", "Let me know if you have any other questions."), offers of more
help ("Would you like more details?"), and a lead-in that credits the context ("According to the
context, ...", "The document states that ...") or frames the claim ("Yes, ...", "In summary,
..."). The claim splitter that needs no model leaves the first two out and takes the lead-in
off, as a judge's claim extraction does; a question put back to the user otherwise stays a
claim."""

from __future__ import annotations

import re

_END = r"\s*[!.?]*\s*$"
_ALONE = re.compile(
    r"^(?:(?:sure|certainly|of course|absolutely|okay|ok|great|good|excellent)(?: thing)?(?: question)?"
    r"|(?:happy|glad) to help|thanks?(?: you)?(?: for (?:asking|your question))?)" + _END,
    re.IGNORECASE,
)
_OPENING = re.compile(
    r"^(?:i )?hope (?:this|that|it) helps\b"
    r"|^(?:please )?let me know\b"
    r"|^(?:please )?(?:feel free|don't hesitate|do not hesitate) to (?:ask|reach|contact|let|get in touch|follow up)\b"
    r"|^if you have any (?:other |more |further )?questions\b"
    r"|^(?:would you like|do you want|shall i|should i) (?:me to|to know|to hear|more|further|additional|any other)\b"
    r"|^(?:is there|can i help you with|how else can i help)\b.*\b(?:else|further|other)\b.*\?\s*$",
    re.IGNORECASE,
)


_SOURCE = (
    r"(?:the |this |these )?(?:provided |given |above |available |supplied |retrieved )?"
    r"(?:context|documents?|texts?|passages?|information|sources?|excerpts?|search results|materials?)"
    r"(?: (?:provided|given|above|available|supplied|retrieved))?"
)
_MARKER = r"yes|no|in summary|in short|in brief|in conclusion|overall|to sum up|to summari[sz]e|to answer your question"
_LEAD_IN = re.compile(
    rf"^(?:(?:according to|based on|as (?:stated|mentioned|noted|described|shown) in|per|from|in) {_SOURCE}\s*,\s*"
    rf"|(?:{_MARKER})\s*[,:!.]\s*"
    rf"|{_SOURCE} (?:states?|says?|mentions?|notes?|indicates?|shows?|explains?|reports?|confirms?)(?: that)?\s+)",
    re.IGNORECASE,
)


def without_lead_in(claim: str) -> str:
    """``claim`` without a lead-in that credits the context ("According to the context, the tower
    is 330 m tall." -> "The tower is 330 m tall.") or that only frames it ("Yes,", "In summary,");
    unchanged when it has none or nothing else."""
    rest = claim
    while (shorter := _LEAD_IN.sub("", rest, count=1)) != rest and len(shorter.split()) >= 2:
        rest = shorter  # "According to the context, yes, ..."
    return claim if rest == claim else rest[:1].upper() + rest[1:]


def is_chatter(sentence: str) -> bool:
    """Whether ``sentence`` is a pleasantry or an offer of more help, with nothing to check."""
    text = sentence.strip().strip("\"'“”‘’*_ ")
    return bool(_ALONE.match(text) or _OPENING.match(text))


def without_chatter(claims: list[str]) -> tuple[list[str], list[str]]:
    """(the claims, the sentences left out as chatter); an answer of nothing but chatter keeps
    every sentence, so that it is scored, not passed."""
    chatter = [c for c in claims if is_chatter(c)]
    if len(chatter) == len(claims):
        return claims, []
    return [c for c in claims if c not in chatter], chatter
