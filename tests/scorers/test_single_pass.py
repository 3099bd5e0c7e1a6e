"""strategy="single-pass": claims and verdicts in one request to the loopback server, validated
like the two-step answers (wrong label, quote not in the context, a claim twice, truncation:
asked again, then a typed error naming the step); a context too long for one request goes the
two-step way; the result's fields and usage; the cache and a resumed run."""

from __future__ import annotations

from pathlib import Path

import pytest

from troth import Judge, JudgeOutputError, ScorerRunError, create_faithfulness_scorer, run_evals
from troth.prompts.single_pass import SAME_CALL
from troth.testing import FakeOpenAIServer, Reply, ScriptedJudge

CONTEXT = [
    "The Tesla Model 3 is an electric sedan. Deliveries began in July 2017.",
    "The Long Range version has an EPA range of 358 miles.",
]
OUTPUT = "Deliveries of the Model 3 began in July 2017. It costs $20,000."


def answer(*claims: tuple[str, str, str]) -> Reply:
    return Reply(
        content={"claims": [{"claim": c, "evidence": e, "verdict": v, "reason": f"{v}: {c}"} for c, v, e in claims]}
    )


GOOD = answer(
    ("Deliveries of the Model 3 began in July 2017.", "yes", "Deliveries began in July 2017"),
    ("The Model 3 costs $20,000.", "unsure", ""),
)


def scorer(judge: Judge, **kw: object) -> object:
    return create_faithfulness_scorer(judge, context=CONTEXT, strategy="single-pass", reason="template", **kw)  # type: ignore[arg-type]


def test_one_request_gives_claims_verdicts_and_evidence(server: FakeOpenAIServer, judge: Judge) -> None:
    server.enqueue(GOOD)
    result = scorer(judge).run(input="When did deliveries begin?", output=OUTPUT)  # type: ignore[attr-defined]
    assert len(server.requests) == 1 and server.requests[0].schema_name == "ClaimsWithVerdicts"
    assert result.score == 0.5
    claims = ["Deliveries of the Model 3 began in July 2017.", "The Model 3 costs $20,000."]
    assert result.preprocess_step_result == claims
    assert [v.verdict for v in result.verdicts] == ["yes", "unsure"]
    evidence = result.verdicts[0].evidence
    assert evidence is not None and evidence.verified and evidence.context_index == 0
    assert "<output>" in result.preprocess_prompt and "<context" in result.preprocess_prompt
    assert result.analyze_prompt == SAME_CALL
    assert result.usage["preprocess"].calls == 1 and "analyze" not in result.usage
    assert result.prompt_version.startswith("single-pass-v1/")


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        (
            Reply(content={"claims": [{"claim": "x", "evidence": "", "verdict": "maybe", "reason": "r"}]}),
            "claims.0.verdict: Input should be 'yes', 'no' or 'unsure'",
        ),
        (
            answer(("The Model 3 costs $20,000.", "no", "It costs $35,000")),
            "the evidence of claim 1 is not in the context: 'It costs $35,000'",
        ),
        (
            answer(("Deliveries began in July 2017.", "yes", ""), ("deliveries began in July 2017.", "yes", "")),
            "claim 2 ('deliveries began in July 2017.') is given twice",
        ),
    ],
)
def test_a_bad_answer_is_asked_again_with_the_problem(
    server: FakeOpenAIServer, judge: Judge, bad: Reply, problem: str
) -> None:
    server.enqueue(bad, GOOD)
    result = scorer(judge).run(output=OUTPUT)  # type: ignore[attr-defined]
    assert result.score == 0.5 and len(server.requests) == 2
    fed_back = server.requests[1].body["messages"][-1]
    assert fed_back["role"] == "user" and problem in fed_back["content"]


def test_a_truncated_answer_is_asked_again_with_a_larger_budget(server: FakeOpenAIServer, judge: Judge) -> None:
    server.enqueue(Reply(content='{"claims": [{"claim": "Deliveries', finish_reason="length"), GOOD)
    result = scorer(judge).run(output=OUTPUT)  # type: ignore[attr-defined]
    assert result.score == 0.5
    budgets = [r.body["max_tokens"] for r in server.requests]
    assert len(budgets) == 2 and budgets[1] > budgets[0]


