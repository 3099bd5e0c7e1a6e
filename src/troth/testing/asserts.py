"""Assertions for test suites: ``assert_faithful``, ``assert_not_hallucinated``, ``assert_relevant``.

Each scores the output, raises ``AssertionError`` with the score, the threshold and the
failing claims with their reasons, and returns the :class:`~troth.values.ScoreResult` on
success. The judge is ``model=`` (a string or Judge), else ``$TROTH_MODEL`` (the pytest
plugin's ``--troth-model`` sets it), else the offline judge: the verifier (``"verifier"``) for
faithfulness and hallucination, the LLM (``"llm"``) for relevancy, which a pair
classifier cannot judge.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from troth.judges.judge import Judge
from troth.scorers.answer_relevancy import create_answer_relevancy_scorer
from troth.scorers.faithfulness import create_faithfulness_scorer
from troth.scorers.hallucination import create_hallucination_scorer
from troth.values import ScoreResult

ENV_MODEL = "TROTH_MODEL"
ENV_BASE_URL = "TROTH_BASE_URL"

Recorder = Callable[[str, ScoreResult, float, bool], None]
RECORDER: ContextVar[Recorder | None] = ContextVar("troth_recorder", default=None)
"""Told of every check made while it is set: the pytest plugin sets its score log around each test."""


def default_judge(model: str | Judge | None = None, offline: str = "verifier") -> Judge:
    """``model``, else ``$TROTH_MODEL`` (with ``$TROTH_BASE_URL`` for a server), else ``offline``."""
    if isinstance(model, Judge):
        return model
    name = model or os.environ.get(ENV_MODEL) or offline
    base_url = os.environ.get(ENV_BASE_URL)
    return Judge(name, base_url=base_url) if base_url and model is None else Judge(name)


def _failing(result: ScoreResult, bad: tuple[str, ...]) -> str:
    lines = [f"  - [{v.verdict}] {v.claim} -- {v.reason}" for v in result.verdicts if v.verdict in bad]
    return "\n".join(lines) if lines else "  (no claims)"


def _check(name: str, result: ScoreResult, threshold: float, passed: bool, bad: tuple[str, ...], op: str) -> None:
    recorder = RECORDER.get()
    if recorder is not None:
        recorder(name, result, threshold, passed)
    if not passed:
        raise AssertionError(
            f"{name} score {result.score:g} {op} threshold {threshold:g}\n"
            f"reason: {result.reason}\nfailing claims:\n{_failing(result, bad)}"
        )


def assert_faithful(
    output: Any,
    context: Any = None,
    *,
    input: Any = None,
    threshold: float = 1.0,
    model: str | Judge | None = None,
    scale: float = 1,
) -> ScoreResult:
    """Fail unless the faithfulness score is at least ``threshold``."""
    scorer = create_faithfulness_scorer(default_judge(model), scale=scale, reason="template")
    result = scorer.run(input=input, output=output, context=context)
    _check("faithfulness", result, threshold, result.score >= threshold, ("no", "unsure"), "<")
    return result


def assert_not_hallucinated(
    output: Any,
    context: Any = None,
    *,
    input: Any = None,
    threshold: float = 0.0,
    model: str | Judge | None = None,
    scale: float = 1,
) -> ScoreResult:
    """Fail if the hallucination score is above ``threshold`` (default: any hallucinated claim)."""
    scorer = create_hallucination_scorer(default_judge(model), scale=scale, reason="template")
    result = scorer.run(input=input, output=output, context=context)
    _check("hallucination", result, threshold, result.score <= threshold, ("no", "unsure"), ">")
    return result


def assert_relevant(
    input: Any,
    output: Any,
    *,
    threshold: float = 0.7,
    model: str | Judge | None = None,
    uncertainty_weight: float = 0.3,
    scale: float = 1,
) -> ScoreResult:
    """Fail unless the answer-relevancy score is at least ``threshold``."""
    scorer = create_answer_relevancy_scorer(
        default_judge(model, offline="llm"),
        uncertainty_weight=uncertainty_weight,
        scale=scale,
        reason="template",
    )
    result = scorer.run(input=input, output=output)
    _check("answer-relevancy", result, threshold, result.score >= threshold, ("no", "unsure"), "<")
    return result
