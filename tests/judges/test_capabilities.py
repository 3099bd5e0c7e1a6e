"""Strategies chosen from declared capabilities; the judge's parts tested alone; typed verdicts."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from pydantic import BaseModel

from troth import Judge, ScoreResult, Verdict, Verdicts, create_faithfulness_scorer
from troth.errors import ConfigError, JudgeOutputError, JudgeTruncatedError
from troth.judges.base import BackendBase, Completion, CompletionRequest, Message, PairScores
from troth.judges.cache import Memo
from troth.judges.capabilities import Capabilities
from troth.judges.retry import Keep, RetryPolicy
from troth.judges.strategies import strategy_for
from troth.judges.strategies.batched import BatchedVerdicts
from troth.judges.strategies.cascade import CascadeVerdicts
from troth.judges.strategies.choice import ChoiceVerdicts
from troth.judges.strategies.pairs import PairVerdicts
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
    http = strategy_for(Judge("m", backend=Scripted()), 4)
    assert isinstance(http.verdicts, BatchedVerdicts) and http.extract_with_judge and http.reason == "judge"
    assert not http.sentence_fallback and http.extract_budget("x" * 100, 1024) is None
    llm = Scripted()
    llm.capabilities = Capabilities(choice_probabilities=True, fixed_token_budget=True)
    choice = strategy_for(Judge("m", backend=llm), 4)
    assert isinstance(choice.verdicts, ChoiceVerdicts) and choice.sentence_fallback and choice.reason == "template"
    assert choice.extract_budget("x" * 200, 1024) == 196
    pairs = strategy_for(Judge("m", backend=WordPairs()), 4)
    assert isinstance(pairs.verdicts, PairVerdicts) and not pairs.extract_with_judge
    cascade = strategy_for(Judge("m", backend=WordPairs(), second_opinion=Judge("n", backend=Scripted())), 4)
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


class _Answer(BaseModel):
    answer: str


def test_retry_policy_feeds_back_the_problem_then_succeeds() -> None:
    backend = Scripted(("not json", "stop"), ('{"answer": "ok"}', "stop"))
    judge = Judge("m", backend=backend)
    parsed, usage = asyncio.run(judge.generate("q", _Answer, step="analyze"))
    assert parsed.answer == "ok" and usage.calls == 2
    assert "not valid JSON" in backend.asked[1][-1]["content"]


def test_retry_policy_grows_the_budget_unless_it_is_fixed() -> None:
    calls: list[int] = []
    kept: list[str] = []

    async def complete(messages: list[Message], tokens: int, problem: str) -> tuple[Completion, bool, Keep]:
        calls.append(tokens)
        done = Completion("{", "length") if len(calls) == 1 else Completion('{"answer": "x"}', "stop")
        return done, False, lambda: kept.append(done.text)

    policy = RetryPolicy(max_tokens_limit=400)
    parsed, _ = asyncio.run(policy.generate(complete, [], _Answer, max_tokens=100, step="s", model="m"))
    assert parsed.answer == "x" and calls == [100, 200]
    assert kept == ['{"answer": "x"}']  # only the answer that validated is kept (cached)
    calls.clear()
    with pytest.raises(JudgeTruncatedError, match=r"\[s\] m was cut off at max_tokens=100"):
        asyncio.run(RetryPolicy(fixed_budget=True).generate(complete, [], _Answer, max_tokens=100, step="s", model="m"))


def test_retry_policy_gives_up_with_a_typed_error_naming_the_step() -> None:
    kept: list[str] = []

    async def complete(messages: list[Message], tokens: int, problem: str) -> tuple[Completion, bool, Keep]:
        return Completion('{"other": 1}', "stop"), False, lambda: kept.append("kept")

    with pytest.raises(JudgeOutputError, match=r"\[extract\] m gave no valid answer in 2 attempts") as info:
        asyncio.run(RetryPolicy(output_retries=1).generate(complete, [], _Answer, max_tokens=9, step="extract",
                                                           model="m"))  # fmt: skip
    assert info.value.usage is not None and info.value.usage.calls == 2 and kept == []


def test_memo_shares_one_answer() -> None:
    memo, runs = Memo(), []

    async def make() -> str:
        runs.append(1)
        await asyncio.sleep(0.01)
        return "answer"

    async def both() -> list[tuple[bool, str]]:
        return list(await asyncio.gather(memo.get_or_run("k", make), memo.get_or_run("k", make)))

    assert sorted(asyncio.run(both())) == [(False, "answer"), (True, "answer")] and runs == [1]


def test_verdicts_are_typed_and_dicts_only_in_their_stored_form() -> None:
    verdict = Verdict("It is red.", "yes", "said so", Evidence("red", True, 0, 6, 9), {"supported": 0.9})
    stored = verdict.to_dict()
    assert stored["verdict"] == "yes" and stored["evidence"]["start"] == 6 and "probabilities" in stored
    assert not hasattr(verdict, "__getitem__") and not hasattr(Verdicts([verdict]), "get")
    assert verdict.p_supported == 0.9 and Verdict.from_dict(verdict.to_dict()) == verdict
    stored_before = {  # a result saved before verdicts were typed
        "run_id": "r", "scorer_id": "faithfulness", "prompt_version": "v1", "preprocess_step_result": ["It is red."],
        "preprocess_prompt": None, "analyze_prompt": None, "score": 1.0, "reason": "ok",
        "generate_reason_prompt": None, "usage": {},
        "analyze_step_result": {"verdicts": [{"claim": "It is red.", "verdict": "yes", "reason": "r",
                                              "evidence": None}]},
    }  # fmt: skip
    loaded = ScoreResult.from_dict(stored_before)
    assert isinstance(loaded.analyze_step_result, Verdicts)
    assert loaded.analyze_step_result.verdicts[0].verdict == "yes"
    assert loaded.to_dict()["analyze_step_result"] == stored_before["analyze_step_result"]
