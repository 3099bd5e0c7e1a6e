"""The verifier first, a second judge only where it is unsure.

Every claim is classified by the pair classifier; a claim whose P(supported) falls inside the
uncertain band ``[low, high)`` is judged again by the second judge, with that judge's own
plan, and its verdict replaces the first. Each verdict names the stage that decided it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from troth.judges.judge import Judge
from troth.judges.plans.pairs import classify_claims, decide, to_verdict
from troth.judges.session import StepContext
from troth.prompts import claims as P
from troth.values import Verdict

SecondFn = Callable[[StepContext, list[str], list[str]], Awaitable[list[Verdict]]]


class CascadeVerdicts:
    """Pair verdicts, with uncertain claims sent to ``second`` (judged by ``second_verdicts``)."""

    def __init__(self, second: Judge, second_verdicts: SecondFn, band: tuple[float, float]) -> None:
        self.second, self.second_verdicts, self.band = second, second_verdicts, band

    async def __call__(self, ctx: StepContext, context: list[str], claims: list[str]) -> list[Verdict]:
        first_id = ctx.judge.model_id if ctx.judge else "verifier"
        threshold = ctx.judge.yes_threshold if ctx.judge else 0.5
        scored = await classify_claims(ctx, context, claims)
        verdicts = [_decided(to_verdict(s, decide(s, threshold)), first_id) for s in scored]
        low, high = self.band
        unsure = [i for i, s in enumerate(scored) if low <= s.probability("supported") < high]
        if not unsure:
            return verdicts
        stage = ctx.stage("second_opinion", self.second)
        again = await self.second_verdicts(stage, context, [claims[i] for i in unsure])
        for i, verdict in zip(unsure, again, strict=True):
            verdicts[i] = _decided(verdict, self.second.model_id)
        ctx.note(P.CASCADE_NOTE.format(n=len(unsure), total=len(claims), judge=self.second.model_id))
        return verdicts


def _decided(verdict: Verdict, by: str) -> Verdict:
    return replace(verdict, decided_by=by)
