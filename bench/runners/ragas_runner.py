"""RAGAS ``Faithfulness`` (collections API) as a benchmark runner (see _harness.py).

Runs in bench/peers/.venv-ragas (created by bench/peers/setup.sh).
"""

from __future__ import annotations

import os

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")  # no usage analytics from the benchmark

import math
from importlib.metadata import version
from typing import Any

import _harness
from openai import AsyncOpenAI
from ragas.llms.base import llm_factory
from ragas.metrics.collections import Faithfulness

NO_QUESTION = "What does the text say?"  # RAGAS requires a question; the data sets have none


def factory(base_url: str, model: str) -> tuple[_harness.ScoreItem, _harness.Close]:
    client = AsyncOpenAI(base_url=base_url, api_key="bench")
    metric = Faithfulness(llm=llm_factory(model, client=client, temperature=0.0))

    async def score(item: dict[str, Any]) -> float:
        result = await metric.ascore(
            user_input=item.get("input") or NO_QUESTION,
            response=item["output"],
            retrieved_contexts=item["context"],
        )
        value = float(result.value)
        if math.isnan(value):
            raise ValueError("RAGAS returned NaN (no statements)")
        return value

    return score, client.close


if __name__ == "__main__":
    _harness.run("ragas", version("ragas"), factory)
