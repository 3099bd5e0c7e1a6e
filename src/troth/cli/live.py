"""``troth live``: what the monitors stored over a window, per scorer."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from troth.bounds import check
from troth.cli.app import one_line_errors
from troth.cli.outputs import check_writable, writing
from troth.cli.render import safe
from troth.cli.runs import SinceOption, StoreOption, open_existing
from troth.live.summary import by_scorer, summarise_window, worst_runs
from troth.prices import format_usd
from troth.text.times import since_time


def live(
    store: StoreOption = None,
    since: SinceOption = "1h",
    threshold: Annotated[float, typer.Option(help="Count the scores below this.")] = 0.5,
    worst: Annotated[int, typer.Option(help="How many of the lowest scores to show per scorer.")] = 5,
    limit: Annotated[int, typer.Option(help="Read at most this many runs (newest first).")] = 100_000,
    report: Annotated[
        Path | None, typer.Option(help="Also write an HTML page: score over time, worst answers.")
    ] = None,
) -> None:
    """Summarise live scores: count, failures, mean, p10, share under --threshold, spend, worst items."""
    with one_line_errors():
        check("--threshold", threshold)
        check("--worst", worst, low=0)
        check("--limit", limit, low=1)
    check_writable(report=report)
    with one_line_errors(), closing(open_existing(store)) as opened:
        records = opened.list_runs(source="live", since=since_time(since), limit=limit)
    console = Console()
    if report is not None:
        from troth.report.live import write_live_html

        with writing("report", report):
            written = write_live_html(records, report, threshold=threshold, worst=worst)
        console.print(f"report: {safe(written)}")
    if not records:
        console.print(f"no live runs since {safe(since)}")
        return
    groups = by_scorer(records)
    table = Table(title=f"live scores since {safe(since)}")
    for col in ("scorer", "runs", "failed", "mean", "p10", f"< {threshold:g}", "spend"):
        table.add_column(col)
    for scorer_id, runs in groups.items():
        w = summarise_window(runs, threshold)
        table.add_row(
            safe(scorer_id),
            str(w.runs),
            str(w.failed),
            _num(w.mean),
            _num(w.p10),
            "-" if w.under is None else f"{w.under:.0%}",
            format_usd(w.spend_usd),
        )
    console.print(table)
    for scorer_id, runs in groups.items():
        for r in worst_runs(runs, worst):
            reason = (r.reason or "")[:160]
            console.print(f"[bold]{safe(scorer_id)}[/bold] {r.score:g}  trace {safe(r.trace_id)}: {safe(reason)}")


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def register(app: typer.Typer) -> None:
    app.command("live")(live)
