"""The answer-relevancy scorer through the loopback server."""

from __future__ import annotations

import pytest

from troth import Judge, create_answer_relevancy_scorer
from troth.testing import FakeOpenAIServer, Reply


def verdicts(*labels: str) -> Reply:
    return Reply(
        content={
            "verdicts": [{"claim_id": f"c{i + 1}", "verdict": v, "reason": f"r{i + 1}"} for i, v in enumerate(labels)]
        }
    )


@pytest.mark.parametrize(
    ("labels", "weight", "scale", "expected"),
    [
        (("yes", "yes"), 0.3, 1, 1.0),
        (("yes", "unsure", "no"), 0.3, 1, 0.43),
        (("yes", "unsure", "no"), 0.5, 1, 0.5),
        (("unsure", "unsure"), 0.3, 10, 3.0),
        (("no", "no"), 0.3, 1, 0.0),
    ],
)
def test_weighted_relevancy(
    server: FakeOpenAIServer, judge: Judge, labels: tuple[str, ...], weight: float, scale: float, expected: float
) -> None:
    server.enqueue({"claims": [f"S{i}." for i in range(len(labels))]}, verdicts(*labels), {"reason": "why"})
    scorer = create_answer_relevancy_scorer(judge, uncertainty_weight=weight, scale=scale, reason="judge")
    result = scorer.run(input="What is the boiling point of water?", output="...")
    assert result.score == expected
    assert result.reason == "why"
    assert "What is the boiling point of water?" in (result.analyze_prompt or "")


def test_abstention_is_one_statement(server: FakeOpenAIServer, judge: Judge) -> None:
    server.enqueue({"claims": []}, verdicts("no"))
    result = create_answer_relevancy_scorer(judge, reason="template").run(
        input="Who won in 1950?", output="I don't know."
    )
    assert result.preprocess_step_result == ["I don't know."]
    assert result.score == 0.0
    assert "[c1] I don't know." in (result.analyze_prompt or "")
    assert "judged as one statement" in (result.reason or "")


def test_missing_input_is_an_error(server: FakeOpenAIServer, judge: Judge) -> None:
    with pytest.raises(ValueError, match="input is required"):
        create_answer_relevancy_scorer(judge).run(output="Water boils at 100 °C.")
    assert server.requests == []


@pytest.mark.parametrize(("weight", "error"), [(-0.1, ValueError), (1.5, ValueError), ("0.3", TypeError)])
def test_bad_weight(judge: Judge, weight: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="uncertainty_weight"):
        create_answer_relevancy_scorer(judge, uncertainty_weight=weight)  # type: ignore[arg-type]


def test_empty_output(server: FakeOpenAIServer, judge: Judge) -> None:
    result = create_answer_relevancy_scorer(judge).run(input="q?", output=" ")
    assert result.score == 0.0 and "no statements" in (result.reason or "")
    assert server.requests == []
