"""The options of ``troth eval`` that say how a trace file is read: the level, filters, a sample
and the attributes holding the input, output and context (:func:`troth.read_traces`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from troth.evals.trace_options import LEVELS, parse_attributes

LevelOption = Annotated[
    str | None, typer.Option(help="Trace file: an item per agent run ('agent', the default) or per LLM call ('llm').")
]
SpanNameOption = Annotated[str | None, typer.Option(help="Trace file: only the spans with this name.")]
AttrOption = Annotated[
    list[str] | None, typer.Option("--attr", help="Trace file: only the spans with this attribute value (key=value).")
]
SampleOption = Annotated[float | None, typer.Option(help="Trace file: the share of traces scored, in (0, 1].")]
InputAttrOption = Annotated[str | None, typer.Option(help="Trace file: the span attribute holding the input.")]
OutputAttrOption = Annotated[str | None, typer.Option(help="Trace file: the span attribute holding the output.")]
ContextAttrOption = Annotated[
    str | None, typer.Option(help="Trace file: the attribute holding the context (on the span and the spans under it).")
]


def trace_data(
    data: Path,
    level: str | None,
    span_name: str | None,
    attr: list[str] | None,
    sample: float | None,
    attrs: tuple[str | None, str | None, str | None],
) -> Any:
    """``data`` as given, or, when a trace option is given, the items :func:`troth.read_traces`
    reads from it; ValueError (one line, exit 2) for an option out of place or out of range."""
    if level is None and span_name is None and not attr and sample is None and attrs == (None, None, None):
        return data
    from troth.evals.dataset import read_traces

    if level is not None and level not in LEVELS:
        raise ValueError(f"--level must be one of {', '.join(LEVELS)}, not {level!r}")
    input_attr, output_attr, context_attr = attrs
    return read_traces(
        data,
        level="llm" if level == "llm" else "agent",
        span_name=span_name,
        attributes=parse_attributes(attr),
        sample=sample,
        input_attr=input_attr,
        output_attr=output_attr,
        context_attr=context_attr,
    )
