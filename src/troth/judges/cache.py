"""Judge answers kept for reuse: the in-memory memo of one judge, and the key of a stored call."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any


def cache_key(model: str, messages: list[dict[str, str]], schema: dict[str, Any] | None, **settings: Any) -> str:
    """Hash of everything that determines a completion: model, messages, schema and settings."""
    payload = json.dumps([model, messages, schema, settings], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


class Memo:
    """Answers kept by key (LRU), with requests still in flight shared by their waiters."""

    def __init__(self, size: int = 256) -> None:
        self._size = size
        self._done: OrderedDict[str, Any] = OrderedDict()
        self._pending: dict[tuple[int, str], asyncio.Future[Any]] = {}

    async def get_or_run(self, key: str, factory: Callable[[], Awaitable[Any]]) -> tuple[bool, Any]:
        """``(True, value)`` from memory, or ``(False, value)`` after running ``factory``."""
        if key in self._done:
            self._done.move_to_end(key)
            return True, self._done[key]
        loop = asyncio.get_running_loop()
        pending_key = (id(loop), key)
        if pending_key in self._pending:
            return True, await asyncio.shield(self._pending[pending_key])
        future: asyncio.Future[Any] = loop.create_future()
        self._pending[pending_key] = future
        try:
            value = await factory()
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: waiters re-raise it themselves
            raise
        finally:
            del self._pending[pending_key]
        future.set_result(value)
        self._done[key] = value
        if len(self._done) > self._size:
            self._done.popitem(last=False)
        return False, value
