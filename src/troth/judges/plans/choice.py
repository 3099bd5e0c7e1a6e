"""One claim per request, the verdict decided from the model's P(yes/no/unsure) (the local LLM).

The context comes first in every request. A backend that declares ``prefix_reuse`` gets the
claims one after another, so it evaluates the context once per item; any other gets them all at
once. A context over the model's window is replaced, per claim, by its most relevant sentences
(those verdicts are flagged ``retrieved`` and the reason says so).
"""

from __future__ import annotations

import asyncio

from troth.judges.capabilities import Capabilities
from troth.judges.session import StepContext
from troth.prompts import claims as P
from troth.text.retrieval import select_sentences
from troth.values import Verdict

RESERVED_TOKENS = 512
"""Tokens of a request kept for the instructions, the claim and the answer."""

CHARS_PER_TOKEN = 2.5
"""A conservative estimate (English prose averages about 4), so that a context judged to fit does fit."""


def decide(probabilities: dict[str, float], yes_threshold: float) -> str:
    """ "yes" when P(yes) >= ``yes_threshold``; otherwise the likelier of "no" and "unsure"."""
    if probabilities["yes"] >= yes_threshold:
        return "yes"
    return "no" if probabilities["no"] >= probabilities["unsure"] else "unsure"


async def single_verdict(ctx: StepContext, context: list[str], claim: str, *, retrieved: bool = False) -> Verdict:
    """``claim`` against ``context`` in one request: "yes" when P(yes) reaches the judge's
    calibrated ``yes_threshold``, else the likelier of "no" and "unsure"."""
    if ctx.judge is None:
        raise ValueError("a choice verdict needs a judge")
    prompt = P.single_verdict_prompt(context, claim)
    choice = await ctx.choose(prompt, P.SINGLE_VERDICT_CHOICES, system=P.SINGLE_VERDICT_SYSTEM)
    label = decide(choice.probabilities, ctx.judge.yes_threshold)
    probabilities = {k: round(v, 4) for k, v in choice.probabilities.items()}
    return Verdict(claim, label, P.SINGLE_VERDICT_REASON[label], None, probabilities, retrieved)  # type: ignore[arg-type]


class ChoiceVerdicts:
    """Each claim in its own request against the whole context, or its retrieved sentences."""

    async def __call__(self, ctx: StepContext, context: list[str], claims: list[str]) -> list[Verdict]:
        capabilities = ctx.judge.capabilities if ctx.judge else Capabilities()
        window = capabilities.context_window
        budget = int((window - RESERVED_TOKENS) * CHARS_PER_TOKEN) if window else None
        if budget is None or sum(len(c) + 2 for c in context) <= budget:
            asks = [single_verdict(ctx, context, claim) for claim in claims]
        else:
            ctx.note(P.RETRIEVAL_NOTE.format(window=window))
            asks = [single_verdict(ctx, select_sentences(context, c, budget), c, retrieved=True) for c in claims]
        if capabilities.prefix_reuse:  # in order: each request reuses the context its predecessor evaluated
            return [await ask for ask in asks]
        return list(await asyncio.gather(*asks))
