"""Faithfulness prompt: the reason for a score (claims and verdicts come from prompts.claims)."""

from __future__ import annotations

from collections.abc import Sequence
from string import Template
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from troth.prompts import claims
from troth.prompts.common import block, render, verdict_lines

if TYPE_CHECKING:
    from troth.values import Verdict

VERSION = f"{claims.VERSION}/faithfulness-v1"


class ScoreReason(BaseModel):
    """Output of the reason step."""

    reason: str = Field(max_length=2000)


REASON_SYSTEM = "You explain faithfulness scores to engineers in plain, precise language."

REASON_USER = Template(
    """A text was checked claim by claim against its context. Its faithfulness score is
$score out of $scale (the share of claims that the context supports, times $scale).

$verdicts_block

Explain the score in two to four sentences. Name the supported claims, the contradicted claims
("no") and the claims that the context cannot verify ("unsure"), each by its content. Do not
judge the claims again. Write in the language of the claims.
Answer with {"reason": "..."}."""
)


def reason_prompt(score: float, scale: float, verdicts: Sequence[Verdict]) -> str:
    """The reason prompt, given the scored verdicts."""
    return render(REASON_USER, score=score, scale=scale, verdicts_block=block("verdicts", verdict_lines(verdicts)))


TEMPLATE_HEADLINE = "The score is {score:g} out of {scale:g}: {yes} of {n} claims are supported."
NO_CLAIMS_REASON = "The score is 0 because the output contains no claims to check."
NO_CONTEXT_REASON = (
    "The score is 0 because no context was found: none was given, and the output has no tool-call "
    "results to use. {n} claim(s) could not be verified."
)
