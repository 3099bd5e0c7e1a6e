"""Steps shared by the claim-based scorers (faithfulness, hallucination, answer relevancy):
claim extraction and verdicts against the context, each done the way the judge's plan
(:mod:`troth.judges.plans`) says; the scorer never asks which backend runs.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypedDict

from troth._keywords import check_keywords
from troth.errors import ConfigError, JudgeOutputError, JudgeTruncatedError
from troth.judges.judge import Judge
from troth.judges.plans import ClaimPlan, judges_in_one_pass, plan_for, single
from troth.judges.plans.batched import DEFAULT_BATCH_SIZE
from troth.prompts import claims as P
from troth.prompts.single_pass import SAME_CALL
from troth.prompts.single_pass import VERSION as SINGLE_PASS_VERSION
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
from troth.text.chatter import without_chatter, without_lead_in
from troth.text.injection import judge_instructions
from troth.text.sentences import split_claims, split_sentences
from troth.values import Verdict, Verdicts

log = logging.getLogger(__name__)
JudgingStrategy = Literal["auto", "single-pass", "two-step"]
STRATEGIES: tuple[str, ...] = ("auto", "single-pass", "two-step")
SINGLE_PASS_BY_DEFAULT = False
"""What ``strategy="auto"`` means for a judge that writes JSON: two steps, since on the judge
measured (docs/benchmarks.md, "Single pass against two steps") a single pass mostly fell back to two steps and called
the answers it judged itself faithful."""
SINGLE_PASS_FALLBACK = "single-pass-fallback"  # the flag of a result judged in two steps instead

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_MAX_CONTEXT_CHARS",
    "DEFAULT_MAX_OUTPUT_CHARS",
    "ClaimOptions",
    "ContextClaimKind",
    "ContextClaimOptions",
    "GetContext",
    "create_context_claim_scorer",
]


class ContextClaimOptions(TypedDict, total=False):
    """The keyword arguments of the context-claim scorers (faithfulness, hallucination); see
    :func:`~troth.scorers.faithfulness.create_faithfulness_scorer` for what each does."""

    context: list[str] | str | None
    get_context: GetContext | None
    scale: float
    reason: ReasonMode
    batch_size: int
    max_context_chars: int
    sentence_fallback: bool | None
    max_output_chars: int
    require_evidence: bool
    strategy: JudgingStrategy


@dataclass(frozen=True)
class ClaimOptions:
    """A claim scorer's settings, checked once and passed down whole (:meth:`check`)."""

    judge: Judge | None
    context: list[str] | None = None
    get_context: GetContext | None = None
    scale: float = 1.0
    reason: ReasonMode = "auto"
    batch_size: int = DEFAULT_BATCH_SIZE
    max_context_chars: int = DEFAULT_MAX_CONTEXT_CHARS
    sentence_fallback: bool | None = None
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS
    require_evidence: bool = False
    require_input: bool = False
    strategy: JudgingStrategy = "auto"
    plans: dict[int, ClaimPlan] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def check(cls, factory: str, model: str | Judge | None, options: Mapping[str, Any], **fixed: Any) -> ClaimOptions:
        """The options given to ``factory``, checked (TypeError/ValueError naming the bad one)."""
        check_keywords(factory, options, ContextClaimOptions)
        checked = cls(resolve_judge(model), **{**options, **fixed})
        checked._validate()
        return replace(checked, context=validate_context(options.get("context")), scale=validate_scale(checked.scale))

    def _validate(self) -> None:
        check_reason_mode(self.reason)
        for name in ("batch_size", "max_context_chars", "max_output_chars"):
            validate_positive_int(getattr(self, name), name)
        if self.get_context is not None and not callable(self.get_context):
            raise TypeError("get_context must be a function of the run")
        if not isinstance(self.require_evidence, bool):
            raise TypeError(f"require_evidence must be True or False, not {self.require_evidence!r}")
        if self.strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {', '.join(map(repr, STRATEGIES))}, not {self.strategy!r}")

    def plan(self, ctx: StepContext) -> ClaimPlan:
        """The claim plan of the step's judge, chosen once per judge."""
        if ctx.judge is None:
            raise ConfigError(f"step {ctx.step!r} needs a judge, but the scorer has none")
        found = self.plans.get(id(ctx.judge))
        if found is None:
            found = self.plans[id(ctx.judge)] = plan_for(ctx.judge, self.batch_size, self.single_pass_wanted)
        return found

    @property
    def single_pass_wanted(self) -> bool:
        """Single pass asked for, or ``auto`` where it is the default."""
        return self.strategy == "single-pass" or (self.strategy == "auto" and SINGLE_PASS_BY_DEFAULT)

    def reason_mode(self, ctx: StepContext) -> str:
        """``auto`` (the default) is the template, for every judge: ``reason="judge"`` asks the judge."""
        return "judge" if self.reason == "judge" else "template"


