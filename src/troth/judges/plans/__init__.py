"""How claims are extracted and judged, chosen once from a backend's declared capabilities.

A scorer asks for verdicts and gets the best plan the backend can do:

- ``classify_pairs`` (the offline verifier): claims are the output's sentences, each judged by a
  pair classifier over context windows.
- ``choice_probabilities`` (the local LLM): claims extracted by the model within a fixed budget
  (sentences if that fails); one claim per request, decided from P(yes/no/unsure).
- ``classify_pairs`` with a second opinion: the verifier first; claims it is unsure of go to the
  second judge's own plan.
- otherwise (HTTP judges): claims extracted by the model; verdicts in JSON batches with quotes;
  with ``single_pass``: claims and verdicts in one request
  (:mod:`~troth.judges.plans.single`), the batches kept for what does not fit one request.

Every plan's reason is written from a template unless the scorer asks for ``reason="judge"``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from troth.errors import ConfigError
from troth.judges.capabilities import Capabilities
from troth.judges.judge import Judge
from troth.judges.plans.batched import BatchedVerdicts
from troth.judges.plans.cascade import CascadeVerdicts
from troth.judges.plans.choice import ChoiceVerdicts
from troth.judges.plans.pairs import PairVerdicts, classify_claims
from troth.judges.session import StepContext
from troth.values import Verdict

VerdictFn = Callable[[StepContext, list[str], list[str]], Awaitable[list[Verdict]]]
FIXED_EXTRACT_BASE_TOKENS = 96


@dataclass(frozen=True)
class ClaimPlan:
    """What a claim scorer does with one kind of backend.

    ``verdicts(ctx, context, claims)``: one verdict per claim; ``extract_with_judge``: False
    when claims are the output's sentences (no model call); ``fixed_budget``: extraction gets a
    budget scaled to the output instead of the judge's ``max_tokens``; ``sentence_fallback``: a
    failed extraction falls back to sentences.
    """

    name: str
    verdicts: VerdictFn
    extract_with_judge: bool = True
    fixed_budget: bool = False
    sentence_fallback: bool = False
    single_pass: bool = False

    def extract_budget(self, text: str, ceiling: int) -> int | None:
        """Tokens for an extraction: about twice the output's own under a fixed budget (a small
        model that loops then stops in seconds), else the judge's default."""
        return min(ceiling, FIXED_EXTRACT_BASE_TOKENS + len(text) // 2) if self.fixed_budget else None


def judges_in_one_pass(capabilities: Capabilities, single_pass: bool) -> bool:
    """Whether a backend with ``capabilities`` gets the single-pass plan when it is asked for
    (a judge that writes JSON answers; the verifier and the local LLM judge their own way)."""
    return single_pass and not (capabilities.classify_pairs or capabilities.choice_probabilities)


def plan_for(judge: Judge, batch_size: int, single_pass: bool = False) -> ClaimPlan:
    """The plan for ``judge``: from its backend's capabilities, and its second opinion if any;
    ``single_pass`` asks a judge that writes JSON answers for claims and verdicts at once."""
    capabilities = judge.capabilities
    if capabilities.classify_pairs and judge.second_opinion is not None:
        second = plan_for(judge.second_opinion, batch_size)
        band = judge.uncertain_band
        cascade = CascadeVerdicts(judge.second_opinion, second.verdicts, band)
        return ClaimPlan("cascade", cascade, extract_with_judge=False)
    if capabilities.classify_pairs:
        return ClaimPlan("pairs", PairVerdicts(), extract_with_judge=False)
    if capabilities.choice_probabilities:
        return ClaimPlan("choice", ChoiceVerdicts(), fixed_budget=True, sentence_fallback=True)
    if judges_in_one_pass(capabilities, single_pass):
        return ClaimPlan("single-pass", BatchedVerdicts(batch_size), single_pass=True)
    return ClaimPlan("batched", BatchedVerdicts(batch_size))


async def support_probabilities(ctx: StepContext, context: list[str], claims: list[str]) -> list[float]:
    """P(supported) of each claim, as the judge's verdict plan computes it (for calibration)."""
    capabilities = ctx.judge.capabilities if ctx.judge else Capabilities()
    if capabilities.classify_pairs:
        return [s.probability("supported") for s in await classify_claims(ctx, context, claims)]
    if capabilities.choice_probabilities:
        return [(v.probabilities or {})["yes"] for v in await ChoiceVerdicts()(ctx, context, claims)]
    raise ConfigError("calibration reads probabilities: use the offline verifier or a local LLM judge")


__all__ = [
    "BatchedVerdicts",
    "ChoiceVerdicts",
    "ClaimPlan",
    "PairVerdicts",
    "judges_in_one_pass",
    "plan_for",
    "support_probabilities",
]
