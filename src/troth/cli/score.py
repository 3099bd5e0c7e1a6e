"""``troth score``: score one answer."""

from __future__ import annotations

import json
from importlib import resources
from typing import Annotated, Any

import typer
from rich.console import Console

from troth.bounds import check
from troth.cli import judging as J
from troth.cli.app import one_line_errors, read_arg
from troth.cli.render import render_result, safe
from troth.redaction import redact


def _example() -> dict[str, Any]:
    data = resources.files("troth").joinpath("examples/model3.json").read_text(encoding="utf-8")
    result: dict[str, Any] = json.loads(data)
    return result


def score(
    output: Annotated[str | None, typer.Option(help="The answer to check: TEXT, @file or @- (stdin).")] = None,
    context: Annotated[list[str] | None, typer.Option(help="A context segment: TEXT or @file; repeatable.")] = None,
    input: Annotated[str | None, typer.Option("--input", help="The question (TEXT or @file).")] = None,
    model: J.ModelOption = None,
    base_url: J.BaseUrlOption = None,
    scale: J.ScaleOption = 1.0,
    strategy: J.StrategyOption = "auto",
    reason: J.ReasonOption = "auto",
    scorer_name: J.ScorerOption = "faithfulness",
    opt: J.OptOption = None,
    example: Annotated[bool, typer.Option("--example", help="Score the bundled example.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Score one answer: its faithfulness to its context, or what --scorer names."""
    if example:
        data = _example()
        output_text, contexts, question = data["output"], data["context"], data["input"]
    else:
        if output is None:
            raise typer.BadParameter("give --output (or --example)", param_hint="--output")
        output_text = read_arg(output, "--output")
        contexts = [read_arg(c, "--context") for c in context or []]
        question = read_arg(input, "--input") if input else None
    console = Console()
    with one_line_errors():
        check("--scale", scale, low=0, strict=True)
        scorer = J.build_scorer(scorer_name, model, base_url, opt, scale=scale, strategy=strategy, reason=reason)
        if console.is_terminal and not as_json:
            with console.status("Scoring…", spinner="dots"):
                result = scorer.run(input=question, output=output_text, context=contexts or None)
        else:
            result = scorer.run(input=question, output=output_text, context=contexts or None)
    if as_json:
        typer.echo(redact(json.dumps(result.to_dict(), indent=2, ensure_ascii=False)))
        return
    if example:
        console.print(f"[bold]Context:[/bold] {safe(' '.join(contexts))}")
        console.print(f"[bold]Answer:[/bold] {safe(output_text)}\n")
    render_result(result, console, scale, title=f"{scorer.id.replace('-', ' ').capitalize()} score")


def register(app: typer.Typer) -> None:
    app.command()(score)
