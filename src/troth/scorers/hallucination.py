"""The hallucination scorer: the share of claims the context contradicts or does not state.

Lower is better. It shares extraction and verdicts with faithfulness; only the formula and the
reason differ.
"""

from __future__ import annotations

from typing import Literal

import troth.scorers.claims as C
from troth.judges.judge import Judge
from troth.prompts import hallucination as H
from troth.scorers.base import Scorer, rebuildable

REASON_LABELS = (("no", "Contradicted"), ("unsure", "Not in the context"), ("yes", "Supported"))


@rebuildable
def create_hallucination_scorer(
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
    """Hallucination: (contradicted + unstated claims) / all claims * ``scale``; lower is better.

    Context as for faithfulness (run, ``get_context(run)``, ``context=``, tool-call results).
    With no context at all every claim is ungrounded: the score is ``scale`` and the reason
    says no context was found.
    ``max_output_chars`` bounds the answer checked (longer fails before any judge call).
    ``require_evidence``: a "supported" verdict whose evidence quote is empty or not found in
    the context counts as unsure (off by default: see ``bench/evidence_policy.py``); either way
    such verdicts are flagged ``unquoted`` and named in the reason. An output or context that
    carries instructions to the judge is flagged in ``result.flags`` and the reason.
    """
    return C.create_context_claim_scorer(
        id="hallucination",
        description="Share of the output's claims that the context contradicts or does not state.",
        prompts=H,
        score_labels=("no", "unsure"),
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
