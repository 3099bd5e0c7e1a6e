"""The answer-relevancy scorer: how much of the output addresses the input question."""

from __future__ import annotations

import math
from typing import Any, Literal

import troth.scorers.claims as C
from troth.judges.judge import Judge
from troth.judges.plans.batched import id_checker, judge_in_batches
from troth.prompts import answer_relevancy as R
from troth.scorers.base import Scorer, StepContext, rebuildable
from troth.scorers.reasons import REASON_MAX_TOKENS, count, template_reason, verdict_list
from troth.values import Verdict, Verdicts

REASON_LABELS = (("no", "Irrelevant"), ("unsure", "Partly relevant"), ("yes", "Relevant"))


def asker(question: str) -> Any:
    async def ask_relevance(ctx: StepContext, batch: list[tuple[str, str]]) -> Any:
        return await ctx.ask(
            R.analyze_prompt(question, batch),
            R.verdicts_schema(tuple(cid for cid, _ in batch)),
            system=R.ANALYZE_SYSTEM,
            check=id_checker({cid for cid, _ in batch}),
        )

    return ask_relevance


def make_analyze(options: C.ClaimOptions) -> Any:
    async def analyze(ctx: StepContext) -> Verdicts:
        """Analyze step: relevance of each statement to the question (an output in which the
        judge found no claims, an abstention say, comes here as its sentences: see extraction)."""
        statements: list[str] = ctx.results.preprocess or []
        if not statements:
            return Verdicts([])
        pairs = await judge_in_batches(ctx, statements, options.batch_size, asker(ctx.run.input))
        return Verdicts([Verdict(s, v.verdict, v.reason) for s, v in pairs])

    return analyze


def make_score(scale: float, weight: float) -> Any:
    def score(ctx: StepContext) -> float:
        """Score step: (yes + weight * unsure) / total * scale, rounded to 2 decimals."""
        verdicts = verdict_list(ctx)
        if not verdicts:
            return 0.0
        return round((count(verdicts, "yes") + weight * count(verdicts, "unsure")) / len(verdicts) * scale, 2)

    return score


def make_reason(scale: float, weight: float, mode: Any) -> Any:
    async def reason(ctx: StepContext) -> str:
        verdicts = verdict_list(ctx)
        score = ctx.results.score or 0.0
        if not verdicts:
            return R.NO_STATEMENTS_REASON
        if mode(ctx) == "template":
            text = template_reason(score, scale, verdicts, R.TEMPLATE_HEADLINE, REASON_LABELS)
        else:
            answer = await ctx.ask(
                R.reason_prompt(score, scale, weight, ctx.run.input, verdicts),
                R.RelevancyReason,
                system=R.REASON_SYSTEM,
                max_tokens=REASON_MAX_TOKENS,
            )
            text = answer.reason.strip()
        return text + "".join(" " + n for n in ctx.results.notes)

    return reason


@rebuildable
def create_answer_relevancy_scorer(
    model: str | Judge = "llm",
    *,
    uncertainty_weight: float = 0.3,
    scale: float = 1,
    reason: Literal["auto", "judge", "template"] = "auto",
    batch_size: int = C.DEFAULT_BATCH_SIZE,
    sentence_fallback: bool | None = None,
) -> Scorer:
    """Answer relevancy: (relevant + ``uncertainty_weight`` * partly relevant) / all statements * ``scale``.

    Needs ``input`` (the question); a run without one raises ValueError. Needs a judge that
    answers prompts: an HTTP judge or the local LLM (``"llm"``, the default); the offline
    verifier only classifies pairs, and a scorer built on it raises ConfigError at once.
    """
    if isinstance(uncertainty_weight, bool) or not isinstance(uncertainty_weight, (int, float)):
        raise TypeError(f"uncertainty_weight must be a number, not {type(uncertainty_weight).__name__}")
    if not math.isfinite(uncertainty_weight) or not 0 <= uncertainty_weight <= 1:
        raise ValueError(f"uncertainty_weight must be between 0 and 1, not {uncertainty_weight!r}")
    options = C.ClaimOptions.check(
        "create_answer_relevancy_scorer",
        model,
        {"scale": scale, "reason": reason, "batch_size": batch_size, "sentence_fallback": sentence_fallback},
        require_input=True,
        strategy="two-step",
    )
    if options.judge is not None:
        options.judge.check_generates("answer-relevancy", "the relevance of each statement")
    base = C.claim_scorer_base(
        id="answer-relevancy",
        description="Share of the output's statements that address the question.",
        prompt_version=R.VERSION,
        options=options,
        no_claims_note=R.NO_STATEMENTS_NOTE,
    )
    return (
        base.analyze(make_analyze(options))
        .generate_score(make_score(options.scale, float(uncertainty_weight)))
        .generate_reason(make_reason(options.scale, float(uncertainty_weight), options.reason_mode))
    )
