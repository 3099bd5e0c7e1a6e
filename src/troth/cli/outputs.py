"""Files the CLI writes (``--out``, ``--report``): checked writable before any judge call is paid
for, and written with a failure said in one line, exit status 3."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer

from troth.redaction import redact
from troth.textfiles import printable

CANNOT_WRITE = 3


def check_writable(**paths: Path | None) -> None:
    """Exit with status 3 and one line naming the option unless each given path can be written,
    tried by opening it (a file that was not there is removed again)."""
    for name, path in paths.items():
        if path is not None and (problem := _problem(path)) is not None:
            _fail(name, path, problem)


def _problem(path: Path) -> str | None:
    if path.is_dir():
        return "it is a folder"
    existed = path.exists()
    try:
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        return exc.strerror or str(exc)
    if not existed:
        path.unlink(missing_ok=True)
    return None


@contextmanager
def writing(name: str, path: Path) -> Iterator[None]:
    """Write under this: an OSError (disk full, a path that changed) is one line and exit 3."""
    try:
        yield
    except OSError as exc:
        _fail(name, path, exc.strerror or str(exc))


def _fail(name: str, path: Path, problem: str) -> None:
    option = "--" + name.replace("_", "-")
    typer.echo(f"error: cannot write {option} {printable(redact(str(path)))}: {problem}", err=True)
    raise typer.Exit(CANNOT_WRITE)
