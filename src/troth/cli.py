"""The ``troth`` command line: ``score`` one answer, ``models list`` for the offline judge."""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from troth.errors import TrothError
from troth.judges.local_models import list_models
from troth.scorers.faithfulness import create_faithfulness_scorer
from troth.types import ScoreResult

app = typer.Typer(
    help="troth: is an LLM's answer faithful to its context?",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
models_app = typer.Typer(help="Models for the offline judge.", no_args_is_help=True)
app.add_typer(models_app, name="models")

VERDICT_STYLE = {"yes": "green", "no": "red", "unsure": "yellow"}


def _read(value: str, option: str) -> str:
    """``TEXT`` as is, ``@path`` read from a file, ``@-`` from stdin."""
    if not value.startswith("@"):
        return value
    target = value[1:]
    if target == "-":
        return sys.stdin.read()
    try:
        return Path(target).read_text(encoding="utf-8")
    except OSError as exc:
        raise typer.BadParameter(f"cannot read {target}: {exc.strerror}", param_hint=option) from exc


def _example() -> dict[str, Any]:
    data = resources.files("troth").joinpath("examples/model3.json").read_text(encoding="utf-8")
    result: dict[str, Any] = json.loads(data)
    return result


def render_result(result: ScoreResult, console: Console, scale: float) -> None:
    """Score, reason and a per-claim table with coloured verdicts."""
    console.print(f"[bold]Faithfulness score:[/bold] {result.score:g} / {scale:g}")
    console.print(f"[bold]Reason:[/bold] {result.reason}")
    verdicts = (result.analyze_step_result or {}).get("verdicts", [])
    if not verdicts:
        return
    table = Table(show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("Claim")
    table.add_column("Verdict")
    table.add_column("Evidence")
    for i, v in enumerate(verdicts, 1):
        ev = v.get("evidence")
        if ev is None:
            evidence = "-"
        elif ev["verified"]:
            evidence = (
                f"\u201c{ev['quote']}\u201d [dim](context {ev['context_index']}, {ev['start']}-{ev['end']})[/dim]"
            )
        else:
            evidence = f"[red]not in context:[/red] \u201c{ev['quote']}\u201d"
        style = VERDICT_STYLE.get(v["verdict"], "")
        table.add_row(str(i), v["claim"], f"[{style}]{v['verdict']}[/{style}]", evidence)
    console.print(table)
    used = sum(u.prompt_tokens + u.completion_tokens for u in result.usage.values())
    calls = sum(u.calls for u in result.usage.values())
    seconds = sum(u.latency_s for u in result.usage.values())
    console.print(f"[dim]{calls} judge calls, {used:,} tokens, {seconds:.1f}s[/dim]")


@app.command()
def score(
    output: Annotated[str | None, typer.Option(help="The answer to check: TEXT, @file or @- (stdin).")] = None,
    context: Annotated[list[str] | None, typer.Option(help="A context segment: TEXT or @file; repeatable.")] = None,
    input: Annotated[str | None, typer.Option("--input", help="The question (TEXT or @file).")] = None,
    model: Annotated[str, typer.Option(help="Judge: 'provider/model' or 'local'.")] = "local",
    base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible server URL (then --model is its name).")
    ] = None,
    scale: Annotated[float, typer.Option(help="Maximum score.")] = 1.0,
    example: Annotated[bool, typer.Option("--example", help="Score the bundled example.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Score one answer's faithfulness to its context."""
    from troth.judges.judge import Judge

    if example:
        data = _example()
        output_text, contexts, question = data["output"], data["context"], data["input"]
    else:
        if output is None:
            raise typer.BadParameter("give --output (or --example)", param_hint="--output")
        output_text = _read(output, "--output")
        contexts = [_read(c, "--context") for c in context or []]
        question = _read(input, "--input") if input else None
    console = Console(stderr=False)
    try:
        judge = Judge(model, base_url=base_url) if base_url else model
        scorer = create_faithfulness_scorer(judge, scale=scale)
        with console.status("Scoring…", spinner="dots") if console.is_terminal else _null():
            result = scorer.run(input=question, output=output_text, context=contexts or None)
    except (TrothError, ValueError, TypeError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        if example:
            console.print(f"[bold]Context:[/bold] {' '.join(contexts)}")
            console.print(f"[bold]Answer:[/bold] {output_text}\n")
        render_result(result, console, scale)


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


@models_app.command("list")
def models_list() -> None:
    """Show the local models that troth can find."""
    console = Console()
    table = Table()
    table.add_column("Model")
    table.add_column("Installed")
    table.add_column("Description")
    table.add_column("Size / how to install")
    for row in list_models():
        mark = "[green]yes[/green]" if row.installed else "[red]no[/red]"
        table.add_row(row.name, mark, row.description, row.detail)
    console.print(table)


def main() -> None:
    """Console-script entry point."""
    app()
