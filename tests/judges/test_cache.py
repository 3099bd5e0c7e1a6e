"""The judge's memo: identical requests in flight share one answer."""

from __future__ import annotations

import asyncio

from troth.judges.cache import Memo


def test_memo_shares_one_answer() -> None:
    memo, runs = Memo(), []

    async def make() -> str:
        runs.append(1)
        await asyncio.sleep(0.01)
        return "answer"

    async def both() -> list[tuple[bool, str]]:
        return list(await asyncio.gather(memo.get_or_run("k", make), memo.get_or_run("k", make)))

    assert sorted(asyncio.run(both())) == [(False, "answer"), (True, "answer")] and runs == [1]
