"""run_sync: a coroutine run from synchronous code, with or without a running event loop."""

from __future__ import annotations

import asyncio
import threading

import pytest

from troth._sync import run_sync


async def fail() -> None:
    raise ValueError("boom")


def test_an_error_from_the_coroutine_does_not_carry_the_loop_check_as_its_context() -> None:
    with pytest.raises(ValueError, match="boom") as info:
        run_sync(fail)
    assert info.value.__context__ is None  # not "RuntimeError: no running event loop"


def test_inside_a_running_loop_the_coroutine_runs_on_a_worker_thread_and_returns() -> None:
    async def where() -> str:
        return threading.current_thread().name

    async def caller() -> str:
        return run_sync(where)

    assert asyncio.run(caller()).startswith("troth-sync")
    assert run_sync(where) == threading.current_thread().name
