"""Verdict strategies: chosen from what a backend declares, and the rule that turns answer
probabilities into a verdict (local judge)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from pydantic import BaseModel

from troth import Judge, create_faithfulness_scorer
from troth.errors import ConfigError
from troth.judges.base import BackendBase, Completion, CompletionRequest, Message, PairScores
from troth.judges.capabilities import Capabilities
from troth.judges.plans import plan_for
from troth.judges.plans.batched import BatchedVerdicts
from troth.judges.plans.cascade import CascadeVerdicts
from troth.judges.plans.choice import ChoiceVerdicts, decide
from troth.judges.plans.pairs import PairVerdicts
from troth.text.overlap import features
from troth.values import Evidence


class WordPairs(BackendBase):
    """A pair classifier in a dozen lines: supported when every claim word is in the passage."""

    def __init__(self) -> None:
        self.model_id = "test/word-pairs"
        self.capabilities = Capabilities(generates=False, classify_pairs=True, yes_threshold=0.5)
        self.seen: list[tuple[str, str]] = []

    async def classify(self, pairs: Sequence[tuple[str, str]]) -> list[PairScores]:
        self.seen += pairs
        out = []
        for passage, claim in pairs:
            share = features(passage, claim, (0.5, 0.25, 0.25))[2]
            out.append(PairScores(0.9, 0.05, 0.05) if share == 1 else PairScores(0.1, 0.0, 0.9))
        return out


class _Answer(BaseModel):
    answer: str


class Scripted(BackendBase):
    """Completions from a list, in order."""

    def __init__(self, *texts: tuple[str, str | None]) -> None:
        self.model_id = "test/scripted"
        self.capabilities = Capabilities(fixed_token_budget=False)
        self.texts = list(texts)
        self.asked: list[list[Message]] = []

    async def complete(self, request: CompletionRequest) -> Completion:
        self.asked.append(request.messages)
        text, finish = self.texts.pop(0)
        return Completion(text, finish)


def test_the_strategy_follows_the_declared_capabilities() -> None:
    http = plan_for(Judge("m", backend=Scripted()), 4)
    assert isinstance(http.verdicts, BatchedVerdicts) and http.extract_with_judge
    assert not http.sentence_fallback and http.extract_budget("x" * 100, 1024) is None
    llm = Scripted()
    llm.capabilities = Capabilities(choice_probabilities=True, fixed_token_budget=True)
    choice = plan_for(Judge("m", backend=llm), 4)
    assert isinstance(choice.verdicts, ChoiceVerdicts) and choice.sentence_fallback
    assert choice.extract_budget("x" * 200, 1024) == 196
    pairs = plan_for(Judge("m", backend=WordPairs()), 4)
    assert isinstance(pairs.verdicts, PairVerdicts) and not pairs.extract_with_judge
    cascade = plan_for(Judge("m", backend=WordPairs(), second_opinion=Judge("n", backend=Scripted())), 4)
    assert isinstance(cascade.verdicts, CascadeVerdicts)


def test_a_new_pair_backend_needs_nothing_else() -> None:
    backend = WordPairs()
    context = ["The bridge opened in 1932. It carries six lanes of traffic."]
    scorer = create_faithfulness_scorer(Judge("word-pairs", backend=backend), context=context)
    result = scorer.run(output="The bridge opened in 1932, and it carries eight lanes.")
    verdicts = result.analyze_step_result.verdicts
    assert [(v.claim, v.verdict) for v in verdicts] == [
        ("The bridge opened in 1932.", "yes"),
        ("It carries eight lanes.", "unsure"),
    ]
    assert verdicts[0].evidence == Evidence("The bridge opened in 1932.", True, 0, 0, 26)
    assert result.score == 0.5 and "preprocess" not in result.usage and result.usage["analyze"].calls == 1
    assert "1 of 2 claims are supported" in (result.reason or "")  # template reason: no model writes it


def test_a_backend_refuses_what_it_does_not_declare() -> None:
    judge = Judge("word-pairs", backend=WordPairs())
    with pytest.raises(ConfigError, match="cannot answer prompts"):
        asyncio.run(judge.generate("hi", _Answer, step="analyze"))
    with pytest.raises(ConfigError, match="cannot report answer probabilities"):
        asyncio.run(judge.choose("hi", ["yes", "no"], step="analyze"))


@pytest.mark.parametrize(
    ("probs", "threshold", "expected"),
    [
        ({"yes": 0.95, "no": 0.03, "unsure": 0.02}, 0.9, "yes"),
        ({"yes": 0.90, "no": 0.05, "unsure": 0.05}, 0.9, "yes"),  # at the threshold counts
        ({"yes": 0.85, "no": 0.10, "unsure": 0.05}, 0.9, "no"),  # likely yes, but not sure enough
        ({"yes": 0.85, "no": 0.05, "unsure": 0.10}, 0.9, "unsure"),
        ({"yes": 0.40, "no": 0.30, "unsure": 0.30}, 0.5, "no"),  # tie between no and unsure: no
        ({"yes": 0.55, "no": 0.40, "unsure": 0.05}, 0.5, "yes"),
    ],
)
def test_decide(probs: dict[str, float], threshold: float, expected: str) -> None:
    assert decide(probs, threshold) == expected
