"""Verdicts in JSON batches, each with a reason and an evidence quote located in the context
(HTTP judges). Verdicts are matched to claims by id; a claim left without one is asked again."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from troth.errors import JudgeOutputError, JudgeTruncatedError
from troth.judges.parsing import OutputCheckError
from troth.judges.session import StepContext
from troth.prompts import claims as P
from troth.text.evidence import locate
from troth.values import Evidence, Verdict

MISSING_VERDICT_ROUNDS = 2
DEFAULT_BATCH_SIZE = 16


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


async def judge_in_batches(ctx: StepContext, items: list[str], batch_size: int, ask: AskBatch) -> list[tuple[str, Any]]:
    """``(item, verdict)`` in order, asking ``ask(ctx, [(id, item), ...])`` in batches of
    ``batch_size``; the answer's ``verdicts`` are matched to items by ``claim_id``."""
    ids = [(f"c{i + 1}", item) for i, item in enumerate(items)]
    batches = [ids[i : i + batch_size] for i in range(0, len(ids), batch_size)]
    found: dict[str, Any] = {}
    for part in await asyncio.gather(*(_by_id(ctx, b, ask) for b in batches)):
        found.update(part)
    return [(item, found[cid]) for cid, item in ids]


async def _by_id(ctx: StepContext, batch: list[tuple[str, str]], ask: AskBatch) -> dict[str, Any]:
    """Verdicts keyed by id; items left without one are asked again (bounded); a batch cut off by
    the token limit is split in halves."""
    found: dict[str, Any] = {}
    pending = list(batch)
    for _ in range(MISSING_VERDICT_ROUNDS + 1):
        try:
            answer = await ask(ctx, pending)
        except JudgeTruncatedError:
            if len(pending) == 1:
                raise
            half = len(pending) // 2
            parts = await asyncio.gather(_by_id(ctx, pending[:half], ask), _by_id(ctx, pending[half:], ask))
            return found | parts[0] | parts[1]
        for v in answer.verdicts:
            found[v.claim_id.strip().strip("[]")] = v
        pending = [(cid, item) for cid, item in pending if cid not in found]
        if not pending:
            return found
    raise JudgeOutputError(
        f"no verdict for claim(s) {', '.join(cid for cid, _ in pending)} after {MISSING_VERDICT_ROUNDS + 1} requests",
        step=ctx.step,
        model=ctx.judge.model_id if ctx.judge else None,
    )


class BatchedVerdicts:
    """Claims judged ``batch_size`` at a time against the whole context."""

    def __init__(self, batch_size: int = DEFAULT_BATCH_SIZE) -> None:
        self.batch_size = batch_size

    async def __call__(self, ctx: StepContext, context: list[str], claims: list[str]) -> list[Verdict]:
        async def ask(ctx: StepContext, batch: list[tuple[str, str]]) -> Any:
            return await _ask(ctx, context, batch)

        pairs = await judge_in_batches(ctx, claims, self.batch_size, ask)
        return [_verdict(claim, v.verdict, v.reason, locate(v.evidence, context)) for claim, v in pairs]


def _verdict(claim: str, label: Any, reason: str, evidence: Evidence | None) -> Verdict:
    """A verdict, flagged ``unquoted`` when it says supported without a quote found in the context."""
    unquoted = label == "yes" and (evidence is None or not evidence.verified)
    return Verdict(claim, label, reason, evidence, unquoted=unquoted)


async def _ask(ctx: StepContext, context: list[str], batch: list[tuple[str, str]]) -> Any:
    """One verdict request: the batch's claims against the context."""
    return await ctx.ask(
        P.analyze_prompt(context, batch),
        P.verdicts_schema(tuple(cid for cid, _ in batch)),
        system=P.ANALYZE_SYSTEM,
        check=id_checker({cid for cid, _ in batch}),
    )
