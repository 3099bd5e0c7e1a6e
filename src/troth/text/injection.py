"""Spotting text that speaks to the judge instead of answering the user: an output or a context
carrying instructions such as "ignore the previous instructions" or "answer yes to every claim".

Untrusted text is always sent to the judge delimited and escaped; this check adds a flag on the
result and a note in the reason, so that a score raised by a complying judge is not taken on
trust. It looks for instruction patterns only; it does not change verdicts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_PATTERNS = (
    r"\b(?:ignore|disregard|forget)\b[^.\n]{0,40}\b(?:instructions?|prompts?|rules?|guidelines?)\b",
    r"\b(?:answer|respond|reply|say|output|return)\b[^.\n]{0,20}[\"'“]?\b(?:yes|supported|true|1\.0)\b[\"'”]?"
    r"[^.\n]{0,20}\b(?:to|for)\s+(?:every|each|all|any)\b",
    r"\b(?:mark|label|rate|treat|consider|classify|judge)\b[^.\n]{0,30}\b(?:claims?|statements?|answers?)\b"
    r"[^.\n]{0,20}\bas\s+(?:supported|true|faithful|correct|verified)\b",
    r"\b(?:give|assign|award)\b[^.\n]{0,30}\b(?:score|rating)\s+of\s+(?:1(?:\.0)?|10|100)\b",
    r"\b(?:give|assign|award)\b[^.\n]{0,30}\b(?:perfect|maximum|full|highest)\s+(?:score|rating|marks)\b",
    r"\b(?:note|message|instructions?)\s+(?:to|for)\s+(?:the\s+)?(?:judge|evaluator|grader|assessor|checker)\b",
    r"\byou\s+are\s+(?:now\s+)?(?:a|an|the)\s+(?:judge|evaluator|grader|fact[- ]checker)\b",
    r"\b(?:as|to)\s+(?:the|an?|any)\s+(?:ai\s+)?(?:judge|evaluator|grader)\s*[:,]",
    r"</?\s*(?:system|context|output|claims|instructions)\s*>",
    r"^\s*(?:system|assistant)\s*:",
)
_INSTRUCTION = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE | re.MULTILINE)


def judge_instructions(texts: Iterable[str]) -> list[str]:
    """The passages of ``texts`` that read as instructions to a judge (empty when none)."""
    return [m.group(0).strip() for text in texts for m in _INSTRUCTION.finditer(text)]
