"""The judge and scorer options that ``troth score`` and ``troth eval`` share."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer


class Strategy(StrEnum):
    """How claims are judged (``--strategy``)."""

    auto = "auto"
    single_pass = "single-pass"
    two_step = "two-step"


class ReasonBy(StrEnum):
    """Who writes the reason (``--reason``)."""

    auto = "auto"
    judge = "judge"
    template = "template"


ModelOption = Annotated[
    str, typer.Option(help="Judge: 'local' (the offline claim verifier), 'llm' (a local LLM) or 'provider/model'.")
]
BaseUrlOption = Annotated[str | None, typer.Option(help="OpenAI-compatible server (then --model is its name).")]
ScaleOption = Annotated[float, typer.Option(help="Maximum score.")]
StrategyOption = Annotated[
    Strategy,
    typer.Option(help="HTTP judges: claims and verdicts in one request (single-pass), in two, or the default (auto)."),
]
ReasonOption = Annotated[
    ReasonBy, typer.Option(help="The reason written by the judge (one call more), by a template, or the default.")
]
