"""The hallucination scorer: the share of claims the context contradicts or does not state.

Lower is better. It shares extraction and verdicts with faithfulness; only the formula and the
reason differ.
"""

from __future__ import annotations

from typing import Unpack

import troth.scorers.claims as C
from troth.judges.judge import Judge
from troth.prompts import hallucination as H
from troth.scorers.base import Scorer, rebuildable

REASON_LABELS = (("no", "Contradicted"), ("unsure", "Not in the context"), ("yes", "Supported"))


HALLUCINATION = C.ContextClaimKind(
    id="hallucination",
    description="Share of the output's claims that the context contradicts or does not state.",
    prompts=H,
    score_labels=("no", "unsure"),
    reason_labels=REASON_LABELS,
)


@rebuildable
def create_hallucination_scorer(model: str | Judge = "verifier", **options: Unpack[C.ContextClaimOptions]) -> Scorer:
    """Hallucination: (contradicted + unstated claims) / all claims * ``scale``; lower is better.

    ``model`` and the keyword options as for
    :func:`~troth.scorers.faithfulness.create_faithfulness_scorer` (context from the run,
    ``get_context(run)``, ``context=``, tool-call results). With no context at all every claim
    is ungrounded: the score is ``scale`` and the reason says no context was found.
    """
    checked = C.ClaimOptions.check("create_hallucination_scorer", model, options)
    return C.create_context_claim_scorer(HALLUCINATION, model, checked)
