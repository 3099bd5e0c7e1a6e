"""The faithfulness scorer: the share of the output's claims that the context supports."""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import replace
from typing import Any, Literal

from troth.errors import ContextTooLongError, JudgeOutputError, JudgeTruncatedError
from troth.evidence import locate
from troth.judges.judge import Judge, OutputCheckError
from troth.prompts import faithfulness as P
from troth.scorers.base import Scorer, StepContext, create_scorer, resolve_judge
from troth.scorers.context import assistant_text, is_messages, tool_results, user_text
from troth.sentences import split_sentences
from troth.types import ScorerRun

log = logging.getLogger(__name__)

DEFAULT_MAX_CONTEXT_CHARS = 1_000_000
DEFAULT_BATCH_SIZE = 16
MISSING_VERDICT_ROUNDS = 2
REASON_MAX_TOKENS = 512


def validate_scale(scale: object) -> float:
    """``scale`` must be a positive finite number."""
    if isinstance(scale, bool) or not isinstance(scale, (int, float)):
        raise TypeError(f"scale must be a number, not {type(scale).__name__}")
    if not math.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale must be > 0, not {scale!r}")
    return float(scale)


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


def prepare_claim_run(run: ScorerRun, static_context: list[str] | None, max_context_chars: int) -> ScorerRun:
    """Check types; resolve the answer text and the context (run > scorer > tool results)."""
    output = run.output
    if isinstance(output, str):
        text, transcript = output, None
    elif is_messages(output):
        text, transcript = assistant_text(output), output
    elif output is None:
        raise TypeError("output is required: a string or a list of chat messages")
    else:
        raise TypeError(f"output must be a string or a list of chat messages, not {type(output).__name__}")
    context = validate_context(run.context)
    if context is None:
        context = static_context
    if context is None and transcript is not None:
        context = tool_results(transcript)
    context = [c for c in (context or []) if c.strip()]
    total = sum(len(c) for c in context)
    if total > max_context_chars:
        raise ContextTooLongError(
            f"context is {total:,} characters, over the limit of {max_context_chars:,}; "
            "raise max_context_chars or pass fewer context segments"
        )
    return replace(run, input=text_input(run.input), output=text, context=context)


def make_extract(sentence_fallback: bool) -> Any:
    async def extract_claims(ctx: StepContext) -> list[str]:
        """Preprocess step: the output's atomic claims (no judge call for an empty output).

        With ``sentence_fallback``, a failed extraction falls back to one claim per sentence.
        """
        text = ctx.run.output
        if not text.strip():
            return []
        try:
            answer = await ctx.ask(P.extract_prompt(text, ctx.run.input), P.ExtractedClaims, system=P.EXTRACT_SYSTEM)
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


def _verdict_checker(expected: set[str]) -> Any:
    def check(answer: P.ClaimVerdicts) -> None:
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


async def _judge_batch(ctx: StepContext, context: list[str], batch: list[tuple[str, str]]) -> dict[str, P.ClaimVerdict]:
    """Verdicts for one batch keyed by claim id; missing ids are asked again; halves on truncation."""
    found: dict[str, P.ClaimVerdict] = {}
    pending = list(batch)
    for _ in range(MISSING_VERDICT_ROUNDS + 1):
        ids = {cid for cid, _ in pending}
        try:
            answer = await ctx.ask(
                P.analyze_prompt(context, pending),
                P.verdicts_schema(tuple(cid for cid, _ in pending)),
                system=P.ANALYZE_SYSTEM,
                check=_verdict_checker(ids),
            )
        except JudgeTruncatedError:
            if len(pending) == 1:
                raise
            half = len(pending) // 2
            parts = await asyncio.gather(
                _judge_batch(ctx, context, pending[:half]), _judge_batch(ctx, context, pending[half:])
            )
            for part in parts:
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


def make_analyze(batch_size: int) -> Any:
    async def analyze(ctx: StepContext) -> dict[str, list[dict[str, Any]]]:
        """Analyze step: one verdict per claim, with located evidence."""
        claims: list[str] = ctx.results.preprocess or []
        context: list[str] = ctx.run.context or []
        if not claims:
            return {"verdicts": []}
        if not context:
            return {
                "verdicts": [
                    {
                        "claim": c,
                        "verdict": "unsure",
                        "reason": "No context was available to check this claim.",
                        "evidence": None,
                    }
                    for c in claims
                ]
            }
        ids = [(f"c{i + 1}", claim) for i, claim in enumerate(claims)]
        batches = [ids[i : i + batch_size] for i in range(0, len(ids), batch_size)]
        found: dict[str, P.ClaimVerdict] = {}
        for part in await asyncio.gather(*(_judge_batch(ctx, context, b) for b in batches)):
            found.update(part)
        verdicts = []
        for cid, claim in ids:
            v = found[cid]
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


