"""Sentences of an answer that state nothing to check: the assistant's own pleasantries ("Sure!",
"I hope this helps!", "Let me know if you have any other questions.") and offers of more help
("Would you like more details?"). The claim splitter that needs no model leaves them out, as a
judge's claim extraction does; a question put back to the user otherwise stays a claim."""

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
    r"|^(?:please )?(?:let me know|feel free|don't hesitate|do not hesitate)\b"
    r"|^if you have any (?:other |more |further )?questions\b"
    r"|^(?:would you like|do you want|shall i|should i) (?:me to|to know|to hear|more|further|additional|any other)\b"
    r"|^(?:is there|can i help you with|how else can i help)\b.*\b(?:else|further|other)\b.*\?\s*$",
    re.IGNORECASE,
)


def is_chatter(sentence: str) -> bool:
    """Whether ``sentence`` is a pleasantry or an offer of more help, with nothing to check."""
    text = sentence.strip().strip("\"'“”‘’*_ ")
    return bool(_ALONE.match(text) or _OPENING.match(text))


def without_chatter(claims: list[str]) -> tuple[list[str], list[str]]:
    """(the claims, the sentences left out as chatter); an answer of nothing but chatter keeps
    every sentence, so that it is scored, not passed."""
    kept = [c for c in claims if not is_chatter(c)]
    if not kept:
        return claims, []
    return kept, [c for c in claims if is_chatter(c)]
