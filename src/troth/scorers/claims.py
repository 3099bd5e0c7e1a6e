"""Steps shared by the claim-based scorers (faithfulness, hallucination, answer relevancy):
claim extraction and verdicts against the context, each done the way the judge's strategy
(:mod:`troth.judges.strategies`) says; the scorer never asks which backend runs.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from troth.errors import ConfigError, JudgeOutputError, JudgeTruncatedError
from troth.injection import judge_instructions
from troth.judges.judge import Judge
from troth.judges.strategies import ClaimStrategy, strategy_for
from troth.judges.strategies.batched import DEFAULT_BATCH_SIZE
from troth.prompts import claims as P
from troth.scorers.base import Scorer, StepContext, create_scorer, resolve_judge
from troth.scorers.inputs import (
    DEFAULT_MAX_CONTEXT_CHARS,
    DEFAULT_MAX_OUTPUT_CHARS,
    GetContext,
    check_context_size,
    make_prepare,
    validate_context,
    validate_positive_int,
    validate_scale,
)
from troth.scorers.reasons import ReasonMode, check_reason_mode, make_context_reason, make_share_score
from troth.sentences import split_claims, split_sentences
from troth.types import Verdict, Verdicts

log = logging.getLogger(__name__)

__all__ = ["DEFAULT_BATCH_SIZE", "DEFAULT_MAX_CONTEXT_CHARS", "DEFAULT_MAX_OUTPUT_CHARS", "GetContext",
           "create_context_claim_scorer"]  # fmt: skip


def strategy(ctx: StepContext, batch_size: int = DEFAULT_BATCH_SIZE) -> ClaimStrategy:
    """The claim strategy of the step's judge."""
    if ctx.judge is None:
        raise ConfigError(f"step {ctx.step!r} needs a judge, but the scorer has none")
    return strategy_for(ctx.judge, batch_size)


def make_extract(
    sentence_fallback: bool | None, no_claims_note: str = P.NO_CLAIMS_FOUND_NOTE
) -> Callable[[StepContext], Awaitable[list[str]]]:
    """Preprocess step: the output's atomic claims (no judge call for an empty output).

    The judge's answer is cached on it, so scorers sharing a judge extract once per output. A
    strategy without extraction takes the output's sentences (coordinated clauses split); with
    a sentence fallback (the strategy's default when ``sentence_fallback`` is None), a failed
    extraction falls back to one claim per sentence.
    """

    async def extract_claims(ctx: StepContext) -> list[str]:
        text = ctx.run.output
        if not text.strip():
            return []
        plan = strategy(ctx)
        if not plan.extract_with_judge:
            return _unique(split_claims(text))
        try:
            answer = await ctx.ask(
                P.extract_prompt(text, ctx.run.input), P.ExtractedClaims, system=P.EXTRACT_SYSTEM, cache=True,
                max_tokens=plan.extract_budget(text, ctx.judge.max_tokens if ctx.judge else 0),
            )  # fmt: skip
            raw = answer.claims
            if not _unique(raw):
                ctx.note(no_claims_note)
                raw = split_claims(text)
        except (JudgeOutputError, JudgeTruncatedError) as exc:
            if not (plan.sentence_fallback if sentence_fallback is None else sentence_fallback):
                raise
            log.warning("claim extraction failed (%s); splitting the output into sentences instead", exc)
            ctx.note(P.SENTENCE_FALLBACK_NOTE)
            raw = split_sentences(text)
        return _unique(raw)

    return extract_claims


def _unique(raw: list[str]) -> list[str]:
    claims: list[str] = []
    for claim in (c.strip() for c in raw):
        if claim and claim not in claims:
            claims.append(claim)
    return claims


