"""The options of ``troth eval`` that say where items come from and how a trace file is read:
the level, filters, a sample and the attributes holding the input, output and context
(:func:`troth.read_traces`), or a Phoenix project (``--from-phoenix URL --project P``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from troth.evals.trace_options import LEVELS, Level, TraceOptions, parse_attributes

if TYPE_CHECKING:
    from troth.evals.eval_result import EvalResult

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


FromPhoenixOption = Annotated[
    str | None,
    typer.Option("--from-phoenix", help="Score a Phoenix server's spans (its URL); scores go back as annotations."),
]
ProjectOption = Annotated[str, typer.Option(help="With --from-phoenix: the Phoenix project.")]


@dataclass(frozen=True)
class Source:
    """Where ``troth eval`` reads its items: DATA as given, a trace file read with options, or a
    Phoenix project (whose spans get the scores back)."""

    data: Path | None
    phoenix: str | None = None
    project: str = "default"
    options: TraceOptions | None = None

    def items(self) -> Any:
        if self.phoenix is not None:
            from troth.evals.phoenix import read_phoenix

            return read_phoenix(self.phoenix, self.project, self.options)
        if self.data is None:
            raise ValueError("give DATA (a file), or --from-phoenix URL")
        if self.options is None:
            return self.data
        from troth.evals.dataset import read_trace_file

        return read_trace_file(self.data, self.options)

    def after(self, result: EvalResult, scorer_id: str, threshold: float | None) -> None:
        """The scores written back to Phoenix, said in one line."""
        if self.phoenix is not None:
            from troth.evals.phoenix import annotate_phoenix

            written = annotate_phoenix(self.phoenix, result, {scorer_id: threshold})
            typer.echo(f"{written} annotation(s) written to Phoenix project {self.project!r} at {self.phoenix}")


def source(
    data: Path | None,
    phoenix: str | None,
    project: str,
    level: str | None,
    span_name: str | None,
    attr: list[str] | None,
    sample: float | None,
    attrs: tuple[str | None, str | None, str | None],
) -> Source:
    """The source the options describe; ValueError (one line, exit 2) for one out of range."""
    if data is not None and phoenix is not None:
        raise ValueError("give DATA or --from-phoenix, not both")
    if level is None and span_name is None and not attr and sample is None and attrs == (None, None, None):
        return Source(data, phoenix, project)
    if level is not None and level not in LEVELS:
        raise ValueError(f"--level must be one of {', '.join(LEVELS)}, not {level!r}")
    input_attr, output_attr, context_attr = attrs
    chosen: Level = "llm" if level == "llm" else "agent"
    options = TraceOptions(chosen, span_name, parse_attributes(attr), sample, input_attr, output_attr, context_attr)
    return Source(data, phoenix, project, options)
