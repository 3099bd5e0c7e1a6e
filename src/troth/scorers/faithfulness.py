"""The faithfulness scorer: the share of the output's claims that the context supports."""

from __future__ import annotations

from typing import Unpack

import troth.scorers.claims as C
from troth.judges.judge import Judge
from troth.prompts import faithfulness as F
from troth.scorers.base import Scorer, rebuildable

REASON_LABELS = (("yes", "Supported"), ("no", "Contradicted"), ("unsure", "Not verifiable from the context"))


FAITHFULNESS = C.ContextClaimKind(
    id="faithfulness",
    description="Share of the output's claims that the context supports.",
    prompts=F,
    score_labels=("yes",),
    reason_labels=REASON_LABELS,
)


@rebuildable
def create_faithfulness_scorer(model: str | Judge = "verifier", **options: Unpack[C.ContextClaimOptions]) -> Scorer:
    """Faithfulness: (claims the context supports / all claims) * ``scale``.

    ``model``: ``"verifier"`` (the offline claim verifier, the default; ``"local"`` is its earlier
    name), ``"llm"`` (an LLM run by llama.cpp in a child process),
    ``"provider/model"`` or a :class:`~troth.Judge`. Keyword options:

    - ``context``: the context (a string or list of strings); else ``context=`` given to the run,
      ``get_context(run)``, or the tool-call results in a chat-transcript output, first found in
      the order run, ``get_context``, this, transcript.
    - ``scale`` (default 1): the maximum score.
    - ``reason``: ``"template"`` (and ``"auto"``, the default) writes it in code, naming every
      claim by verdict; ``"judge"`` asks the judge to explain the score (one judge call more).
    - ``batch_size`` (default 16): claims per verdict request.
    - ``max_context_chars`` (1,000,000) and ``max_output_chars`` (100,000): longer fails before
      any judge call.
    - ``sentence_fallback``: split the output into sentences when claim extraction fails
      (default: on for the local LLM judge, off otherwise); the reason then says so.
    - ``require_evidence`` (default off, see ``bench/evidence_policy.py``): a "supported" verdict
      whose evidence quote is empty or not found in the context counts as unsure; either way
      such verdicts are flagged ``unquoted`` and named in the reason.
    - ``strategy`` (HTTP judges): ``"single-pass"`` asks for the claims and their verdicts in one
      request (a context and answer too long for one go the two-step way, flagged
      ``single-pass-fallback``, as is an answer with no claim); ``"two-step"`` extracts, then
      judges in batches; ``"auto"`` (default) is two-step (measured: docs/benchmarks.md, "Single
      pass against two steps").

    An output or context that carries instructions to the judge is flagged in ``result.flags``
    and the reason.
    """
    checked = C.ClaimOptions.check("create_faithfulness_scorer", model, options)
    return C.create_context_claim_scorer(FAITHFULNESS, model, checked)
