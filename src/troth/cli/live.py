"""``troth live``: what the monitors stored over a window, per scorer."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from troth.cli.app import one_line_errors
from troth.cli.render import money, safe
from troth.cli.runs import SinceOption, StoreOption, open_existing, since_time
from troth.store.base import RunRecord


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
        records = open_existing(store).list_runs(source="live", since=since_time(since), limit=limit)
    console = Console()
    if report is not None:
        from troth.report.live import write_live_html

        console.print(f"report: {safe(write_live_html(records, report, threshold=threshold, worst=worst))}")
    if not records:
        console.print(f"no live runs since {safe(since)}")
        return
    by_scorer: dict[str, list[RunRecord]] = {}
    for r in records:
        by_scorer.setdefault(r.scorer_id, []).append(r)
    table = Table(title=f"live scores since {safe(since)}")
    for col in ("scorer", "runs", "failed", "mean", "p10", f"< {threshold:g}", "spend"):
        table.add_column(col)
    for scorer_id, runs in sorted(by_scorer.items()):
        table.add_row(*summary_row(scorer_id, runs, threshold))
    console.print(table)
    for scorer_id, runs in sorted(by_scorer.items()):
        scored = sorted((r for r in runs if r.score is not None), key=lambda r: r.score or 0.0)[:worst]
        for r in scored:
            reason = (r.reason or "")[:160]
            console.print(f"[bold]{safe(scorer_id)}[/bold] {r.score:g}  trace {safe(r.trace_id)}: {safe(reason)}")


def summary_row(scorer_id: str, runs: list[RunRecord], threshold: float) -> list[str]:
    """Count, failures, mean, 10th percentile, share under ``threshold`` and spend of one scorer."""
    scores = sorted(r.score for r in runs if r.score is not None)
    costs = [r.cost_usd for r in runs]
    spend = None if any(c is None for c in costs) else sum(c for c in costs if c is not None)
    if not scores:
        return [safe(scorer_id), str(len(runs)), str(len(runs)), "-", "-", "-", money(spend)]
    p10 = scores[min(len(scores) - 1, int(0.1 * len(scores)))]
    under = sum(s < threshold for s in scores) / len(scores)
    return [safe(scorer_id), str(len(runs)), str(len(runs) - len(scores)), f"{sum(scores) / len(scores):.3f}",
            f"{p10:.3f}", f"{under:.0%}", money(spend)]  # fmt: skip


def register(app: typer.Typer) -> None:
    app.command("live")(live)
