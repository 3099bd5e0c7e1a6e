"""The faithfulness scorer: the share of the output's claims that the context supports."""

from __future__ import annotations

from typing import Literal

import troth.scorers.claims as C
from troth.judges.judge import Judge
from troth.prompts import faithfulness as F
from troth.scorers.base import Scorer, rebuildable

REASON_LABELS = (("yes", "Supported"), ("no", "Contradicted"), ("unsure", "Not verifiable from the context"))


@rebuildable
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
    max_output_chars: int = C.DEFAULT_MAX_OUTPUT_CHARS,
    require_evidence: bool = False,
) -> Scorer:
    """Faithfulness: (claims the context supports / all claims) * ``scale``.

    Context comes from ``context=`` given to the run, ``get_context(run)``, ``context=`` given
    here, else the tool-call results in a chat-transcript output. ``reason="judge"`` asks the
    judge to explain the score; ``"template"`` writes it in code (one judge call fewer);
    ``"auto"`` (default) follows the judge: the template for the offline judges, the judge otherwise.
    ``sentence_fallback`` splits the output into sentences when claim extraction fails
    (default: on for the local LLM judge, off otherwise); the reason then says so.
    ``max_output_chars`` bounds the answer checked (longer fails before any judge call).
    ``require_evidence``: a "supported" verdict whose evidence quote is empty or not found in
    the context counts as unsure (off by default: see ``bench/evidence_policy.py``); either way
    such verdicts are flagged ``unquoted`` and named in the reason. An output or context that
    carries instructions to the judge is flagged in ``result.flags`` and the reason.
    """
    return C.create_context_claim_scorer(
        id="faithfulness",
        description="Share of the output's claims that the context supports.",
        prompts=F,
        score_labels=("yes",),
        reason_labels=REASON_LABELS,
        model=model,
        context=context,
        get_context=get_context,
        scale=scale,
        reason=reason,
        batch_size=batch_size,
        max_context_chars=max_context_chars,
        sentence_fallback=sentence_fallback,
        max_output_chars=max_output_chars,
        require_evidence=require_evidence,
    )
