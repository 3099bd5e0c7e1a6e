"""Steps shared by the claim-based scorers (faithfulness, hallucination, answer relevancy).

Run preparation (argument checks, answer text, context resolution), claim extraction (cached
per output and judge, so several scorers sharing a judge extract once), and verdicts against
the context in batches matched by claim id.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from troth.errors import ContextTooLongError, JudgeOutputError, JudgeTruncatedError
from troth.evidence import locate
from troth.judges.judge import Judge, OutputCheckError
from troth.prompts import claims as P
from troth.retrieval import select_sentences
from troth.scorers.base import Scorer, StepContext, create_scorer, resolve_judge
from troth.scorers.context import assistant_text, is_messages, tool_results, user_text
from troth.sentences import split_sentences
from troth.types import ScorerRun

log = logging.getLogger(__name__)

DEFAULT_MAX_CONTEXT_CHARS = 1_000_000
DEFAULT_BATCH_SIZE = 16
MISSING_VERDICT_ROUNDS = 2

GetContext = Callable[[ScorerRun], "list[str] | Awaitable[list[str] | None] | None"]


def validate_scale(scale: object) -> float:
    """``scale`` must be a positive finite number."""
    if isinstance(scale, bool) or not isinstance(scale, (int, float)):
        raise TypeError(f"scale must be a number, not {type(scale).__name__}")
    if not math.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale must be > 0, not {scale!r}")
    return float(scale)


def validate_positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, not {value!r}")
    return value


def validate_context(context: object, name: str = "context") -> list[str] | None:
    """None, a string (one segment) or a list of strings; anything else is a TypeError naming it."""
    if context is None:
        return None
    if isinstance(context, str):
        return [context]
    if not isinstance(context, (list, tuple)):
        raise TypeError(f"{name} must be a list of strings, not {type(context).__name__}")
    for i, segment in enumerate(context):
        if not isinstance(segment, str):
            raise TypeError(f"{name}[{i}] must be a string, not {type(segment).__name__}")
    return list(context)


def text_input(value: object) -> str:
    """The question as text (a string, or the last user message of a transcript)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if is_messages(value):
        return user_text(value)  # type: ignore[arg-type]
    raise TypeError(f"input must be a string or a list of chat messages, not {type(value).__name__}")


def check_context_size(context: list[str], max_context_chars: int) -> None:
    total = sum(len(c) for c in context)
    if total > max_context_chars:
        raise ContextTooLongError(
            f"context is {total:,} characters, over the limit of {max_context_chars:,}; "
            "raise max_context_chars or pass fewer context segments"
        )


def make_prepare(
    static_context: list[str] | None,
    max_context_chars: int,
    get_context: GetContext | None = None,
    require_input: bool = False,
) -> Callable[[ScorerRun], Awaitable[ScorerRun]]:
    """Check types; resolve the answer text and the context.

    Context, first found: the run's ``context``, ``get_context(run)``, the scorer's
    ``context``, the tool-call results of a transcript output.
    """

    async def prepare(run: ScorerRun) -> ScorerRun:
        output = run.output
        if isinstance(output, str):
            text, transcript = output, None
        elif is_messages(output):
            text, transcript = assistant_text(output), output
        elif output is None:
            raise TypeError("output is required: a string or a list of chat messages")
        else:
            raise TypeError(f"output must be a string or a list of chat messages, not {type(output).__name__}")
        question = text_input(run.input)
        if require_input and not question.strip():
            raise ValueError("input is required: the question that the output answers")
        context = validate_context(run.context)
        if context is None and get_context is not None:
            got = get_context(run)
            context = validate_context(await got if isinstance(got, Awaitable) else got, "get_context(run)")
        if context is None:
            context = static_context
        if context is None and transcript is not None:
            context = tool_results(transcript)
        context = [c for c in (context or []) if c.strip()]
        check_context_size(context, max_context_chars)
        return replace(run, input=question, output=text, context=context)

    return prepare


LOCAL_EXTRACT_BASE_TOKENS = 96


