"""The hallucination scorer: the share of claims the context contradicts or does not state.

Lower is better. It shares extraction and verdicts with faithfulness; only the formula and the
reason differ.
"""

from __future__ import annotations

from typing import Any, Literal

from troth.judges.judge import Judge
from troth.prompts import hallucination as H
from troth.scorers import claims as C
from troth.scorers.base import Scorer, StepContext, resolve_judge
from troth.scorers.faithfulness import REASON_MAX_TOKENS, claim_scorer_base, resolve_reason_mode

REASON_LABELS = (("no", "Contradicted"), ("unsure", "Not in the context"), ("yes", "Supported"))


def make_score(scale: float) -> Any:
    def score(ctx: StepContext) -> float:
        """Score step: (no + unsure) / total * scale, rounded to 2 decimals; 0 without claims."""
        verdicts = (ctx.results.analyze or {}).get("verdicts", [])
        if not verdicts:
            return 0.0
        return round(C.count(verdicts, "no", "unsure") / len(verdicts) * scale, 2)

    return score


def make_reason(scale: float, mode: str) -> Any:
    async def reason(ctx: StepContext) -> str:
        """Reason step: names the contradicted and ungrounded claims."""
        verdicts = (ctx.results.analyze or {}).get("verdicts", [])
        score = ctx.results.score or 0.0
        if not verdicts:
            return H.NO_CLAIMS_REASON
        if not ctx.run.context:
            return H.NO_CONTEXT_REASON.format(scale=scale, n=len(verdicts))
        if mode == "template":
            text = C.template_reason(score, scale, verdicts, H.TEMPLATE_HEADLINE, REASON_LABELS)
        else:
            answer = await ctx.ask(
                H.reason_prompt(score, scale, verdicts),
                H.ScoreReason,
                system=H.REASON_SYSTEM,
                max_tokens=REASON_MAX_TOKENS,
            )
            text = answer.reason.strip()
        return text + C.reason_notes(ctx, verdicts)

    return reason


def create_hallucination_scorer(
    model: str | Judge = "local",
    *,
    context: list[str] | str | None = None,
    get_context: C.GetContext | None = None,
    scale: float = 1,
    reason: Literal["auto", "judge", "template"] = "auto",
    batch_size: int = C.DEFAULT_BATCH_SIZE,
    max_context_chars: int = C.DEFAULT_MAX_CONTEXT_CHARS,
    sentence_fallback: bool | None = None,
) -> Scorer:
    """Hallucination: (contradicted + unstated claims) / all claims * ``scale``; lower is better.

    Context as for faithfulness (run, ``get_context(run)``, ``context=``, tool-call results).
    With no context at all every claim is ungrounded: the score is ``scale`` and the reason
    says no context was found.
    """
    judge = resolve_judge(model)
    scale_value = C.validate_scale(scale)
    mode = resolve_reason_mode(reason, judge)
    base = claim_scorer_base(
        id="hallucination",
        description="Share of the output's claims that the context contradicts or does not state.",
        prompt_version=H.VERSION,
        judge=judge,
        context=context,
        get_context=get_context,
        batch_size=batch_size,
        max_context_chars=max_context_chars,
        sentence_fallback=sentence_fallback,
    )
    return (
        base.analyze(C.make_context_verdicts(batch_size))
        .generate_score(make_score(scale_value))
        .generate_reason(make_reason(scale_value, mode))
    )
