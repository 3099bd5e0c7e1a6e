"""The Typer application and helpers shared by the commands."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer

from troth.errors import TrothError
from troth.redaction import redact
from troth.textfiles import decode_text, printable, read_text

app = typer.Typer(
    help="troth: is an LLM's answer faithful to its context?",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def read_arg(value: str, option: str) -> str:
    """``TEXT`` as is, ``@path`` read from a file, ``@-`` from stdin."""
    if not value.startswith("@"):
        return value
    target = value[1:]
    try:
        return decode_text(sys.stdin.buffer.read(), "stdin") if target == "-" else read_text(Path(target))
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint=option) from None


@contextmanager
def one_line_errors() -> Iterator[None]:
    """Turn troth's and bad-argument errors into one line on stderr and exit status 2."""
    try:
        yield
    except (TrothError, ValueError, TypeError) as exc:
        typer.echo(f"error: {printable(redact(str(exc)))}", err=True)
        raise typer.Exit(2) from None


class _HeldBack(logging.Filter):
    """Drops ``run_evals``'s line on what failed (the command says it itself, last)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(record, "failure_line", False)


@contextmanager
def failures_said_last() -> Iterator[None]:
    """``run_evals``'s line on what failed held back: the command says it last, after its summary."""
    held = _HeldBack()
    logger = logging.getLogger("troth")
    logger.addFilter(held)
    try:
        yield
    finally:
        logger.removeFilter(held)
