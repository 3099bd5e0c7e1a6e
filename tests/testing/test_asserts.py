"""The assert helpers' verdicts and messages."""

from __future__ import annotations

import pytest

from troth import Judge
from troth.testing import FakeOpenAIServer, ScriptedJudge, assert_faithful, assert_not_hallucinated, assert_relevant

CONTEXT = ["The library opens at 9:00 and closes at 17:00 on weekdays."]
OUTPUT = "The library opens at 9:00. It closes at 20:00."


@pytest.fixture
def scripted(server: FakeOpenAIServer) -> FakeOpenAIServer:
    server.responder = ScriptedJudge(
        verdicts={"9:00": ("yes", "opens at 9:00"), "20:00": ("no", "closes at 17:00")},
        relevance={"closes": "unsure"},
    )
    return server


def test_assert_faithful_passes_and_returns_result(scripted: FakeOpenAIServer, judge: Judge) -> None:
    result = assert_faithful("The library opens at 9:00.", CONTEXT, model=judge)
    assert result.score == 1.0


def test_assert_faithful_message(scripted: FakeOpenAIServer, judge: Judge) -> None:
    with pytest.raises(AssertionError) as info:
        assert_faithful(OUTPUT, CONTEXT, model=judge, threshold=0.8)
    msg = str(info.value)
    assert msg.startswith("faithfulness score 0.5 < threshold 0.8")
    assert "  - [no] It closes at 20:00. -- no: It closes at 20:00." in msg
    assert "opens at 9:00." not in msg.split("failing claims:")[1]


def test_assert_not_hallucinated(scripted: FakeOpenAIServer, judge: Judge) -> None:
    with pytest.raises(AssertionError, match=r"hallucination score 0.5 > threshold 0\n"):
        assert_not_hallucinated(OUTPUT, CONTEXT, model=judge)
    assert assert_not_hallucinated(OUTPUT, CONTEXT, model=judge, threshold=0.5).score == 0.5


def test_assert_relevant(scripted: FakeOpenAIServer, judge: Judge) -> None:
    question = "When does the library open?"
    assert assert_relevant(question, "The library opens at 9:00.", model=judge).score == 1.0
    with pytest.raises(AssertionError) as info:
        assert_relevant(question, OUTPUT, model=judge, threshold=0.9)
    assert "answer-relevancy score 0.65 < threshold 0.9" in str(info.value)
    assert "[unsure] It closes at 20:00." in str(info.value)
