"""Output that fits the terminal: labelled fields packed into lines without cutting a value (an
id longer than the line gets a line of its own), and ``--wide`` for the full tables."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

GAP = "   "
WIDE = 100_000
"""Console width under ``--wide``: a table as wide as its content (the terminal wraps it)."""

WideOption = Annotated[bool, typer.Option("--wide", help="The full table, however wide (default: fit the terminal).")]


def console(wide: bool = False) -> Console:
    """A console for standard output: colour on a terminal, none when piped; ``wide`` lifts the
    width limit so that a table is never cut."""
    return Console(width=WIDE) if wide else Console()


def field(label: str, value: str, style: str = "") -> Text:
    """``label value``, the label dim; the value is plain text (no markup)."""
    text = Text()
    if label:
        text.append(label + " ", style="dim")
    text.append(value, style=style)
    return text


def pack(parts: Iterable[Text], width: int, indent: int = 0) -> list[Text]:
    """``parts`` joined by a gap into lines at most ``width`` cells wide, each indented by
    ``indent``; a part is never split: one wider than the line stands on its own line."""
    lines: list[Text] = []
    line = Text(" " * indent)
    for part in parts:
        if line.cell_len > indent and line.cell_len + len(GAP) + part.cell_len > width:
            lines.append(line)
            line = Text(" " * indent)
        if line.cell_len > indent:
            line.append(GAP)
        line.append_text(part)
    if line.cell_len > indent:
        lines.append(line)
    return lines


def show_lines(out: Console, lines: Sequence[Text]) -> None:
    """Print ``lines`` as they are: none is wrapped by rich or cut (soft wrap)."""
    for line in lines:
        out.print(line, soft_wrap=True, highlight=False)


def columns(cells: Sequence[str], widths: Sequence[int], left: Sequence[int] = ()) -> str:
    """Cells in fixed ``widths``, two spaces apart: right-aligned (numbers that line up), the
    columns numbered in ``left`` left-aligned."""
    pairs = enumerate(zip(cells, widths, strict=True))
    return "  ".join(cell.ljust(w) if i in left else cell.rjust(w) for i, (cell, w) in pairs)


def row_with_id(numbers: str, ident: Text, width: int) -> list[Text]:
    """A row of fixed-width numbers followed by an id: on one line when it fits, else the id on a
    line of its own above the numbers (so that the id is never cut)."""
    head = Text(numbers)
    if head.cell_len + 2 + ident.cell_len <= width:
        return [head + Text("  ") + ident]
    return [ident, head]
