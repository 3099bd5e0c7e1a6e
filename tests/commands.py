"""The ``troth`` command run as a user runs it: a subprocess of this interpreter, its output as text."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def troth(
    *args: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    columns: int | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python -m troth ARGS``; ``env`` added to this process's, ``columns`` the terminal width
    rich assumes (wide: table cells unwrapped)."""
    extra = {**(env or {}), **({"COLUMNS": str(columns)} if columns else {})}
    return subprocess.run(
        [sys.executable, "-m", "troth", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
        cwd=cwd,
        env={**os.environ, **extra},
    )
