"""The hallucination scorer through the loopback server."""

from __future__ import annotations

from typing import Any

import pytest

from troth import Judge, Scorer, create_hallucination_scorer
from troth.testing import FakeOpenAIServer, Reply, ScriptedJudge


def hallucination(judge: Judge, **options: Any) -> Scorer:
    """The two-step scorer (claims, then verdicts): the protocol these tests script; single pass
    is tested in test_single_pass.py."""
    return create_hallucination_scorer(judge, strategy="two-step", **options)


CONTEXT = ["The bridge opened in 1932 and is 1,149 metres long. About 160,000 vehicles cross it daily."]


def verdicts(*labels: str) -> Reply:
    return Reply(
        content={
            "verdicts": [
                {
                    "claim_id": f"c{i + 1}",
                    "evidence": "opened in 1932" if v == "yes" else "",
                    "verdict": v,
                    "reason": f"r{i + 1}",
                }
                for i, v in enumerate(labels)
            ]
        }
    )


@pytest.mark.parametrize(
    ("labels", "scale", "expected"),
    [
        (("yes", "yes", "yes", "yes"), 1, 0.0),
        (("no", "unsure", "yes", "yes"), 1, 0.5),
        (("no", "no", "no", "unsure"), 1, 1.0),
        (("no", "yes", "yes"), 10, 3.33),
    ],
)
def test_share_of_hallucinated_claims(
    server: FakeOpenAIServer, judge: Judge, labels: tuple[str, ...], scale: float, expected: float
) -> None:
    claims = [f"Claim {i}." for i in range(len(labels))]
    server.enqueue({"claims": claims}, verdicts(*labels), {"reason": "explained"})
    result = hallucination(judge, context=CONTEXT, scale=scale, reason="judge").run(output="...")
    assert result.score == expected
    assert result.reason == "explained"
    assert result.prompt_version == "claims-v1/hallucination-v1"


def test_template_reason_names_hallucinated_claims(server: FakeOpenAIServer, judge: Judge) -> None:
    server.enqueue({"claims": ["It opened in 1932.", "It may be the longest bridge."]}, verdicts("yes", "unsure"))
    result = hallucination(judge, context=CONTEXT, reason="template").run(output="...")
    assert result.score == 0.5
    assert result.reason is not None
    assert "lower is better" in result.reason
    assert 'Not in the context (1): "It may be the longest bridge."' in result.reason


def test_zero_claims_and_no_context(server: FakeOpenAIServer, judge: Judge) -> None:
    result = hallucination(judge, context=CONTEXT).run(output="")
    assert result.score == 0.0 and "no claims" in (result.reason or "")
    server.enqueue({"claims": ["A.", "B."]})
    result = hallucination(judge, scale=5).run(output="A. B.")
    assert result.score == 5.0
    assert "no context was found" in (result.reason or "")


def test_get_context_per_run(server: FakeOpenAIServer, judge: Judge) -> None:
    server.responder = ScriptedJudge(verdicts={"1932": ("yes", "opened in 1932")}, default=("no", ""))

    async def from_metadata(run):  # type: ignore[no-untyped-def]
        return run.metadata["retrieved"]

    scorer = hallucination(judge, get_context=from_metadata)
    result = scorer.run(output="It opened in 1932. It is red.", metadata={"retrieved": CONTEXT})
    assert result.score == 0.5
    assert "1,149 metres" in (result.analyze_prompt or "")
    with pytest.raises(TypeError, match=r"get_context\(run\)\[0\] must be a string"):
        hallucination(judge, get_context=lambda run: [1]).run(output="x")