def local_extract_budget(text: str, ceiling: int) -> int:
    """Tokens for a local extraction: about twice the output's own (claims restate it, in JSON).

    A small model that starts looping then stops in seconds, and the sentence fallback takes over.
    """
    return min(ceiling, LOCAL_EXTRACT_BASE_TOKENS + len(text) // 2)


def make_extract(sentence_fallback: bool) -> Callable[[StepContext], Awaitable[list[str]]]:
    """Preprocess step: the output's atomic claims (no judge call for an empty output).

    The answer is cached on the judge, so scorers sharing a judge extract once per output.
    With ``sentence_fallback``, a failed extraction falls back to one claim per sentence.
    """

    async def extract_claims(ctx: StepContext) -> list[str]:
        text = ctx.run.output
        if not text.strip():
            return []
        budget = local_extract_budget(text, ctx.judge.max_tokens) if ctx.judge and ctx.judge.is_local else None
        try:
            answer = await ctx.ask(
                P.extract_prompt(text, ctx.run.input),
                P.ExtractedClaims,
                system=P.EXTRACT_SYSTEM,
                cache=True,
                max_tokens=budget,
            )
            raw = answer.claims
        except (JudgeOutputError, JudgeTruncatedError) as exc:
            if not sentence_fallback:
                raise
            log.warning("claim extraction failed (%s); splitting the output into sentences instead", exc)
            ctx.results.notes.append(P.SENTENCE_FALLBACK_NOTE)
            raw = split_sentences(text)
        claims: list[str] = []
        for claim in (c.strip() for c in raw):
            if claim and claim not in claims:
                claims.append(claim)
        return claims

    return extract_claims


def id_checker(expected: set[str]) -> Callable[[Any], None]:
    """A ``check`` for verdict answers: no unknown or repeated ids, at least one verdict."""

    def check(answer: Any) -> None:
        seen: set[str] = set()
        for v in answer.verdicts:
            cid = v.claim_id.strip().strip("[]")
            if cid not in expected:
                raise OutputCheckError(f"unknown claim_id {v.claim_id!r}; valid ids are {', '.join(sorted(expected))}")
            if cid in seen:
                raise OutputCheckError(f"claim_id {cid!r} has more than one verdict; give exactly one")
            seen.add(cid)
        if not seen:
            raise OutputCheckError(f"no verdicts were given; expected {len(expected)}")

    return check


AskBatch = Callable[[StepContext, list[tuple[str, str]]], Awaitable[Any]]


async def verdicts_by_id(ctx: StepContext, batch: list[tuple[str, str]], ask: AskBatch) -> dict[str, Any]:
    """Verdicts for ``(claim_id, claim)`` pairs, keyed by id.

    Claims left without a verdict are asked again (bounded); a batch cut off by the token
    limit is split in halves.
    """
    found: dict[str, Any] = {}
    pending = list(batch)
    for _ in range(MISSING_VERDICT_ROUNDS + 1):
        try:
            answer = await ask(ctx, pending)
        except JudgeTruncatedError:
            if len(pending) == 1:
                raise
            half = len(pending) // 2
            for part in await asyncio.gather(
                verdicts_by_id(ctx, pending[:half], ask), verdicts_by_id(ctx, pending[half:], ask)
            ):
                found.update(part)
            return found
        for v in answer.verdicts:
            found[v.claim_id.strip().strip("[]")] = v
        pending = [(cid, claim) for cid, claim in pending if cid not in found]
        if not pending:
            return found
    raise JudgeOutputError(
        f"no verdict for claim(s) {', '.join(cid for cid, _ in pending)} after {MISSING_VERDICT_ROUNDS + 1} requests",
        step=ctx.step,
        model=ctx.judge.model_id if ctx.judge else None,
    )


async def judge_in_batches(
    ctx: StepContext, claims: list[str], batch_size: int, ask: AskBatch
) -> list[tuple[str, Any]]:
    """``(claim, verdict)`` in claim order, asking in batches of ``batch_size``."""
    ids = [(f"c{i + 1}", claim) for i, claim in enumerate(claims)]
    batches = [ids[i : i + batch_size] for i in range(0, len(ids), batch_size)]
    found: dict[str, Any] = {}
    for part in await asyncio.gather(*(verdicts_by_id(ctx, b, ask) for b in batches)):
        found.update(part)
    return [(claim, found[cid]) for cid, claim in ids]


async def ask_against_context(ctx: StepContext, batch: list[tuple[str, str]]) -> Any:
    """One verdict request: the batch's claims against the run's context."""
    schema = P.verdicts_schema(tuple(cid for cid, _ in batch))
    return await ctx.ask(
        P.analyze_prompt(ctx.run.context or [], batch),
        schema,
        system=P.ANALYZE_SYSTEM,
        check=id_checker({cid for cid, _ in batch}),
    )


async def single_verdict(ctx: StepContext, context: list[str], claim: str) -> dict[str, Any]:
    """One claim, one request, a one-word verdict: the local judge's way (no quote, no reason).

    When the judge reads answer probabilities, the verdict is decided from them: "yes" when
    P(yes) reaches the judge's calibrated ``yes_threshold``, else the likelier of "no" and
    "unsure"; the probabilities are kept on the verdict.
    """
    prompt = P.single_verdict_prompt(context, claim)
    probabilities: dict[str, float] | None = None
    if ctx.judge is not None and ctx.judge.can_choose:
        choice = await ctx.choose(prompt, P.SINGLE_VERDICT_CHOICES, system=P.SINGLE_VERDICT_SYSTEM)
        probabilities = {k: round(v, 4) for k, v in choice.probabilities.items()}
        verdict = decide(choice.probabilities, ctx.judge.yes_threshold)
    else:
        answer = await ctx.ask(prompt, P.SingleVerdict, system=P.SINGLE_VERDICT_SYSTEM, max_tokens=16)
        verdict = answer.verdict
    out: dict[str, Any] = {
        "claim": claim,
        "verdict": verdict,
        "reason": P.SINGLE_VERDICT_REASON[verdict],
        "evidence": None,
    }
    if probabilities is not None:
        out["probabilities"] = probabilities
    return out


LOCAL_RESERVED_TOKENS = 512
"""Tokens of a local verdict request kept for the instructions, the claim and the answer."""

CHARS_PER_TOKEN = 2.5
"""A conservative estimate (English prose averages about 4), so that a context judged to fit does fit."""


async def local_verdicts(ctx: StepContext, context: list[str], claims: list[str]) -> list[dict[str, Any]]:
    """One request per claim against the whole context or, when that would not fit the model's
    window, against the claim's most relevant sentences (flagged ``retrieved`` and noted in the reason)."""
    window = ctx.judge.context_window if ctx.judge is not None else None
    budget = int((window - LOCAL_RESERVED_TOKENS) * CHARS_PER_TOKEN) if window else None
    if budget is None or sum(len(c) + 2 for c in context) <= budget:
        return [await single_verdict(ctx, context, claim) for claim in claims]
    ctx.results.notes.append(P.RETRIEVAL_NOTE.format(window=window))
    verdicts = []
    for claim in claims:
        verdict = await single_verdict(ctx, select_sentences(context, claim, budget), claim)
        verdict["retrieved"] = True
        verdicts.append(verdict)
    return verdicts


def decide(probabilities: dict[str, float], yes_threshold: float) -> str:
    """ "yes" when P(yes) >= ``yes_threshold``; otherwise the likelier of "no" and "unsure"."""
    if probabilities["yes"] >= yes_threshold:
        return "yes"
    return "no" if probabilities["no"] >= probabilities["unsure"] else "unsure"


def make_context_verdicts(batch_size: int) -> Callable[[StepContext], Awaitable[dict[str, list[dict[str, Any]]]]]:
    """Analyze step: one verdict per claim against the context, with located evidence."""

    async def analyze(ctx: StepContext) -> dict[str, list[dict[str, Any]]]:
        claims: list[str] = ctx.results.preprocess or []
        context: list[str] = ctx.run.context or []
        if not claims:
            return {"verdicts": []}
        if not context:
            return {
                "verdicts": [
                    {"claim": c, "verdict": "unsure", "reason": P.NO_CONTEXT_VERDICT_REASON, "evidence": None}
                    for c in claims
                ]
            }
        if ctx.judge is not None and ctx.judge.is_local:
            return {"verdicts": await local_verdicts(ctx, context, claims)}
        verdicts = []
        for claim, v in await judge_in_batches(ctx, claims, batch_size, ask_against_context):
            evidence = locate(v.evidence, context)
            verdicts.append(
                {
                    "claim": claim,
                    "verdict": v.verdict,
                    "reason": v.reason,
                    "evidence": evidence.to_dict() if evidence else None,
                }
            )
        return {"verdicts": verdicts}

    return analyze


def count(verdicts: list[dict[str, Any]], *labels: str) -> int:
    return sum(1 for v in verdicts if v["verdict"] in labels)


def template_reason(
    score: float, scale: float, verdicts: list[dict[str, Any]], headline: str, labels: tuple[tuple[str, str], ...]
) -> str:
    """A reason written by code: the headline, then the claims grouped by verdict."""
    parts = [headline.format(score=score, scale=scale, n=len(verdicts), yes=count(verdicts, "yes"))]
    for key, label in labels:
        group = [f'"{v["claim"]}"' for v in verdicts if v["verdict"] == key]
        if group:
            parts.append(f"{label} ({len(group)}): {' '.join(group)}")
    return " ".join(parts)


def reason_notes(ctx: StepContext, verdicts: list[dict[str, Any]]) -> str:
    """Code-written remarks appended to a reason: unverified quotes, extraction fallback."""
    bad = [v["claim"] for v in verdicts if v.get("evidence") and not v["evidence"]["verified"]]
    notes = []
    if bad:
        notes.append(P.UNVERIFIED_EVIDENCE_NOTE + " ".join(f'"{c}"' for c in bad))
    notes.extend(ctx.results.notes)
    return "".join(" " + n for n in notes)


REASON_MAX_TOKENS = 512


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
    get_context: GetContext | None,
    batch_size: int,
    max_context_chars: int,
    sentence_fallback: bool | None,
    require_input: bool = False,
) -> Scorer:
    """A scorer with the shared run preparation and claim extraction; callers add the rest."""
    static_context = validate_context(context)
    validate_positive_int(batch_size, "batch_size")
    validate_positive_int(max_context_chars, "max_context_chars")
    if static_context is not None:
        check_context_size(static_context, max_context_chars)
    if get_context is not None and not callable(get_context):
        raise TypeError("get_context must be a function of the run")
    if sentence_fallback is None:
        sentence_fallback = judge is not None and judge.is_local
    base = create_scorer(id=id, description=description, judge=judge, version="1", prompt_version=prompt_version)
    return replace(
        base.preprocess(make_extract(sentence_fallback)),
        prepare=make_prepare(static_context, max_context_chars, get_context, require_input),
    )


