"""Terminal rendering of results (rich). Text from users and judges goes through :func:`safe`:
known secrets redacted and rich markup escaped, so brackets print as they are."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from troth.prices import format_usd, total_cost
from troth.redaction import redact
from troth.textfiles import printable
from troth.values import ScoreResult, Verdict

VERDICT_STYLE = {"yes": "green", "no": "red", "unsure": "yellow"}


def safe(value: Any) -> str:
    """``value`` as text to embed in rich markup: secrets redacted, markup escaped, printable."""
    return escape(redact(printable(str(value))))


def claims_table(verdicts: Sequence[Verdict]) -> Table:
    """Claims with coloured verdicts, P(supported) when the judge gives it, and their evidence."""
    table = Table(show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("Claim")
    table.add_column("Verdict")
    table.add_column("Evidence")
    for i, v in enumerate(verdicts, 1):
        ev = v.evidence
        if ev is None:
            evidence = "-"
        elif ev.verified:
            evidence = f"\u201c{safe(ev.quote)}\u201d [dim](context {ev.context_index}, {ev.start}-{ev.end})[/dim]"
        else:
            evidence = f"[red]not in context:[/red] \u201c{safe(ev.quote)}\u201d"
        style = VERDICT_STYLE.get(v.verdict, "")
        verdict = f"[{style}]{safe(v.verdict)}[/{style}]" if style else safe(v.verdict)
        if v.unquoted:
            verdict += " [dim](no quote)[/dim]"
        if v.p_supported is not None:
            verdict += f" [dim]P(supported) {v.p_supported:.2f}[/dim]"
        table.add_row(str(i), safe(v.claim), verdict, evidence)
    return table


def render_result(result: ScoreResult, console: Console, scale: float, title: str = "Faithfulness score") -> None:
    """Score, reason and a per-claim table."""
    console.print(f"[bold]{title}:[/bold] {result.score:g} / {scale:g}")
    console.print(f"[bold]Reason:[/bold] {safe(result.reason)}")
    verdicts = result.verdicts
    if verdicts:
        console.print(claims_table(verdicts))
    used = sum(u.prompt_tokens + u.completion_tokens for u in result.usage.values())
    calls = sum(u.calls for u in result.usage.values())
    seconds = sum(u.latency_s for u in result.usage.values())
    cost = format_usd(total_cost(result.usage.values()))
    console.print(f"[dim]{calls} judge calls, {used:,} tokens, {seconds:.1f}s, cost {cost}[/dim]")
