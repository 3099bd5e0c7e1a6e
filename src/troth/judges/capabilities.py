"""What a backend can do, declared once by the backend and read once when a judge is built.

The verdict strategy, the extraction budget, the reason mode and the sentence fallback all
follow from these fields (see :mod:`troth.judges.plans`); nothing else asks which backend runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from troth.values import Prices

StructuredMode = Literal["json_schema", "json_object", "prompt"]


@dataclass(frozen=True)
class ClaimHead:
    """A logistic regression over a claim's features (named, in order; see
    :mod:`troth.judges.plans.stack`) giving its P(supported), fitted at development time."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float


@dataclass(frozen=True)
class Capabilities:
    """A backend's declared abilities.

    ``generates``: answers free prompts (``complete``); ``structured``: how a JSON answer is
    obtained when it does; ``choice_probabilities``: reads the probabilities of one-word answers
    (``choose``); ``classify_pairs``: scores (passage, claim) pairs directly (``classify``);
    ``context_window``: tokens, when known; ``prefix_reuse``: a shared prompt prefix is evaluated
    once; ``fixed_token_budget``: a cut-off answer is not retried with a larger budget (a small
    model that loops would only loop longer); ``yes_threshold``: the calibrated P(supported) from
    which a claim counts as supported; ``uncertain_band``: the calibrated P(supported) range in
    which a cascade asks its second judge; ``scan_windows``: a pair classifier checks a long
    context's every window besides the claim's best-matching sentences; ``second_look``: a claim
    found contradicted, or whose aligned sentences show a changed fact, is classified again with
    its best-aligned run of 1–3 sentences as one window more
    (:func:`troth.judges.plans.pairs.second_look`); ``aligned_window``: every claim gets that
    second look, its best-aligned run read as one window more; ``claim_head``: a pair classifier's
    P(supported) of a claim is stacked with its alignment in the context by this head (see
    :mod:`troth.judges.plans.stack`); ``prices``: what a call costs (``FREE`` for an in-process
    model; None: the model's list price, see :mod:`troth.prices`).
    """

    generates: bool = True
    structured: StructuredMode = "json_schema"
    choice_probabilities: bool = False
    classify_pairs: bool = False
    context_window: int | None = None
    prefix_reuse: bool = False
    fixed_token_budget: bool = False
    default_max_tokens: int = 2048
    yes_threshold: float = 0.5
    uncertain_band: tuple[float, float] | None = None
    scan_windows: bool = False
    second_look: bool = False
    aligned_window: bool = False
    claim_head: ClaimHead | None = None
    prices: Prices | None = None
