"""The UI served by uvicorn in a thread of this process, on a free loopback port (for tests,
benchmarks and notebooks; ``troth ui`` serves in the foreground)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from troth.extras import load
from troth.ui.app import create_app


@contextmanager
def serving(store: str | Path, host: str = "127.0.0.1") -> Iterator[str]:
    """The UI over ``store`` until the ``with`` block ends; yields its base URL."""
    uvicorn = load("uvicorn", "ui")
    with socket.socket() as s:
        s.bind((host, 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(store), host=host, port=port, log_level="error"))
    thread = threading.Thread(target=server.run, name="troth-ui", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    if not server.started:
        raise RuntimeError(f"the UI did not start on {host}:{port}")
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
