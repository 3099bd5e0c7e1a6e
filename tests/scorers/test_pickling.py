"""Built-in scorers pickle as the factory call that made them (their steps are closures), so they
can go to another process (a Monitor's scoring process, a Ray worker); a changed one does not."""

from __future__ import annotations

import pickle

import pytest

from troth import (
    Judge,
    create_answer_relevancy_scorer,
    create_faithfulness_scorer,
    create_hallucination_scorer,
)
from troth.testing import FakeOpenAIServer, ScriptedJudge


def test_a_built_in_scorer_survives_pickling_and_scores_the_same() -> None:
    with FakeOpenAIServer(ScriptedJudge(verdicts={"paris": ("yes", "Paris is big")}, default=("no", ""))) as srv:
        judge = Judge("m", base_url=srv.base_url, api_key="k")
        judge.backend()  # a built backend (an HTTP client) is not sent along
        scorer = create_faithfulness_scorer(judge, scale=10, context=["Paris is big."])
        copy = pickle.loads(pickle.dumps(scorer))
        assert copy.judge is not None and copy.judge.base_url == srv.base_url
        first = scorer.run("q", "Paris is big. Rome is small.")
        second = copy.run("q", "Paris is big. Rome is small.")
    assert first.score == second.score == 5.0


@pytest.mark.parametrize("factory", [create_hallucination_scorer, create_answer_relevancy_scorer])
def test_every_factory_made_scorer_pickles(factory: object) -> None:
    scorer = factory(Judge("m", base_url="http://127.0.0.1:9/v1", api_key="k"))  # type: ignore[operator]
    assert pickle.loads(pickle.dumps(scorer)).id == scorer.id


def test_a_scorer_changed_after_it_was_made_no_longer_claims_its_recipe() -> None:
    changed = create_faithfulness_scorer(Judge("m", base_url="http://127.0.0.1:9/v1", api_key="k")).generate_reason(
        lambda ctx: "mine"
    )
    assert changed.recipe is None
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        pickle.dumps(changed)
