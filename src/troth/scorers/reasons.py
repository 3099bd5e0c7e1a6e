"""Score and reason steps of the claim scorers: shares of verdicts, and reasons written by code
(a template listing the claims by verdict) or by the judge."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from troth.prompts import claims as P
from troth.scorers.base import StepContext
from troth.values import Verdict

REASON_MAX_TOKENS = 512
ReasonMode = Literal["auto", "judge", "template"]


def verdict_list(ctx: StepContext) -> list[Verdict]:
    """The analyze step's verdicts (none when it found no claims)."""
    analyze = ctx.results.analyze
    return list(analyze.verdicts) if analyze is not None else []


def count(verdicts: Sequence[Verdict], *labels: str) -> int:
    return sum(1 for v in verdicts if v.verdict in labels)


def check_reason_mode(reason: object) -> ReasonMode:
    if reason not in ("auto", "judge", "template"):
        raise ValueError(f"reason must be 'auto', 'judge' or 'template', not {reason!r}")
    return reason


def template_reason(
    score: float, scale: float, verdicts: Sequence[Verdict], headline: str, labels: tuple[tuple[str, str], ...]
) -> str:
    """A reason written by code: the headline, then the claims grouped by verdict."""
    parts = [headline.format(score=score, scale=scale, n=len(verdicts), yes=count(verdicts, "yes"))]
    for key, label in labels:
        group = [f'"{v.claim}"' for v in verdicts if v.verdict == key]
        if group:
            parts.append(f"{label} ({len(group)}): {' '.join(group)}")
    return " ".join(parts)


def reason_notes(ctx: StepContext, verdicts: Sequence[Verdict]) -> str:
    """Code-written remarks appended to a reason: unverified quotes, retrieval, extraction fallback."""
    unquoted = [v.claim for v in verdicts if v.unquoted]
    bad = [v.claim for v in verdicts if v.evidence is not None and not v.evidence.verified and v.claim not in unquoted]
    notes = []
    if unquoted:
        notes.append(P.UNQUOTED_SUPPORT_NOTE + " ".join(f'"{c}"' for c in unquoted))
    if bad:
        notes.append(P.UNVERIFIED_EVIDENCE_NOTE + " ".join(f'"{c}"' for c in bad))
    notes.extend(ctx.results.notes)
    return "".join(" " + n for n in notes)


def make_share_score(scale: float, labels: tuple[str, ...]) -> Callable[[StepContext], float]:
    """Score step: share of verdicts with one of ``labels``, times ``scale``, rounded to 2 decimals."""

    def score(ctx: StepContext) -> float:
        verdicts = verdict_list(ctx)
        if not verdicts:
            return 0.0
        return round(count(verdicts, *labels) / len(verdicts) * scale, 2)

    return score


def make_context_reason(
    prompts: Any, scale: float, mode: Callable[[StepContext], str], labels: tuple[tuple[str, str], ...]
) -> Callable[[StepContext], Awaitable[str]]:
    """Reason step of a context-verdict scorer; ``prompts`` is its prompt module.

    No claims and no context get reasons written by code; otherwise the judge explains the
    score (``mode(ctx) == "judge"``) or a template lists the claims by verdict.
    """

    async def reason(ctx: StepContext) -> str:
        verdicts = verdict_list(ctx)
        score = ctx.results.score or 0.0
        if not verdicts:
            return str(prompts.NO_CLAIMS_REASON)
        if not ctx.run.context:
            return str(prompts.NO_CONTEXT_REASON.format(n=len(verdicts), scale=scale))
        if mode(ctx) == "template":
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
