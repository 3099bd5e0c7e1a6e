"""``troth compare A B``: did evaluation B get worse than A? A table (worst first), ``--json``,
``--report``, and a CI gate (``--fail-if-worse DELTA``: exit 1 when B's mean is lower by more
than DELTA and the difference is significant, when no item was scored in both, or when more items
failed in B than in A beyond ``--failed-tolerance``; 2 for bad input)."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from troth.cli.app import one_line_errors
from troth.cli.bounds import check
from troth.cli.outputs import check_writable, writing
from troth.cli.render import safe
from troth.cli.runs import StoreOption, open_existing
from troth.compare import Comparison, compare_evals


def compare(
    a: Annotated[str, typer.Argument(help="The baseline evaluation id.")],
    b: Annotated[str, typer.Argument(help="The candidate evaluation id.")],
    store: StoreOption = None,
    scorer: Annotated[list[str] | None, typer.Option(help="Only this scorer (repeatable).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="The whole comparison as JSON.")] = False,
    report: Annotated[Path | None, typer.Option(help="Also write a self-contained HTML page.")] = None,
    fail_if_worse: Annotated[
        float | None, typer.Option(help="Exit 1 when B's mean is lower than A's by more than this, significantly.")
    ] = None,
    alpha: Annotated[float, typer.Option(help="Significance level of --fail-if-worse.")] = 0.05,
    failed_tolerance: Annotated[
        int, typer.Option(help="With --fail-if-worse: how many more items may fail in B than in A.")
    ] = 0,
    limit: Annotated[int, typer.Option(help="Items shown in the table.")] = 20,
) -> None:
    """Compare two evaluations item by item: scores, claims whose verdict changed, and per scorer
    the mean difference with a 95% paired bootstrap interval and a Wilcoxon p-value."""
    with one_line_errors():
        check("--fail-if-worse", fail_if_worse, low=0)
        check("--alpha", alpha, low=0, high=1, strict=True)
        check("--limit", limit, low=0)
        check("--failed-tolerance", failed_tolerance, low=0)
    check_writable(report=report)
    with one_line_errors():
        with closing(open_existing(store)) as opened:
            comparison = compare_evals(a, b, store=opened, scorers=scorer or None)
        if report is not None:
            from troth.ui.render import write_comparison

            with writing("report", report):
                written = write_comparison(comparison, report)
    console = Console()
    failed = comparison.gate(fail_if_worse, alpha, failed_tolerance) if fail_if_worse is not None else []
    if as_json:
        found = comparison.to_dict()
        if fail_if_worse is not None:
            found["gate"] = {"passed": not failed, "failures": failed}
        typer.echo(json.dumps(found, ensure_ascii=False, default=str))
    else:
        headline(comparison, console, None if fail_if_worse is None else not failed)
        show(comparison, console, limit)
    if report is not None:
        console.print(f"report: {safe(str(written))}", highlight=False)
    for line in failed:
        typer.echo(f"gate failed: {safe(line)}", err=True)
    if failed:
        raise typer.Exit(1)


COLOURS = {"worse": "red", "better": "green", "no change": "default", "not compared": "yellow"}


def headline(c: Comparison, console: Console, passed: bool | None) -> None:
    """The verdict first, one line per scorer (coloured on a terminal), and the gate's outcome."""
    for s in c.scorers.values():
        console.print(f"[{COLOURS[s.verdict()]}]{safe(s.headline())}[/]", highlight=False, soft_wrap=True)
    if passed is not None:
        console.print("gate: passed" if passed else "[red]gate: failed[/red]", highlight=False)


def show(c: Comparison, console: Console, limit: int) -> None:
    """The scorers' table, the notes, the worst items and their changed claims."""
    table = Table(title=f"{safe(c.b)} against {safe(c.a)}")
    for col in ("scorer", "items", "mean A", "mean B", "B - A", "95% CI", "p", "failed A / B"):
        table.add_column(col)
    for sid, s in c.scorers.items():
        p = s.stats
        cells = ["-"] * 6 if p is None else [
            str(p.n), f"{p.mean_a:.3f}", f"{p.mean_b:.3f}", f"{p.mean_diff:+.3f}",
            "-" if p.ci_low is None else f"[{p.ci_low:+.3f}, {p.ci_high:+.3f}]",
            "-" if p.p_value is None else f"{p.p_value:.3g}",
        ]  # fmt: skip
        table.add_row(safe(sid), *cells, f"{s.failed_a} / {s.failed_b}")
    console.print(table)
    for note in c.notes:
        console.print(f"[yellow]note:[/yellow] {safe(note)}", highlight=False)
    items = Table(title="items, worst first")
    for col in ("item", "scorer", "A", "B", "change", "claims changed"):
        items.add_column(col)
    for d in c.items[:limit]:
        score = ["-" if x is None else f"{x:g}" for x in (d.score_a, d.score_b)]
        items.add_row(safe(d.item_id), safe(d.scorer_id), *score, d.status, str(len(d.changes)))
    console.print(items)
    for d in [d for d in c.items[:limit] if d.changes and d.status in ("worse", "failed in B")][:5]:
        console.print(f"[bold]{safe(d.item_id)}[/bold] ({safe(d.scorer_id)}):", highlight=False)
        for ch in d.changes:
            evidence = f" - evidence: \u201c{safe(ch.evidence_b)}\u201d" if ch.evidence_b else ""
            console.print(f"  {safe(ch.claim)}: {ch.verdict_a or '-'} -> {ch.verdict_b or '-'}{evidence}",
                          highlight=False)  # fmt: skip
    if c.only_a or c.only_b:
        console.print(f"in A only: {len(c.only_a)}; in B only: {len(c.only_b)}")


def register(app: typer.Typer) -> None:
    app.command("compare")(compare)


__all__ = ["compare", "register"]
