"""The judge and scorer options that ``troth score`` and ``troth eval`` share."""

from __future__ import annotations

from typing import Annotated

import typer

from troth.scorers.claims import JudgingStrategy
from troth.scorers.reasons import ReasonMode

ModelOption = Annotated[
    str,
    typer.Option(
        help="Judge: 'verifier' (the offline claim verifier; 'local' is its earlier name), 'llm' (an LLM run by "
        "llama.cpp) or 'provider/model'."
    ),
]
BaseUrlOption = Annotated[str | None, typer.Option(help="OpenAI-compatible server (then --model is its name).")]
ScaleOption = Annotated[float, typer.Option(help="Maximum score.")]
StrategyOption = Annotated[
    JudgingStrategy,
    typer.Option(help="HTTP judges: claims and verdicts in one request (single-pass), in two, or the default (auto)."),
]
ReasonOption = Annotated[
    ReasonMode, typer.Option(help="The reason written by the judge (one call more), by a template, or the default.")
]