def test_answers_bad_every_time_fail_typed_naming_the_step(server: FakeOpenAIServer, judge: Judge) -> None:
    bad = answer(("The Model 3 costs $20,000.", "no", "a quote that is nowhere"))
    server.enqueue(bad, bad, bad, bad)
    with pytest.raises(ScorerRunError) as info:
        scorer(judge).run(output=OUTPUT)  # type: ignore[attr-defined]
    cause = info.value.__cause__
    assert isinstance(cause, JudgeOutputError) and cause.step == "preprocess" and info.value.failed_step == "preprocess"
    assert "is not in the context" in str(cause)


def test_a_context_too_long_for_one_request_goes_the_two_step_way(
    server: FakeOpenAIServer, judge: Judge, monkeypatch: pytest.MonkeyPatch
) -> None:
    from troth.judges.plans import single

    monkeypatch.setattr(single, "MAX_CHARS", 50)
    server.responder = ScriptedJudge(verdicts={"2017": ("yes", "Deliveries began in July 2017")})
    result = scorer(judge).run(output=OUTPUT)  # type: ignore[attr-defined]
    assert [r.schema_name for r in server.requests] == ["ExtractedClaims", "ClaimVerdicts"]
    assert "single-pass-fallback" in result.flags and result.usage["analyze"].calls == 1
    assert result.score == 0.5


def test_no_claim_found_is_extracted_again_in_two_steps_and_flagged(server: FakeOpenAIServer, judge: Judge) -> None:
    server.enqueue(
        Reply(content={"claims": []}),
        {"claims": ["Deliveries began in July 2017."]},
        {
            "verdicts": [
                {"claim_id": "c1", "evidence": "Deliveries began in July 2017", "verdict": "yes", "reason": "stated"}
            ]
        },
    )
    result = scorer(judge).run(output=OUTPUT)  # type: ignore[attr-defined]
    assert [r.schema_name for r in server.requests] == ["ClaimsWithVerdicts", "ExtractedClaims", "ClaimVerdicts"]
    assert result.score == 1.0 and "single-pass-fallback" in result.flags
    assert result.usage["preprocess"].calls == 2 and result.usage["analyze"].calls == 1


def test_run_evals_makes_one_request_per_item_and_resumes_from_the_store(tmp_path: Path) -> None:
    script = ScriptedJudge(verdicts={"2017": ("yes", "Deliveries began in July 2017")})
    data = [
        {"id": f"i{n}", "output": f"Deliveries began in July 2017. Item {n} is here.", "context": CONTEXT}
        for n in range(10)
    ]
    with FakeOpenAIServer(script) as server:
        judge = Judge("m", base_url=server.base_url, api_key="k", timeout=5, max_retries=0)
        make = create_faithfulness_scorer(judge, strategy="single-pass", reason="template")
        first = run_evals(data, [make], store=str(tmp_path / "s.db"), eval_id="e", quiet=True)
        assert len(server.requests) == 10 and first.summary.judge_calls == 10
        assert {i.results["faithfulness"].score for i in first.items} == {0.5}
        again = run_evals(data, [make], store=str(tmp_path / "s.db"), eval_id="e", quiet=True)
        assert len(server.requests) == 10 and again.summary.resumed_items == 10  # resumed: no request
        other = run_evals(data, [make], store=str(tmp_path / "s.db"), eval_id="f", quiet=True)
        assert len(server.requests) == 10 and other.summary.cached_calls == 10  # the judge-call cache


def test_the_reason_comes_from_the_template_unless_the_judge_is_asked() -> None:
    script = ScriptedJudge(verdicts={"2017": ("yes", "Deliveries began in July 2017")}, reason="Judge's reason.")
    with FakeOpenAIServer(script) as server:
        judge = Judge("m", base_url=server.base_url, api_key="k", timeout=5, max_retries=0)
        auto = create_faithfulness_scorer(judge, context=CONTEXT, strategy="single-pass").run(output=OUTPUT)
        assert [r.schema_name for r in server.requests] == ["ClaimsWithVerdicts"]
        assert auto.reason is not None and "Judge's reason" not in auto.reason and "generate_reason" not in auto.usage
        by_judge = create_faithfulness_scorer(judge, context=CONTEXT, strategy="single-pass", reason="judge")
        asked = by_judge.run(output=OUTPUT + " Again.")
        assert (
            len(server.requests) == 3
            and asked.reason == "Judge's reason."
            and asked.usage["generate_reason"].calls == 1
        )


def test_strategy_is_checked() -> None:
    with pytest.raises(ValueError, match="strategy must be one of 'auto', 'single-pass', 'two-step'"):
        create_faithfulness_scorer("openai/gpt-4o-mini", strategy="one-shot")  # type: ignore[arg-type]
