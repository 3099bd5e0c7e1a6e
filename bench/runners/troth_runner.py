"""troth's faithfulness scorer as a benchmark runner (see _harness.py).

``TROTH_BENCH_REASON`` sets the scorer's ``reason`` mode (default ``auto``: the template, written
by code; ``judge``: written by the judge, one call more per item). ``TROTH_BENCH_STRATEGY`` sets its
``strategy`` (default ``auto``; ``single-pass``: claims and verdicts in one request).
``TROTH_BENCH_JUDGE=cascade`` puts the offline verifier first, with the endpoint as its second
opinion (only the claims in the verifier's uncertain band reach it; needs ``troth[verifier]``).
"""

from __future__ import annotations

import os
from typing import Any

import _harness
import openai  # noqa: F401  # the HTTP stack imported before the clock starts, as the peers' runners do

import troth


def factory(base_url: str, model: str) -> tuple[_harness.ScoreItem, _harness.Close]:
    http = judge = troth.Judge(model, base_url=base_url, api_key="bench", temperature=0.0)
    if os.environ.get("TROTH_BENCH_JUDGE") == "cascade":
        judge = troth.Judge("local", second_opinion=http)
    scorer = troth.create_faithfulness_scorer(
        judge,
        reason=os.environ.get("TROTH_BENCH_REASON", "auto"),
        strategy=os.environ.get("TROTH_BENCH_STRATEGY", "auto"),
    )

    async def score(item: dict[str, Any]) -> float:
        result = await scorer.arun(input=item.get("input") or None, output=item["output"], context=item["context"])
        return result.score

    async def close() -> None:
        await http.aclose()

    return score, close


if __name__ == "__main__":
    _harness.run("troth", troth.__version__, factory)
