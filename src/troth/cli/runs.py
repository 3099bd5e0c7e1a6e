"""``troth runs list`` / ``troth runs show RUN_ID``: read the store."""

from __future__ import annotations

import json
from contextlib import closing
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from troth.bounds import check
from troth.cli.app import one_line_errors
from troth.cli.layout import WideOption, field, pack, show_lines
from troth.cli.layout import console as layout_console
from troth.cli.render import claims_table, safe
from troth.prices import format_usd
from troth.redaction import redact
from troth.store import Store, open_store, store_path
from troth.store.base import RunRecord
from troth.text.times import readable_time, since_time
from troth.textfiles import printable

runs_app = typer.Typer(help="Saved scorer runs.", no_args_is_help=True)

StoreOption = Annotated[
    Path | None, typer.Option("--store", help="SQLite store (default: $TROTH_STORE or ./.troth/troth.db).")
]


SinceOption = Annotated[
    str | None, typer.Option(help="Only runs finished since: a duration (30m, 2h, 7d) or an ISO time.")
]


def open_existing(store: Path | None) -> Store:
    """The store named by ``--store`` (else ``$TROTH_STORE``, else ``./.troth/troth.db``), which
    must exist, opened read-only."""
    return open_store(store_path(store), read_only=True)


@runs_app.command("list")
def runs_list(
    store: StoreOption = None,
    eval_id: Annotated[str | None, typer.Option(help="Only runs of this evaluation.")] = None,
    source: Annotated[str | None, typer.Option(help="Only runs from: eval, live or pytest.")] = None,
    since: SinceOption = None,
    limit: Annotated[int, typer.Option(help="How many (newest first).")] = 20,
    wide: WideOption = False,
) -> None:
    """List the newest saved runs: time, score, scorer and source on one line, the run, evaluation
    and item ids below (``--wide``: one table row per run)."""
    with one_line_errors():
        check("--limit", limit, low=1)
    with one_line_errors(), closing(open_existing(store)) as opened:
        records = opened.list_runs(eval_id=eval_id, limit=limit, source=source, since=since_time(since))
    console = layout_console(wide)
    if wide:
        console.print(_runs_table(records))
        return
    for r in records:
        score = Text("-" if r.score is None else f"{r.score:g}", style="bold")
        head = [Text(readable_time(r.finished_at) or "-", style="dim"), score, Text(r.scorer_id), Text(r.source)]
        ids = [field("run", r.run_id, "cyan"), field("eval", r.eval_id or "-"), field("item", r.item_id or "-")]
        show_lines(console, pack(head, console.width) + pack(ids, console.width, indent=2))
        if r.error:
            console.print(f"  [red]{safe(r.error_step)}: {safe(r.error[:200])}[/red]", highlight=False)


def _runs_table(records: list[RunRecord]) -> Table:
    table = Table()
    for col in ("run id", "source", "eval", "item / trace", "scorer", "score", "error", "finished"):
        table.add_column(col)
    for r in records:
        score = "-" if r.score is None else f"{r.score:g}"
        error = f"[red]{safe(r.error_step)}: {safe(r.error[:60])}[/red]" if r.error else ""
        cells = (r.run_id, r.source, r.eval_id or "", r.item_id or "", r.scorer_id)
        table.add_row(*(safe(c) for c in cells), score, error, r.finished_at or "")
    return table


@runs_app.command("show")
def runs_show(
    run_id: Annotated[str, typer.Argument(help="The run id.")],
    store: StoreOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the saved record as JSON.")] = False,
) -> None:
    """Show one saved run: score, reason, claims and verdicts."""
    with one_line_errors():
        with closing(open_existing(store)) as opened:
            record = opened.get_run(run_id)
        if record is None:
            raise ValueError(f"no run {run_id!r} in the store")
    if as_json:
        typer.echo(printable(redact(json.dumps(asdict(record), indent=2, ensure_ascii=False, default=str))))
        return
    console = Console()
    console.print(f"[bold]Run[/bold] {safe(record.run_id)}  eval {safe(record.eval_id)}  item {safe(record.item_id)}")
    console.print(
        f"[bold]Scorer[/bold] {safe(record.scorer_id)} ({safe(record.prompt_version)}), "
        f"judge {safe(record.judge_model)}"
    )
    if record.error:
        console.print(f"[red]Failed in step {safe(record.error_step)}: {safe(record.error)}[/red]")
        return
    console.print(f"[bold]Score:[/bold] {record.score:g}  [dim]cost {format_usd(record.cost_usd)}[/dim]")
    console.print(f"[bold]Reason:[/bold] {safe(record.reason)}")
    if record.verdicts:
        console.print(claims_table(record.verdicts))


def register(app: typer.Typer) -> None:
    app.add_typer(runs_app, name="runs")
