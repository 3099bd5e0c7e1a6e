"""DeepEval ``FaithfulnessMetric`` as a benchmark runner (see _harness.py).

Runs in bench/peers/.venv-deepeval (created by bench/peers/setup.sh). DeepEval's ``GPTModel``
only accepts OpenAI model names, so it is built as ``gpt-4o-mini`` (which turns on its
structured-output path) pointed at the benchmark's endpoint; the server ignores the name.
"""

from __future__ import annotations

import os

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")  # no network from the benchmark

from importlib.metadata import version
from typing import Any

import _harness
from deepeval.metrics import FaithfulnessMetric
from deepeval.models import GPTModel
from deepeval.test_case import LLMTestCase

MODEL_NAME = "gpt-4o-mini"
NO_QUESTION = "What does the text say?"


def factory(base_url: str, model: str) -> tuple[_harness.ScoreItem, _harness.Close]:
    judge = GPTModel(model=MODEL_NAME, base_url=base_url, api_key="bench", temperature=0.0)

    async def score(item: dict[str, Any]) -> float:
        metric = FaithfulnessMetric(model=judge, async_mode=True)  # a metric keeps one case's state
        case = LLMTestCase(
            input=item.get("input") or NO_QUESTION, actual_output=item["output"], retrieval_context=item["context"]
        )
        value = await metric.a_measure(case, _show_indicator=False)
        if metric.error:
            raise RuntimeError(metric.error)
        return float(value)

    return score, None


if __name__ == "__main__":
    _harness.run("deepeval", version("deepeval"), factory)
