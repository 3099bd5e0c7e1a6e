"""Verdicts from a pair classifier (the offline verifier): each claim against windows of its
context, the deciding window's sentence kept as evidence.

Windows: the claim's best-matching sentences (up to a window), and, when the backend declares
``scan_windows``, every consecutive window of a long context too. Aggregation over windows:
P(supported) and P(contradicted) are each the highest any window gives (see :func:`decide`). A
claim is supported when some part of the context supports it, whatever the other parts say
nothing of; a contradiction likelier than support outweighs a low threshold. A backend that
declares a ``claim_head`` has P(supported) restacked with the claim's alignment in its context
(:mod:`~troth.judges.plans.stack`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from troth.judges.base import PairScores
from troth.judges.capabilities import ClaimHead
from troth.judges.plans.stack import claim_features, stacked, substitute_gain, substitute_pairs, uses
from troth.judges.session import StepContext
from troth.prompts import claims as P
from troth.text.alignment import Alignment, ContextAlignment
from troth.text.numerals import resolved, written_numbers
from troth.text.windows import Sentence, claim_windows, context_sentences, rank, window_text
from troth.values import Evidence, Verdict, VerdictLabel

WINDOW_CHARS = 700
"""Context characters per window: with a claim, about 250 tokens, the verifier's input size."""


@dataclass(frozen=True)
class Scored:
    """A claim's classification over all its windows; ``supported``: its stacked P(supported),
    when the backend declares a claim head."""

    claim: str
    windows: list[list[Sentence]]
    scores: list[PairScores]
    supported: float | None = None
    absent: tuple[str, ...] = ()  # words the context holds nowhere, that the head weighed against it

    def best(self, label: str) -> int:
        """Index of the window with the highest probability of ``label``."""
        return max(range(len(self.scores)), key=lambda i: self.scores[i].as_dict()[label])

    def probability(self, label: str) -> float:
        if not self.scores:
            return 0.0
        if label == "supported" and self.supported is not None:
            return self.supported
        return self.scores[self.best(label)].as_dict()[label]

    def probabilities(self, index: int) -> dict[str, float]:
        """Window ``index``'s probabilities, with the stacked P(supported) when there is one."""
        window = self.scores[index]
        return (window if self.supported is None else window.with_supported(self.supported)).as_dict()


def restack(scored: Scored, alignment: Alignment, head: ClaimHead, gain: float = 0.0) -> Scored:
    """``scored`` with its P(supported) from ``head`` over the classifier's features, the
    claim's ``alignment`` in its context and its substitute ``gain``."""
    if not scored.scores:
        return scored
    raw = replace(scored, supported=None)
    values = claim_features(raw.probability("supported"), raw.probability("contradicted"), alignment, gain)
    weighed = [f for f in ("absent_names_numbers", "absent_words") if uses(head, f)]
    absent = tuple(w for f in weighed for w in getattr(alignment, f))
    return replace(scored, supported=stacked(head, values), absent=absent)


def decide(scored: Scored, yes_threshold: float, no_threshold: float = 0.5) -> VerdictLabel:
    """ "no" when P(contradicted) reaches ``no_threshold`` and exceeds P(supported); else "yes" when
    P(supported) reaches ``yes_threshold``; else "no" when P(contradicted) reaches ``no_threshold``;
    else "unsure"."""
    supported, contradicted = scored.probability("supported"), scored.probability("contradicted")
    if contradicted >= no_threshold and contradicted > supported:
        return "no"
    if supported >= yes_threshold:
        return "yes"
    return "no" if contradicted >= no_threshold else "unsure"


def to_verdict(scored: Scored, label: VerdictLabel) -> Verdict:
    """The verdict with the deciding window's probabilities and its best-matching sentence; a
    claim not found supported names the words the context holds nowhere, if the head weighed them."""
    reason = P.PAIR_VERDICT_REASON[label] if scored.scores else P.PAIR_VERDICT_REASON["unsure"]
    if label != "yes" and scored.absent:
        reason += " " + P.PAIR_ABSENT_NOTE.format(words=", ".join(dict.fromkeys(scored.absent)))
    if not scored.scores:
        return Verdict(scored.claim, "unsure", reason)
    index = scored.best("contradicted" if label == "no" else "supported")
    window = scored.windows[index]
    probabilities = {k: round(v, 4) for k, v in scored.probabilities(index).items()}
    evidence = None
    if label != "unsure":
        scores = rank(window, scored.claim)
        s = window[max(range(len(window)), key=lambda i: scores[i])]
        evidence = Evidence(s.quote, True, s.segment, s.start, s.end)
    return Verdict(scored.claim, label, reason, evidence, probabilities)


@dataclass(frozen=True)
class ClaimWindows:
    """Each claim's windows of the context and, when asked for, its alignment there and its
    best-aligned run of 1–3 sentences (what a second look reads)."""

    windows: list[list[list[Sentence]]]
    alignments: list[Alignment]
    runs: list[list[Sentence]]
    readings: list[str]  # each claim as the classifier reads it (a rough number resolved: numerals.resolved)


