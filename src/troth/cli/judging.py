"""The judge and scorer options that ``troth score`` and ``troth eval`` share."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from troth.scorers.claims import JudgingStrategy
from troth.scorers.reasons import ReasonMode

if TYPE_CHECKING:
    from troth.scorers.base import Scorer

ModelOption = Annotated[
    str | None,
    typer.Option(
        help="Judge: 'verifier' (the offline claim verifier; 'local' is its earlier name), 'llm' (an LLM run by "
        "llama.cpp) or 'provider/model'. Default: the scorer's own (the verifier; the LLM for answer-relevancy)."
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
ScorerOption = Annotated[
    str,
    typer.Option(
        "--scorer",
        help="faithfulness (the default), hallucination, answer-relevancy, or a scorer installed under the "
        "troth.scorers entry point.",
    ),
]
OptOption = Annotated[
    list[str] | None,
    typer.Option("--opt", help="A scorer's own option, key=value (repeatable): --opt uncertainty_weight=0.5."),
]


def build_scorer(
    name: str,
    model: str | None,
    base_url: str | None,
    opts: list[str] | None,
    rate_limit_wait: float = 120.0,
    **settings: Any,
) -> Scorer:
    """Scorer ``name`` through the scorer registry: on ``model`` (None: the scorer's default judge),
    with ``--opt`` options and the common ``settings`` (scale, strategy, reason) that differ from
    their defaults, so that a scorer without such a setting is not handed one."""
    from troth.judges.judge import Judge
    from troth.scorers.registry import build, parse_options

    options = parse_options(opts or [])
    for key, value in settings.items():
        if value != DEFAULTS[key]:
            options.setdefault(key, value)
    if base_url is not None and model is None:
        raise ValueError("--base-url needs --model: the model's name on that server")
    judge = Judge(model, base_url=base_url, rate_limit_wait=rate_limit_wait) if model else None
    return build(name, judge, options)


DEFAULTS: dict[str, Any] = {"scale": 1.0, "strategy": "auto", "reason": "auto"}