def make_share_score(scale: float, labels: tuple[str, ...]) -> Callable[[StepContext], float]:
    """Score step: share of verdicts with one of ``labels``, times ``scale``, rounded to 2 decimals."""

    def score(ctx: StepContext) -> float:
        verdicts = (ctx.results.analyze or {}).get("verdicts", [])
        if not verdicts:
            return 0.0
        return round(count(verdicts, *labels) / len(verdicts) * scale, 2)

    return score


def make_context_reason(
    prompts: Any, scale: float, mode: str, labels: tuple[tuple[str, str], ...]
) -> Callable[[StepContext], Awaitable[str]]:
    """Reason step of a context-verdict scorer; ``prompts`` is its prompt module.

    No claims and no context get reasons written by code; otherwise the judge explains the
    score (``mode="judge"``) or a template lists the claims by verdict.
    """

    async def reason(ctx: StepContext) -> str:
        verdicts = (ctx.results.analyze or {}).get("verdicts", [])
        score = ctx.results.score or 0.0
        if not verdicts:
            return str(prompts.NO_CLAIMS_REASON)
        if not ctx.run.context:
            return str(prompts.NO_CONTEXT_REASON.format(n=len(verdicts), scale=scale))
        if mode == "template":
            text = template_reason(score, scale, verdicts, prompts.TEMPLATE_HEADLINE, labels)
        else:
            answer = await ctx.ask(
                prompts.reason_prompt(score, scale, verdicts),
                prompts.ScoreReason,
                system=prompts.REASON_SYSTEM,
                max_tokens=REASON_MAX_TOKENS,
            )
            text = answer.reason.strip()
        return text + reason_notes(ctx, verdicts)

    return reason


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
) -> Scorer:
    """A scorer whose score is the share of claims with given verdicts against the context."""
    judge = resolve_judge(model)
    scale_value = validate_scale(scale)
    mode = resolve_reason_mode(reason, judge)
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
    )
    return (
        base.analyze(make_context_verdicts(batch_size))
        .generate_score(make_share_score(scale_value, score_labels))
        .generate_reason(make_context_reason(prompts, scale_value, mode, reason_labels))
    )
