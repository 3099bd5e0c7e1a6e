"""The step types of a scorer (a function of a :class:`StepContext`, or a :class:`PromptStep`),
and the step names; the context itself is :mod:`troth.judges.session`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from troth.judges.judge import Judge
from troth.judges.session import StepContext, StepResults

__all__ = ["STEPS", "PromptStep", "Step", "StepContext", "StepFn", "StepResults"]

STEPS = ("preprocess", "analyze", "generate_score", "generate_reason")


StepFn = Callable[[StepContext], Any]


@dataclass(frozen=True)
class PromptStep:
    """A step answered by the judge: a prompt builder plus the pydantic schema of the answer.

    ``transform`` turns the parsed answer into the step's result (default: the parsed model).
    """

    description: str
    create_prompt: Callable[[StepContext], str | Awaitable[str]]
    output_schema: type[BaseModel]
    system: str | None = None
    judge: Judge | None = None
    transform: Callable[[Any], Any] | None = None


Step = StepFn | PromptStep