def make_extract(
    options: ClaimOptions, no_claims_note: str = P.NO_CLAIMS_FOUND_NOTE
) -> Callable[[StepContext], Awaitable[list[str]]]:
    """Preprocess step: the output's atomic claims (no judge call for an empty output).

    The judge's answer is cached on it, so scorers sharing a judge extract once per output. A
    plan without extraction takes the output's sentences (coordinated clauses split); with
    a sentence fallback (the plan's default when ``options.sentence_fallback`` is None), a failed
    extraction falls back to one claim per sentence.
    """

    async def extract_claims(ctx: StepContext) -> list[str]:
        text = ctx.run.output
        if not text.strip():
            return []
        plan = options.plan(ctx)
        if not plan.extract_with_judge:
            return sentence_claims(ctx, text)
        if plan.single_pass and await _single_pass(ctx):
            return [v.claim for v in ctx.results.verdicts.verdicts]
        try:
            answer = await ctx.ask(
                P.extract_prompt(text, ctx.run.input),
                P.ExtractedClaims,
                system=P.EXTRACT_SYSTEM,
                cache=True,
                max_tokens=plan.extract_budget(text, ctx.judge.max_tokens if ctx.judge else 0),
            )
            raw = answer.claims
            if not _unique(raw):
                ctx.note(no_claims_note)
                raw = sentence_claims(ctx, text)
        except (JudgeOutputError, JudgeTruncatedError) as exc:
            fallback = options.sentence_fallback
            if not (plan.sentence_fallback if fallback is None else fallback):
                raise
            log.warning("claim extraction failed (%s); splitting the output into sentences instead", exc)
            ctx.note(P.SENTENCE_FALLBACK_NOTE)
            raw = split_sentences(text)
        return _unique(raw)

    return extract_claims


def sentence_claims(ctx: StepContext, text: str) -> list[str]:
    """The output's claims without a model (:func:`troth.text.sentences.split_claims`): lead-ins
    crediting the context taken off, pleasantries left out with a note (:mod:`troth.text.chatter`)."""
    claims, chatter = without_chatter(_unique([without_lead_in(c) for c in split_claims(text)]))
    if chatter:
        ctx.note(P.CHATTER_NOTE.format(sentences=", ".join(f"\u201c{c}\u201d" for c in chatter)))
    return claims


async def _single_pass(ctx: StepContext) -> bool:
    """Claims and verdicts from one request, kept for the analyze step; False when there is no
    context to judge against, and False with the result flagged when the context and answer do
    not fit one request or the judge found no claim: the two steps then run as usual."""
    context = ctx.run.context or []
    if not context:
        return False
    if not single.fits(ctx, context, ctx.run.output):
        ctx.flag(SINGLE_PASS_FALLBACK)
        return False
    verdicts = _unique_verdicts(await single.single_pass(ctx, context, ctx.run.output, ctx.run.input))
    if not verdicts:  # no claim found: extracted again, with the two-step path's fallbacks
        ctx.flag(SINGLE_PASS_FALLBACK)
        return False
    ctx.results.verdicts = Verdicts(verdicts)
    return True


def _unique_verdicts(verdicts: list[Verdict]) -> list[Verdict]:
    found: dict[str, Verdict] = {}
    for v in verdicts:
        found.setdefault(v.claim, v)
    return list(found.values())


def _unique(raw: list[str]) -> list[str]:
    claims: list[str] = []
    for claim in (c.strip() for c in raw):
        if claim and claim not in claims:
            claims.append(claim)
    return claims


def make_context_verdicts(options: ClaimOptions) -> Callable[[StepContext], Awaitable[Verdicts]]:
    """Analyze step: one verdict per claim against the context, as the judge's strategy gives it.

    With ``options.require_evidence``, a supported verdict whose quote is missing or not in the context
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
        given = ctx.results.verdicts
        if isinstance(given, Verdicts) and [v.claim for v in given.verdicts] == claims:
            ctx.prompts.append(SAME_CALL)  # judged with the claims: no second request
            verdicts = list(given.verdicts)
        else:
            verdicts = await options.plan(ctx).verdicts(ctx, context, claims)
        return Verdicts([demote(v) if options.require_evidence and v.unquoted else v for v in verdicts])

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


def claim_scorer_base(
    *,
    id: str,
    description: str,
    prompt_version: str,
    options: ClaimOptions,
    no_claims_note: str = P.NO_CLAIMS_FOUND_NOTE,
) -> Scorer:
    """A scorer with the shared run preparation and claim extraction; callers add the rest."""
    if options.context is not None:
        check_context_size(options.context, options.max_context_chars)
    base = create_scorer(
        id=id, description=description, judge=options.judge, version="1", prompt_version=prompt_version
    )
    prepare = make_prepare(
        options.context, options.max_context_chars, options.get_context, options.require_input, options.max_output_chars
    )
    return replace(base.preprocess(make_extract(options, no_claims_note)), prepare=prepare)


@dataclass(frozen=True)
class ContextClaimKind:
    """What sets one context-claim scorer apart: its id, prompts, and the verdicts it counts."""

    id: str
    description: str
    prompts: Any
    score_labels: tuple[str, ...]
    reason_labels: tuple[tuple[str, str], ...]


def create_context_claim_scorer(kind: ContextClaimKind, model: str | Judge, options: ClaimOptions) -> Scorer:
    """A scorer whose score is the share of claims with ``kind``'s verdicts against the context."""
    version = kind.prompts.VERSION
    if options.judge is not None and judges_in_one_pass(options.judge.declared, options.single_pass_wanted):
        version = version.replace(P.VERSION, SINGLE_PASS_VERSION)
    base = claim_scorer_base(id=kind.id, description=kind.description, prompt_version=version, options=options)
    if options.reason == "judge" and options.judge is not None:
        options.judge.check_generates(kind.id, "reason='judge' (the judge writes the reason)")
    return (
        base.analyze(make_context_verdicts(options))
        .generate_score(make_share_score(options.scale, kind.score_labels))
        .generate_reason(make_context_reason(kind.prompts, options.scale, options.reason_mode, kind.reason_labels))
    )
