"""Hallucination prompt: the reason for a score (claims and verdicts come from prompts.claims).

A claim is hallucinated when the context contradicts it ("no") or does not state it ("unsure"),
hedged claims about absent facts included; approximations stated as such and within 10% of the
context's figure are supported (see prompts.claims).
"""

from __future__ import annotations

from collections.abc import Sequence
from string import Template
from typing import TYPE_CHECKING

from troth.prompts import claims
from troth.prompts.common import block, render, verdict_lines

if TYPE_CHECKING:
    from troth.values import Verdict
from troth.prompts.faithfulness import ScoreReason

VERSION = f"{claims.VERSION}/hallucination-v1"

__all__ = [
    "NO_CLAIMS_REASON",
    "NO_CONTEXT_REASON",
    "REASON_SYSTEM",
    "TEMPLATE_HEADLINE",
    "VERSION",
    "ScoreReason",
    "reason_prompt",
]

REASON_SYSTEM = "You explain hallucination scores to engineers in plain, precise language."

REASON_USER = Template(
    """A text was checked claim by claim against its context. Its hallucination score is
$score out of $scale (the share of claims that the context contradicts or does not state, times
$scale; lower is better).

$verdicts_block

Explain the score in two to four sentences. Name the contradicted claims ("no") and the claims
with facts absent from the context ("unsure"), each by its content, and say which claims are
supported. Do not judge the claims again. Write in the language of the claims.
Answer with {"reason": "..."}."""
)

TEMPLATE_HEADLINE = (
    "The hallucination score is {score:g} out of {scale:g} (lower is better): "
    "{yes} of {n} claims are supported by the context."
)
NO_CLAIMS_REASON = "The score is 0 because the output contains no claims to check."
NO_CONTEXT_REASON = (
    "The score is {scale:g}, the maximum, because no context was found (none was given, and the output has "
    "no tool-call results), so none of the {n} claim(s) is grounded."
)


def reason_prompt(score: float, scale: float, verdicts: Sequence[Verdict]) -> str:
    """The reason prompt, given the scored verdicts."""
    return render(REASON_USER, score=score, scale=scale, verdicts_block=block("verdicts", verdict_lines(verdicts)))
