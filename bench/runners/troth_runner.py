"""troth's faithfulness scorer as a benchmark runner (see _harness.py).

``TROTH_BENCH_REASON`` sets the scorer's ``reason`` mode (default ``auto``: written by the judge,
one call per item; ``template`` writes it by code). ``TROTH_BENCH_STRATEGY`` sets its
``strategy`` (default ``auto``; ``single-pass``: claims and verdicts in one request).
"""

from __future__ import annotations

import os
from typing import Any

import _harness
import openai  # noqa: F401  # the HTTP stack imported before the clock starts, as the peers' runners do

import troth


def factory(base_url: str, model: str) -> tuple[_harness.ScoreItem, _harness.Close]:
    judge = troth.Judge(model, base_url=base_url, api_key="bench", temperature=0.0)
    scorer = troth.create_faithfulness_scorer(judge, reason=os.environ.get("TROTH_BENCH_REASON", "auto"),
                                              strategy=os.environ.get("TROTH_BENCH_STRATEGY", "auto"))  # fmt: skip

    async def score(item: dict[str, Any]) -> float:
        result = await scorer.arun(input=item.get("input") or None, output=item["output"], context=item["context"])
        return result.score

    return score, judge.aclose


if __name__ == "__main__":
    _harness.run("troth", troth.__version__, factory)
