"""Scorers built on the four-step pipeline."""

from troth.scorers.answer_relevancy import create_answer_relevancy_scorer
from troth.scorers.base import PromptStep, Scorer, StepContext, StepResults, create_scorer
from troth.scorers.faithfulness import create_faithfulness_scorer
from troth.scorers.hallucination import create_hallucination_scorer

__all__ = [
    "PromptStep",
    "Scorer",
    "StepContext",
    "StepResults",
    "create_answer_relevancy_scorer",
    "create_faithfulness_scorer",
    "create_hallucination_scorer",
    "create_scorer",
]
