"""Settings that a batch run gives every judge call made inside it (through a context variable).

``run_evals`` sets a judge-call cache (the store), one semaphore bounding the judge calls in
flight across the whole run and, with a rate limit, the pacer every call waits on; outside a
batch run all are absent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

from troth.ratelimit import Pacer


class CallCache(Protocol):
    def cache_get(self, key: str) -> dict[str, Any] | None: ...

    def cache_put(self, key: str, model: str, value: dict[str, Any]) -> None: ...


@dataclass(frozen=True)
class RunSettings:
    cache: CallCache | None = None
    limiter: asyncio.Semaphore | None = None
    pacer: Pacer | None = None
    on_wait: Callable[[float], None] | None = None  # a long rate-limit wait, for the progress line


RUN_SETTINGS: ContextVar[RunSettings | None] = ContextVar("troth_run_settings", default=None)
