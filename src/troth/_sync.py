"""Run a coroutine from synchronous code, also when an event loop is already running."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``asyncio.run`` the coroutine; inside a running loop (Jupyter), use a worker thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass  # no loop here: run below, so that errors do not carry this one as their context
    else:
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="troth-sync") as pool:
            return pool.submit(lambda: asyncio.run(factory())).result()
    return asyncio.run(factory())
