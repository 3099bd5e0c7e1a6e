"""The ``troth`` command line: one module per command."""

from __future__ import annotations

from troth.cli import compare as _compare
from troth.cli import eval as _eval
from troth.cli import live as _live
from troth.cli import models as _models
from troth.cli import runs as _runs
from troth.cli import score as _score
from troth.cli import ui as _ui
from troth.cli.app import app

_score.register(app)
_eval.register(app)
_runs.register(app)
_live.register(app)
_models.register(app)
_compare.register(app)
_ui.register(app)


def main() -> None:
    """Console-script entry point."""
    app()


__all__ = ["app", "main"]
