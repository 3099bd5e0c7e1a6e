"""The faithfulness scorer: the share of the output's claims that the context supports."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from troth.judges.judge import Judge
from troth.prompts import faithfulness as F
from troth.scorers import claims as C
from troth.scorers.base import Scorer, StepContext, create_scorer, resolve_judge

REASON_MAX_TOKENS = 512
REASON_LABELS = (("yes", "Supported"), ("no", "Contradicted"), ("unsure", "Not verifiable from the context"))


def make_score(scale: float) -> Any:
    def score(ctx: StepContext) -> float:
        """Score step: yes / total * scale, rounded to 2 decimals; 0 without claims."""
        verdicts = (ctx.results.analyze or {}).get("verdicts", [])
        if not verdicts:
            return 0.0
        return round(C.count(verdicts, "yes") / len(verdicts) * scale, 2)

    return score


def make_reason(scale: float, mode: str) -> Any:
    async def reason(ctx: StepContext) -> str:
        """Reason step: plain text naming supported, contradicted and unverifiable claims."""
        verdicts = (ctx.results.analyze or {}).get("verdicts", [])
        score = ctx.results.score or 0.0
        if not verdicts:
            return F.NO_CLAIMS_REASON
        if not ctx.run.context:
            return F.NO_CONTEXT_REASON.format(n=len(verdicts))
        if mode == "template":
            text = C.template_reason(score, scale, verdicts, F.TEMPLATE_HEADLINE, REASON_LABELS)
        else:
            answer = await ctx.ask(
                F.reason_prompt(score, scale, verdicts),
                F.ScoreReason,
                system=F.REASON_SYSTEM,
                max_tokens=REASON_MAX_TOKENS,
            )
            text = answer.reason.strip()
        return text + C.reason_notes(ctx, verdicts)

    return reason


def resolve_reason_mode(reason: str, judge: Judge | None) -> str:
    """``auto`` is ``template`` for the local judge, ``judge`` otherwise."""
    if reason not in ("auto", "judge", "template"):
        raise ValueError(f"reason must be 'auto', 'judge' or 'template', not {reason!r}")
    if reason == "auto":
        return "template" if judge is not None and judge.is_local else "judge"
    return reason


def claim_scorer_base(
    *,
    id: str,
    description: str,
    prompt_version: str,
    judge: Judge | None,
    context: list[str] | str | None,
    get_context: C.GetContext | None,
    batch_size: int,
    max_context_chars: int,
    sentence_fallback: bool | None,
    require_input: bool = False,
) -> Scorer:
    """A scorer with the shared run preparation and claim extraction; callers add the rest."""
    static_context = C.validate_context(context)
    C.validate_positive_int(batch_size, "batch_size")
    C.validate_positive_int(max_context_chars, "max_context_chars")
    if static_context is not None:
        C.check_context_size(static_context, max_context_chars)
    if get_context is not None and not callable(get_context):
        raise TypeError("get_context must be a function of the run")
    if sentence_fallback is None:
        sentence_fallback = judge is not None and judge.is_local
    base = create_scorer(id=id, description=description, judge=judge, version="1", prompt_version=prompt_version)
    return replace(
        base.preprocess(C.make_extract(sentence_fallback)),
        prepare=C.make_prepare(static_context, max_context_chars, get_context, require_input),
    )


def create_faithfulness_scorer(
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
    """Faithfulness: (claims the context supports / all claims) * ``scale``.

    Context comes from ``context=`` given to the run, ``get_context(run)``, ``context=`` given
    here, else the tool-call results in a chat-transcript output. ``reason="judge"`` asks the
    judge to explain the score; ``"template"`` writes it in code (one judge call fewer);
    ``"auto"`` (default) uses the judge for remote models and the template for the local one.
    ``sentence_fallback`` splits the output into sentences when claim extraction fails
    (default: on for the local judge, off otherwise); the reason then says so.
    """
    judge = resolve_judge(model)
    scale_value = C.validate_scale(scale)
    mode = resolve_reason_mode(reason, judge)
    base = claim_scorer_base(
        id="faithfulness",
        description="Share of the output's claims that the context supports.",
        prompt_version=F.VERSION,
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
