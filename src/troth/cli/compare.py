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
from rich.text import Text

from troth.bounds import check
from troth.cli.app import one_line_errors
from troth.cli.layout import WideOption, columns, field, pack, row_with_id, show_lines
from troth.cli.layout import console as layout_console
from troth.cli.outputs import check_writable, writing
from troth.cli.render import safe
from troth.cli.runs import StoreOption, open_existing
from troth.compare import Comparison, ScorerComparison, compare_evals


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
    limit: Annotated[int, typer.Option(help="Items shown, and claim changes shown.")] = 10,
    wide: WideOption = False,
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
    console = layout_console(wide)
    failed = comparison.gate(fail_if_worse, alpha, failed_tolerance) if fail_if_worse is not None else []
    if as_json:
        found = comparison.to_dict()
        if fail_if_worse is not None:
            found["gate"] = {"passed": not failed, "failures": failed}
        typer.echo(json.dumps(found, ensure_ascii=False, default=str))
    else:
        headline(comparison, console, None if fail_if_worse is None else not failed)
        show(comparison, console, limit, wide)
    if report is not None:
        console.print(f"report: {safe(str(written))}", highlight=False)
    for line in failed:
        typer.echo(f"gate failed: {safe(line)}", err=True)
    if failed:
        raise typer.Exit(1)


COLOURS = {"worse": "red", "better": "green", "no change": "default", "not compared": "yellow"}
STATUS_STYLE = {"worse": "red", "failed in B": "red", "better": "green", "fixed in B": "green"}


def headline(c: Comparison, console: Console, passed: bool | None) -> None:
    """The verdict first, one line per scorer (coloured and wrapped at words on a terminal, one
    line each when piped), and the gate's outcome."""
    for s in c.scorers.values():
        line = Text(s.headline(), style=COLOURS[s.verdict()])
        console.print(line, highlight=False, soft_wrap=not console.is_terminal)
    if passed is not None:
        console.print("gate: passed" if passed else "[red]gate: failed[/red]", highlight=False)


def show(c: Comparison, console: Console, limit: int, wide: bool = False) -> None:
    """The scorers' statistics, the notes, the worst items and their changed claims: packed into
    the terminal's width (no id or header is cut), or as full tables under ``--wide``."""
    (_scorer_table if wide else _scorer_fields)(c, console)
    for note in c.notes:
        console.print(f"[yellow]note:[/yellow] {safe(note)}", highlight=False)
    (_item_table if wide else _items)(c, console, limit)
    _claim_changes(c, console, limit)
    if c.only_a or c.only_b:
        console.print(f"in A only: {len(c.only_a)}; in B only: {len(c.only_b)}", highlight=False)


def _scorer_fields(c: Comparison, console: Console) -> None:
    width = console.width
    show_lines(console, pack([field("B", c.b, "bold"), field("against A", c.a, "bold")], width))
    for sid, s in c.scorers.items():
        console.print(Text(sid, style="bold"), soft_wrap=True)
        show_lines(console, pack(_stats_fields(s), width, indent=2))


def _stats_fields(s: ScorerComparison) -> list[Text]:
    p = s.stats
    failed = field("failed A / B", f"{s.failed_a} / {s.failed_b}")
    if p is None:
        return [field("items", "0"), failed]
    found = [
        field("items", str(p.n)),
        field("mean A", f"{p.mean_a:.3f}"),
        field("mean B", f"{p.mean_b:.3f}"),
        field("B - A", f"{p.mean_diff:+.3f}"),
    ]
    if p.ci_low is not None:
        found.append(field("95% CI", f"[{p.ci_low:+.3f}, {p.ci_high:+.3f}]"))
    if p.p_value is not None:
        found.append(field("p", f"{p.p_value:.3g}"))
    return [*found, failed]


ITEM_WIDTHS = (5, 5, 14, 6)


def _items(c: Comparison, console: Console, limit: int) -> None:
    """The worst ``limit`` items: scores and status in fixed columns, then the id (on its own line
    when the line is too narrow for it)."""
    shown = c.items[:limit]
    several = len(c.scorers) > 1
    more = f" ({len(shown)} of {len(c.items)}: --limit N)" if len(shown) < len(c.items) else ""
    console.print(Text(f"items, worst first{more}", style="bold"), soft_wrap=True)
    header = columns(("A", "B", "change", "claims"), ITEM_WIDTHS, left=(2,)) + "  item"
    console.print(header, style="dim", soft_wrap=True, highlight=False)
    for d in shown:
        score = ["-" if x is None else f"{x:.2f}" for x in (d.score_a, d.score_b)]
        numbers = columns((*score, d.status, str(len(d.changes))), ITEM_WIDTHS, left=(2,))
        ident = Text(d.item_id) + (Text(f" ({d.scorer_id})", style="dim") if several else Text())
        lines = row_with_id(numbers, ident, console.width)
        for line in lines:
            line.highlight_words([d.status], STATUS_STYLE.get(d.status, ""))
        show_lines(console, lines)


def _claim_changes(c: Comparison, console: Console, limit: int) -> None:
    """The changed claims of the worst items (worse or failed in B), ``limit`` lines at most."""
    changed = [d for d in c.items if d.changes and d.status in ("worse", "failed in B")]
    total, shown = sum(len(d.changes) for d in changed), 0
    if total:
        console.print(Text("claims whose verdict changed, worst items first", style="bold"), soft_wrap=True)
    several = len(c.scorers) > 1
    for d in changed:
        if shown >= limit:
            break
        scorer = Text(f" ({d.scorer_id})", style="dim") if several else Text()
        console.print(Text(d.item_id, style="bold") + scorer, soft_wrap=True)
        for ch in d.changes[: limit - shown]:
            evidence = f" - evidence: \u201c{safe(ch.evidence_b)}\u201d" if ch.evidence_b else ""
            console.print(
                f"  {safe(ch.claim)}: {ch.verdict_a or '-'} -> {ch.verdict_b or '-'}{evidence}", highlight=False
            )
            shown += 1
    if total > shown:
        console.print(f"... {total - shown} more claim changes: --limit N, or --json", style="dim", highlight=False)


def _scorer_table(c: Comparison, console: Console) -> None:
    table = Table(title=f"{safe(c.b)} against {safe(c.a)}")
    for col in ("scorer", "items", "mean A", "mean B", "B - A", "95% CI", "p", "failed A / B"):
        table.add_column(col)
    for sid, s in c.scorers.items():
        p = s.stats
        cells = (
            ["-"] * 6
            if p is None
            else [
                str(p.n),
                f"{p.mean_a:.3f}",
                f"{p.mean_b:.3f}",
                f"{p.mean_diff:+.3f}",
                "-" if p.ci_low is None else f"[{p.ci_low:+.3f}, {p.ci_high:+.3f}]",
                "-" if p.p_value is None else f"{p.p_value:.3g}",
            ]
        )
        table.add_row(safe(sid), *cells, f"{s.failed_a} / {s.failed_b}")
    console.print(table)


def _item_table(c: Comparison, console: Console, limit: int) -> None:
    items = Table(title="items, worst first")
    for col in ("item", "scorer", "A", "B", "change", "claims changed"):
        items.add_column(col)
    for d in c.items[:limit]:
        score = ["-" if x is None else f"{x:g}" for x in (d.score_a, d.score_b)]
        items.add_row(safe(d.item_id), safe(d.scorer_id), *score, d.status, str(len(d.changes)))
    console.print(items)


def register(app: typer.Typer) -> None:
    app.command("compare")(compare)


__all__ = ["compare", "register"]