def make_score(scale: float) -> Any:
    def score(ctx: StepContext) -> float:
        """Score step: yes / total * scale, rounded to 2 decimals; 0 without claims."""
        verdicts = (ctx.results.analyze or {}).get("verdicts", [])
        if not verdicts:
            return 0.0
        supported = sum(1 for v in verdicts if v["verdict"] == "yes")
        return round(supported / len(verdicts) * scale, 2)

    return score


def template_reason(score: float, scale: float, verdicts: list[dict[str, Any]]) -> str:
    """A reason written by code from the verdicts (no judge call)."""
    groups = {"yes": [], "no": [], "unsure": []}  # type: dict[str, list[str]]
    for v in verdicts:
        groups[v["verdict"]].append(f'"{v["claim"]}"')
    parts = [f"The score is {score:g} out of {scale:g}: {len(groups['yes'])} of {len(verdicts)} claims are supported."]
    labels = (("yes", "Supported"), ("no", "Contradicted"), ("unsure", "Not verifiable from the context"))
    for key, label in labels:
        if groups[key]:
            parts.append(f"{label} ({len(groups[key])}): {' '.join(groups[key])}")
    return " ".join(parts)


def _unverified_note(verdicts: list[dict[str, Any]]) -> str:
    bad = [v["claim"] for v in verdicts if v.get("evidence") and not v["evidence"]["verified"]]
    if not bad:
        return ""
    return " Note: the judge's evidence quote was not found in the context for: " + " ".join(f'"{c}"' for c in bad)


def make_reason(scale: float, mode: str) -> Any:
    async def reason(ctx: StepContext) -> str:
        """Reason step: plain text naming supported, contradicted and unverifiable claims."""
        verdicts = (ctx.results.analyze or {}).get("verdicts", [])
        score = ctx.results.score or 0.0
        if not verdicts:
            return P.NO_CLAIMS_REASON
        if not ctx.run.context:
            return P.NO_CONTEXT_REASON.format(n=len(verdicts))
        if mode == "template":
            text = template_reason(score, scale, verdicts)
        else:
            answer = await ctx.ask(
                P.reason_prompt(score, scale, verdicts),
                P.ScoreReason,
                system=P.REASON_SYSTEM,
                max_tokens=REASON_MAX_TOKENS,
            )
            text = answer.reason.strip()
        return text + _unverified_note(verdicts) + "".join(" " + note for note in ctx.results.notes)

    return reason


def create_faithfulness_scorer(
    model: str | Judge = "local",
    *,
    context: list[str] | str | None = None,
    scale: float = 1,
    reason: Literal["auto", "judge", "template"] = "auto",
    batch_size: int = DEFAULT_BATCH_SIZE,
    max_context_chars: int = DEFAULT_MAX_CONTEXT_CHARS,
    sentence_fallback: bool | None = None,
) -> Scorer:
    """Faithfulness: (claims the context supports / all claims) * ``scale``.

    Context comes from ``context=`` (here or per run), else from the tool-call results in a
    chat-transcript output. ``reason="judge"`` asks the judge to explain the score;
    ``reason="template"`` writes it in code (one judge call fewer); ``"auto"`` (default) uses the
    judge for remote models and the template for the local, CPU-bound one.
    ``sentence_fallback`` splits the output into sentences when claim extraction fails
    (default: on for the local judge, off otherwise); the reason then says so.
    """
    judge = resolve_judge(model)
    scale_value = validate_scale(scale)
    static_context = validate_context(context)
    if reason not in ("auto", "judge", "template"):
        raise ValueError(f"reason must be 'auto', 'judge' or 'template', not {reason!r}")
    is_local = judge is not None and judge.is_local
    if reason == "auto":
        reason = "template" if is_local else "judge"
    if sentence_fallback is None:
        sentence_fallback = is_local
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, not {batch_size!r}")
    if isinstance(max_context_chars, bool) or not isinstance(max_context_chars, int) or max_context_chars < 1:
        raise ValueError(f"max_context_chars must be a positive integer, not {max_context_chars!r}")
    if static_context is not None and sum(map(len, static_context)) > max_context_chars:
        raise ContextTooLongError(f"context is over the limit of {max_context_chars:,} characters")

    base = create_scorer(
        id="faithfulness",
        description="Share of the output's claims that the context supports.",
        judge=judge,
        version="1",
        prompt_version=P.VERSION,
    )
    return replace(
        base.preprocess(make_extract(sentence_fallback))
        .analyze(make_analyze(batch_size))
        .generate_score(make_score(scale_value))
        .generate_reason(make_reason(scale_value, reason)),
        prepare=lambda run: prepare_claim_run(run, static_context, max_context_chars),
    )
