"""Three scorers sharing a judge extract the claims of one output once."""

from __future__ import annotations

import asyncio

from troth import Judge, create_answer_relevancy_scorer, create_faithfulness_scorer, create_hallucination_scorer
from troth.testing import FakeOpenAIServer, ScriptedJudge

CONTEXT = ["Mount Everest is 8,849 metres high and lies on the border of Nepal and China."]
OUTPUT = "Mount Everest is 8,849 metres high. It is in Peru."


def extraction_requests(server: FakeOpenAIServer) -> int:
    return sum(1 for r in server.requests if r.schema_name == "ExtractedClaims")


def scorers(judge: Judge) -> list:  # type: ignore[type-arg]
    return [
        create_faithfulness_scorer(judge, strategy="two-step", context=CONTEXT, reason="template"),
        create_hallucination_scorer(judge, strategy="two-step", context=CONTEXT, reason="template"),
        create_answer_relevancy_scorer(judge, reason="template"),
    ]


def test_sequential_runs_extract_once(server: FakeOpenAIServer, judge: Judge) -> None:
    server.responder = ScriptedJudge(verdicts={"8,849": ("yes", "8,849 metres high")}, default=("no", ""))
    results = [s.run(input="How high is Everest?", output=OUTPUT) for s in scorers(judge)]
    assert [r.score for r in results] == [0.5, 0.5, 1.0]
    assert extraction_requests(server) == 1
    assert "preprocess" in results[0].usage and results[1].usage["preprocess"].calls == 0


async def test_concurrent_runs_extract_once(server: FakeOpenAIServer, judge: Judge) -> None:
    server.responder = ScriptedJudge(default=("yes", ""))
    results = await asyncio.gather(*(s.arun(input="How high is Everest?", output=OUTPUT) for s in scorers(judge)))
    assert [r.preprocess_step_result for r in results] == [
        ["Mount Everest is 8,849 metres high.", "It is in Peru."]
    ] * 3
    assert extraction_requests(server) == 1


def test_different_judges_do_not_share(server: FakeOpenAIServer) -> None:
    server.responder = ScriptedJudge(default=("yes", ""))
    for _ in range(2):
        judge = Judge("fake", base_url=server.base_url, api_key="k")
        create_faithfulness_scorer(judge, strategy="two-step", context=CONTEXT, reason="template").run(output=OUTPUT)
    assert extraction_requests(server) == 2
