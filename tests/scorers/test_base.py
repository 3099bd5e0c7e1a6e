"""Custom scorers built with create_scorer from function and prompt steps."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from troth import ConfigError, Judge, PromptStep, ScorerRunError, StepContext, create_scorer
from troth.testing import FakeOpenAIServer


class Tone(BaseModel):
    polite: bool
    why: str


def words(ctx: StepContext) -> list[str]:
    return str(ctx.run.output).split()


def tone_prompt(ctx: StepContext) -> str:
    return f"Is this polite? {ctx.run.output} ({len(ctx.results.preprocess)} words)"


def test_custom_scorer_with_function_and_prompt_steps(server: FakeOpenAIServer, judge: Judge) -> None:
    server.enqueue({"polite": True, "why": "says please"}, {"reason": "polite and short"})

    async def explain(ctx: StepContext) -> str:
        class R(BaseModel):
            reason: str

        answer = await ctx.ask(f"Explain {ctx.results.score}", R)
        return answer.reason

    scorer = (
        create_scorer(id="politeness", description="Is the output polite?", judge=judge)
        .preprocess(words)
        .analyze(PromptStep(description="judge tone", create_prompt=tone_prompt, output_schema=Tone))
        .generate_score(lambda ctx: 1.0 if ctx.results.analyze.polite else 0.0)
        .generate_reason(explain)
    )
    result = scorer.run(input="hi", output="please pass the salt")
    assert result.preprocess_step_result == ["please", "pass", "the", "salt"]
    assert result.analyze_step_result == Tone(polite=True, why="says please")
    assert result.analyze_prompt == "Is this polite? please pass the salt (4 words)"
    assert result.score == 1.0
    assert result.reason == "polite and short"
    assert result.generate_reason_prompt == "Explain 1.0"
    assert result.preprocess_prompt is None
    assert set(result.usage) == {"analyze", "generate_reason"}


async def test_async_function_steps_and_transform(server: FakeOpenAIServer, judge: Judge) -> None:
    server.enqueue({"polite": False, "why": "rude"})

    async def pre(ctx: StepContext) -> int:
        return len(str(ctx.run.output))

    scorer = (
        create_scorer(id="s", judge=judge)
        .preprocess(pre)
        .analyze(PromptStep("tone", lambda ctx: "p", Tone, transform=lambda t: t.polite))
        .generate_score(lambda ctx: ctx.results.preprocess / 10 if ctx.results.analyze is False else 0)
    )
    result = await scorer.arun(output="go away")
    assert result.score == 0.7 and result.reason is None


def test_builders_are_immutable() -> None:
    base = create_scorer(id="s")
    with_pre = base.preprocess(words)
    assert base.preprocess_step is None and with_pre.preprocess_step is words
    with pytest.raises(AttributeError):
        base.id = "other"  # type: ignore[misc]


def test_failing_step_raises_with_partial_results() -> None:
    def boom(ctx: StepContext) -> None:
        raise RuntimeError("analyzer exploded")

    scorer = create_scorer(id="s").preprocess(words).analyze(boom).generate_score(lambda ctx: 1)
    with pytest.raises(ScorerRunError, match="failed in step 'analyze': analyzer exploded") as info:
        scorer.run(output="a b")
    assert info.value.failed_step == "analyze"
    assert info.value.partial == {"preprocess_step_result": ["a", "b"]}


def test_score_must_be_a_number() -> None:
    scorer = create_scorer(id="s").generate_score(lambda ctx: "high")
    with pytest.raises(ScorerRunError, match="finite number") as info:
        scorer.run(output="x")
    assert info.value.failed_step == "generate_score"


def test_missing_score_step_and_bad_steps() -> None:
    with pytest.raises(ConfigError, match="no generate_score"):
        create_scorer(id="s").run(output="x")
    with pytest.raises(TypeError, match="preprocess step must be"):
        create_scorer(id="s").preprocess(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="id"):
        create_scorer(id="")


def test_prompt_step_without_judge_is_a_config_error() -> None:
    scorer = create_scorer(id="s").analyze(PromptStep("t", lambda ctx: "p", Tone)).generate_score(lambda ctx: 0)
    with pytest.raises(ConfigError, match="has none"):
        scorer.run(output="x")


def test_create_scorer_takes_model_as_the_factories_do_and_judge_as_its_earlier_name() -> None:
    assert create_scorer(id="a", model="openai/gpt-4o-mini").judge is not None
    by_old_name = create_scorer(id="b", judge="openai/gpt-4o-mini").judge
    assert by_old_name is not None and by_old_name.model_id == "openai/gpt-4o-mini"
    with pytest.raises(TypeError, match=r"model= or judge= .*not both"):
        create_scorer(id="c", model="openai/gpt-4o-mini", judge="openai/gpt-4o-mini")