def pair_windows(context: list[str], claims: list[str], scan: bool, aligned: bool) -> ClaimWindows:
    """Each claim's windows of the context, and with ``aligned``, where it aligns there."""
    sentences = context_sentences(context, WINDOW_CHARS)
    windows = [claim_windows(sentences, claim, WINDOW_CHARS, scan=scan) for claim in claims]
    written = written_numbers(" ".join(s.text for s in sentences))
    readings = [resolved(claim, written) for claim in claims]
    if not aligned:
        return ClaimWindows(windows, [], [], readings)
    context_alignment = ContextAlignment(context, sentences)
    alignments = [context_alignment.align(claim) for claim in claims]
    runs = [sentences[a.span[0] : a.span[0] + a.span[1]] for a in alignments]
    return ClaimWindows(windows, alignments, runs, readings)


def gather(claims: list[str], windows: list[list[list[Sentence]]], scores: list[PairScores]) -> list[Scored]:
    """The flat list of pair scores handed back to each claim's windows."""
    out, at = [], 0
    for claim, ws in zip(claims, windows, strict=True):
        out.append(Scored(claim, ws, scores[at : at + len(ws)]))
        at += len(ws)
    return out


async def classify_claims(ctx: StepContext, context: list[str], claims: list[str]) -> list[Scored]:
    """Every claim against each of its windows, in one classification request; restacked by the
    backend's claim head when it declares one (with the substitute gain, when the head weighs it:
    the claim and its substitutes against its aligned run, in the same request); with
    ``second_look``, a claim found contradicted or showing a changed fact is looked at again
    (:func:`second_look`); with ``aligned_window``, every claim is."""
    capabilities = ctx.judge.capabilities if ctx.judge else None
    head = capabilities.claim_head if capabilities else None
    every = capabilities.aligned_window if capabilities else False
    look = (capabilities.second_look if capabilities else False) or every
    scan = capabilities.scan_windows if capabilities else False
    found = pair_windows(context, claims, scan, aligned=head is not None or look)
    pairs = [(window_text(w), read) for read, ws in zip(found.readings, found.windows, strict=True) for w in ws]
    runs = [window_text(r) for r in found.runs] if uses(head, "substitute_gain") else [""] * len(claims)
    contrasts, spans = substitute_pairs(found.readings, runs)
    scores = await classify_once(ctx, pairs + contrasts)
    if any(s.truncated for s in scores):
        ctx.note(P.TRUNCATED_WINDOW_NOTE)
    scored = gather(claims, found.windows, scores[: len(pairs)])
    contrasted = scores[len(pairs) :]
    gains = [substitute_gain(contrasted[span.start : span.stop]) for span in spans]
    if head is not None:
        scored = [restack(s, a, head, g) for s, a, g in zip(scored, found.alignments, gains, strict=True)]
    if capabilities is None or not look:
        return scored
    known = {i: contrasted[span.start] for i, span in enumerate(spans) if span}
    threshold = None if every else capabilities.yes_threshold
    return await second_look(ctx, scored, found, head, threshold, gains, known)


async def classify_once(ctx: StepContext, pairs: list[tuple[str, str]]) -> list[PairScores]:
    """Each pair's scores, in order, in one request that reads a repeated pair once (a claim's
    aligned run is often one of its windows too)."""
    unique = list(dict.fromkeys(pairs))
    scored = dict(zip(unique, await ctx.classify(unique), strict=True)) if unique else {}
    return [scored[pair] for pair in pairs]


async def second_look(
    ctx: StepContext,
    scored: list[Scored],
    found: ClaimWindows,
    head: ClaimHead | None,
    threshold: float | None,
    gains: list[float],
    known: dict[int, PairScores],
) -> list[Scored]:
    """Claims found contradicted, and claims whose aligned sentences show a changed fact (a
    number or name swapped, a negation mismatch), judged again with that run of sentences as one
    window more (``known``: the runs' scores already classified, by claim index). In a long window
    the classifier may read a contradiction into what the sentence stating the claim supports
    ("built in Fremont and Shanghai" against a whole description of the car), and miss one that
    the sentence alone makes plain. A claim aligned with a row of a table is looked at again too
    (the other rows, read with it, blur it). With ``threshold`` None, every claim with an aligned
    run not among its windows is looked at again."""
    again = [i for i, s in enumerate(scored) if _looked_again(s, found.alignments[i], threshold, found.runs[i])]
    asked = [i for i in again if i not in known]
    scores = await ctx.classify([(window_text(found.runs[i]), found.readings[i]) for i in asked]) if asked else []
    run_scores = {**known, **dict(zip(asked, scores, strict=True))}
    out = list(scored)
    for i in again:
        run, alignment, score = found.runs[i], found.alignments[i], run_scores[i]
        widened = replace(scored[i], windows=[*scored[i].windows, run], scores=[*scored[i].scores, score])
        out[i] = widened if head is None else restack(widened, alignment, head, gains[i])
    return out


def _looked_again(scored: Scored, alignment: Alignment, threshold: float | None, run: list[Sentence]) -> bool:
    if not run or run in scored.windows:
        return False
    changed = alignment.swapped or alignment.negation_mismatch
    tabled = any(s.structured for s in run)  # a table or JSON reads better a record at a time than whole
    return threshold is None or changed or tabled or decide(scored, threshold) == "no"


class PairVerdicts:
    """Verdicts decided by the classifier alone."""

    async def __call__(self, ctx: StepContext, context: list[str], claims: list[str]) -> list[Verdict]:
        threshold = ctx.judge.yes_threshold if ctx.judge else 0.5
        scored = await classify_claims(ctx, context, claims)
        return [to_verdict(s, decide(s, threshold)) for s in scored]
