"""``troth ui``: the local, read-only web app over the store."""

from __future__ import annotations

from typing import Annotated

import typer

from troth.bounds import check
from troth.cli.app import one_line_errors
from troth.cli.runs import StoreOption, open_existing
from troth.extras import require


def ui(
    store: StoreOption = None,
    host: Annotated[str, typer.Option(help="Address to listen on (default: this machine only).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
) -> None:
    """Browse every evaluation, item and live score in a web browser (read-only)."""
    with one_line_errors():
        check("--port", port, low=1, high=65535)
        require("ui")
        open_existing(store).close()  # a missing or corrupt store is one line here, not a traceback per page
        from troth.ui.app import create_app

        app = create_app(store)
    import uvicorn

    typer.echo(f"troth ui on http://{host}:{port}/ (Ctrl-C to stop)")
    uvicorn.run(app, host=host, port=port, log_level="warning")


def register(app: typer.Typer) -> None:
    app.command("ui")(ui)
