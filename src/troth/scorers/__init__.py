"""Scorers built on the four-step pipeline."""

from troth.scorers.base import PromptStep, Scorer, StepContext, StepResults, create_scorer
from troth.scorers.faithfulness import create_faithfulness_scorer

__all__ = ["PromptStep", "Scorer", "StepContext", "StepResults", "create_faithfulness_scorer", "create_scorer"]
