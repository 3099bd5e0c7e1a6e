"""``troth models list``: the models of the in-process judges: the claim verifier (``local``,
also ``verifier``) and the local LLM (``llm``)."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table

models_app = typer.Typer(
    help="Models of the in-process judges (the claim verifier, the local LLM).", no_args_is_help=True
)


@models_app.command("list")
def models_list() -> None:
    """Show the local models that troth can find."""
    from troth.judges.backends.llama_models import list_models
    from troth.judges.backends.verifier import find_verifier, packaged_verifiers

    table = Table()
    table.add_column("Model")
    table.add_column("Installed")
    table.add_column("Description")
    table.add_column("Size / how to install")
    for name in packaged_verifiers():
        card = find_verifier(name).card
        detail = f"ships with troth; {card.get('base', '')}"
        table.add_row(f"verifier/{name}", "[green]yes[/green]", "claim verifier (the default, 'local')", detail)
    for row in list_models():
        mark = "[green]yes[/green]" if row.installed else "[red]no[/red]"
        table.add_row(row.name, mark, row.description, row.detail)
    Console().print(table)


def register(app: typer.Typer) -> None:
    app.add_typer(models_app, name="models")
