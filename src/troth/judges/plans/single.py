"""Claims and their verdicts in one request (HTTP judges, ``strategy="single-pass"``): the judge
reads the context and the answer once and returns each claim with its verdict, evidence quote
and reason. An answer is checked before it is used: a quote that is not in the context, or a
claim given twice, is asked again with the problem fed back (then a typed error naming the
step). A context and answer too long for one request are left to the two-step path."""

from __future__ import annotations

from collections.abc import Callable

from troth.judges.parsing import OutputCheckError
from troth.judges.session import StepContext
from troth.prompts import single_pass as P
from troth.text.evidence import locate
from troth.values import Verdict

MAX_CHARS = 48_000
"""Context and answer, in characters, that one request takes at most when the judge does not
declare its window (about 12,000 tokens)."""

CHARS_PER_TOKEN = 4


def fits(ctx: StepContext, context: list[str], output: str) -> bool:
    """Whether one request can carry the context and the answer, with room for the reply."""
    size = sum(len(s) for s in context) + len(output)
    window = ctx.judge.context_window if ctx.judge is not None else None
    if window is None:
        return size <= MAX_CHARS
    reply = ctx.judge.max_tokens if ctx.judge is not None else 0
    return size // CHARS_PER_TOKEN + len(P.USER.template) // CHARS_PER_TOKEN + reply < window


def quote_checker(context: list[str]) -> Callable[[P.ClaimsWithVerdicts], None]:
    """A ``check`` for single-pass answers: every quote found in the context, no claim twice."""

    def check(answer: P.ClaimsWithVerdicts) -> None:
        seen: set[str] = set()
        for n, item in enumerate(answer.claims, 1):
            key = " ".join(item.claim.split()).lower()
            if key in seen:
                raise OutputCheckError(f"claim {n} ({item.claim!r}) is given twice; give each claim once")
            seen.add(key)
            found = locate(item.evidence, context)
            if found is not None and not found.verified:
                raise OutputCheckError(
                    f"the evidence of claim {n} is not in the context: {item.evidence!r}; copy the passage "
                    'exactly, or give "" when the context has none'
                )

    return check


async def single_pass(ctx: StepContext, context: list[str], output: str, input_text: str) -> list[Verdict]:
    """The answer's claims with their verdicts, from one request (empty: no factual claim)."""
    answer = await ctx.ask(
        P.single_pass_prompt(context, output, input_text),
        P.ClaimsWithVerdicts,
        system=P.SYSTEM,
        check=quote_checker(context),
    )
    verdicts = []
    for item in answer.claims:
        evidence = locate(item.evidence, context)
        unquoted = item.verdict == "yes" and evidence is None
        verdicts.append(Verdict(item.claim.strip(), item.verdict, item.reason, evidence, unquoted=unquoted))
    return [v for v in verdicts if v.claim]