def make_context_verdicts(batch_size: int, require_evidence: bool) -> Callable[[StepContext], Awaitable[Verdicts]]:
    """Analyze step: one verdict per claim against the context, as the judge's strategy gives it.

    With ``require_evidence``, a supported verdict whose quote is missing or not in the context
    (``Verdict.unquoted``) counts as unsure; either way the reason names those claims.
    """

    async def analyze(ctx: StepContext) -> Verdicts:
        claims: list[str] = ctx.results.preprocess or []
        context: list[str] = ctx.run.context or []
        if not claims:
            return Verdicts([])
        if not context:
            return Verdicts([Verdict(c, "unsure", P.NO_CONTEXT_VERDICT_REASON) for c in claims])
        flag_instructions(ctx, context)
        verdicts = await strategy(ctx, batch_size).verdicts(ctx, context, claims)
        return Verdicts([demote(v) if require_evidence and v.unquoted else v for v in verdicts])

    return analyze


def flag_instructions(ctx: StepContext, context: list[str]) -> None:
    """Flag (and note in the reason) an output or context that carries instructions to the judge."""
    for where, texts in (("output", [ctx.run.output]), ("context", context)):
        found = judge_instructions(texts)
        if found:
            ctx.flag(f"instructions-in-{where}")
            ctx.note(P.INSTRUCTIONS_NOTE.format(where=where, quote=found[0][:80]))


def demote(verdict: Verdict) -> Verdict:
    """A supported verdict without a quote found in the context, counted as unsure."""
    return replace(verdict, verdict="unsure", reason=P.UNQUOTED_SUPPORT_REASON + verdict.reason)


def reason_mode(mode: ReasonMode) -> Callable[[StepContext], str]:
    """``auto`` is what the judge's strategy prefers (a template when no LLM writes reasons well)."""
    return lambda ctx: strategy(ctx).reason if mode == "auto" else mode


def claim_scorer_base(
    *,
    id: str,
    description: str,
    prompt_version: str,
    judge: Judge | None,
    context: list[str] | str | None,
    get_context: GetContext | None,
    batch_size: int,
    max_context_chars: int,
    sentence_fallback: bool | None,
    require_input: bool = False,
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
    no_claims_note: str = P.NO_CLAIMS_FOUND_NOTE,
) -> Scorer:
    """A scorer with the shared run preparation and claim extraction; callers add the rest."""
    static_context = validate_context(context)
    validate_positive_int(batch_size, "batch_size")
    validate_positive_int(max_context_chars, "max_context_chars")
    validate_positive_int(max_output_chars, "max_output_chars")
    if static_context is not None:
        check_context_size(static_context, max_context_chars)
    if get_context is not None and not callable(get_context):
        raise TypeError("get_context must be a function of the run")
    base = create_scorer(id=id, description=description, judge=judge, version="1", prompt_version=prompt_version)
    return replace(
        base.preprocess(make_extract(sentence_fallback, no_claims_note)),
        prepare=make_prepare(static_context, max_context_chars, get_context, require_input, max_output_chars),
    )


def create_context_claim_scorer(
    *,
    id: str,
    description: str,
    prompts: Any,
    score_labels: tuple[str, ...],
    reason_labels: tuple[tuple[str, str], ...],
    model: str | Judge,
    context: list[str] | str | None,
    get_context: GetContext | None,
    scale: float,
    reason: str,
    batch_size: int,
    max_context_chars: int,
    sentence_fallback: bool | None,
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
    require_evidence: bool = False,
) -> Scorer:
    """A scorer whose score is the share of claims with given verdicts against the context."""
    judge = resolve_judge(model)
    scale_value = validate_scale(scale)
    mode = reason_mode(check_reason_mode(reason))
    base = claim_scorer_base(
        id=id,
        description=description,
        prompt_version=prompts.VERSION,
        judge=judge,
        context=context,
        get_context=get_context,
        batch_size=batch_size,
        max_context_chars=max_context_chars,
        sentence_fallback=sentence_fallback,
        max_output_chars=max_output_chars,
    )
    if not isinstance(require_evidence, bool):
        raise TypeError(f"require_evidence must be True or False, not {require_evidence!r}")
    return (
        base.analyze(make_context_verdicts(batch_size, require_evidence))
        .generate_score(make_share_score(scale_value, score_labels))
        .generate_reason(make_context_reason(prompts, scale_value, mode, reason_labels))
    )
