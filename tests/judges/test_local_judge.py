"""The offline judge end to end through llama.cpp with real GGUF models.

SmolLM2-135M (93 MB) checks the plumbing only: it says "yes" to almost everything. The default
1.5B model checks that a blatant contradiction is caught. Both skip when not installed, unless
TROTH_REQUIRE_LOCAL_MODELS=1 (as in CI), where a missing model fails the test. The models run in
the backend's child process, never in the test process: a native crash fails its test, named,
and the suite goes on.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import signal
import sys
from pathlib import Path

import pytest

from troth import ContextTooLongError, Judge, JudgeCrashedError, ModelLoadError, create_faithfulness_scorer
from troth.errors import ModelNotFoundError
from troth.judges.backends.llama_models import CALIBRATED_QWEN15_YES, resolve_model

pytestmark = pytest.mark.local_model
REQUIRED = os.environ.get("TROTH_REQUIRE_LOCAL_MODELS") == "1"


def need(name: str) -> str:
    try:
        if importlib.util.find_spec("llama_cpp") is None:  # found, not imported: llama.cpp runs in the worker
            raise ImportError("llama_cpp is not installed")
        resolve_model(name)
    except (ImportError, ModelNotFoundError) as exc:
        if REQUIRED:
            raise
        pytest.skip(f"{name} not available: {exc}")
    return f"llm/{name}"


def test_smollm2_pipeline_returns_schema_valid_results() -> None:
    judge = Judge(need("smollm2-135m"), max_tokens=256, max_tokens_limit=512, seed=0)
    scorer = create_faithfulness_scorer(judge, context=["Paris is the capital of France."])
    result = scorer.run(input="What is the capital of France?", output="Paris is the capital of France.")
    assert isinstance(result.preprocess_step_result, list)
    assert all(isinstance(c, str) and c for c in result.preprocess_step_result)
    verdicts = result.verdicts
    assert len(verdicts) == len(result.preprocess_step_result)
    assert {v.verdict for v in verdicts} <= {"yes", "no", "unsure"}
    assert 0.0 <= result.score <= 1.0
    assert result.usage["preprocess"].model == "llm/smollm2-135m"
    assert result.usage["preprocess"].prompt_tokens > 0
    again = scorer.run(input="What is the capital of France?", output="Paris is the capital of France.")
    assert again.analyze_step_result == result.analyze_step_result  # deterministic


def test_context_over_the_window_is_judged_against_retrieved_sentences() -> None:
    from troth.judges.backends.llama import LlamaBackend

    judge = Judge(need("smollm2-135m"), backend=LlamaBackend(resolve_model("smollm2-135m"), n_ctx=1024))
    filler = " ".join(f"Clause {i} of the lease covers parking." for i in range(300))
    scorer = create_faithfulness_scorer(judge, context=[filler + " The rent is 900 euros a month."])
    result = scorer.run(output="The rent is 900 euros a month.")
    verdicts = result.verdicts
    assert verdicts and all(v.retrieved for v in verdicts)
    assert "window of 1,024 tokens" in result.reason
    assert "most relevant" in result.reason


def test_context_that_does_not_fit_even_after_retrieval_is_a_clear_error() -> None:
    from troth.judges.backends.llama import LlamaBackend

    judge = Judge(need("smollm2-135m"), backend=LlamaBackend(resolve_model("smollm2-135m"), n_ctx=1024))
    scorer = create_faithfulness_scorer(judge, context=["word " * 3000])  # one sentence, no boundary
    with pytest.raises(Exception) as info:
        scorer.run(output="The sky is blue.")
    cause = info.value.__cause__ or info.value
    assert isinstance(cause, ContextTooLongError)
    assert "even after retrieval" in str(cause)


def test_corrupt_gguf_is_a_clear_error(tmp_path: Path) -> None:
    need("smollm2-135m")
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF" + b"\xff" * 4096)
    scorer = create_faithfulness_scorer(f"llm/{bad}", context=["c"])
    with pytest.raises(ModelLoadError, match=r"llama.cpp could not load .*broken.gguf"):
        scorer.run(output="A claim.")


def test_default_model_catches_a_blatant_contradiction() -> None:
    judge = Judge(need("qwen2.5-coder-1.5b"), seed=0)
    scorer = create_faithfulness_scorer(
        judge, context=["The quarterly meeting takes place on Tuesday, 4 March, in Room 12."]
    )
    result = scorer.run(input="When is the meeting?", output="The quarterly meeting takes place on Friday.")
    verdicts = result.verdicts
    assert verdicts, "no claims extracted"
    assert all(v.verdict != "yes" for v in verdicts if "Friday" in v.claim)
    assert result.score < 1.0


def test_choose_reads_probabilities_that_sum_to_one() -> None:
    judge = Judge(need("smollm2-135m"))
    assert judge.can_choose
    choice, usage = asyncio.run(
        judge.choose("Is the sky blue? Answer yes or no.", ("yes", "no", "unsure"), step="analyze")
    )
    assert set(choice.probabilities) == {"yes", "no", "unsure"}
    assert sum(choice.probabilities.values()) == pytest.approx(1.0)
    assert all(0.0 <= p <= 1.0 for p in choice.probabilities.values())
    assert choice.best in {"yes", "no", "unsure"}
    assert usage.calls == 1 and usage.prompt_tokens > 0 and usage.completion_tokens == 0
    again, _ = asyncio.run(judge.choose("Is the sky blue? Answer yes or no.", ("yes", "no", "unsure"), step="a"))
    assert again.probabilities == choice.probabilities  # deterministic


def test_choose_refuses_choices_that_share_a_first_token() -> None:
    judge = Judge(need("smollm2-135m"))
    with pytest.raises(ValueError, match="start with the same token"):
        asyncio.run(judge.choose("Pick one.", ("yes", "yes please"), step="analyze"))


def test_choose_over_the_window_is_a_clear_error() -> None:
    from troth.judges.backends.llama import LlamaBackend

    judge = Judge(need("smollm2-135m"), backend=LlamaBackend(resolve_model("smollm2-135m"), n_ctx=512))
    with pytest.raises(ContextTooLongError, match="window of 512"):
        asyncio.run(judge.choose("The sky is blue. " * 400, ("yes", "no"), step="analyze"))


def test_local_verdicts_carry_probabilities_and_follow_the_threshold() -> None:
    context = ["The quarterly meeting takes place on Tuesday, 4 March, in Room 12."]
    output = "The quarterly meeting takes place on Tuesday."
    lenient = create_faithfulness_scorer(Judge(need("smollm2-135m"), yes_threshold=0.01), context=context)
    strict = create_faithfulness_scorer(Judge("llm/smollm2-135m", yes_threshold=0.999999), context=context)
    for scorer, expect_yes in ((lenient, True), (strict, False)):
        verdicts = scorer.run(output=output).verdicts
        assert verdicts
        for v in verdicts:
            probs = v.probabilities or {}
            assert set(probs) == {"yes", "no", "unsure"}
            assert (v.verdict == "yes") is expect_yes, (v, expect_yes)
            if not expect_yes:  # below the threshold: the likelier of no and unsure
                assert v.verdict == ("no" if probs["no"] >= probs["unsure"] else "unsure")


def test_packaged_default_model_is_calibrated() -> None:
    judge = Judge(need("qwen2.5-coder-1.5b"))
    assert judge.yes_threshold == CALIBRATED_QWEN15_YES
    assert Judge("llm/qwen2.5-coder-1.5b", yes_threshold=0.7).yes_threshold == 0.7
    assert Judge(need("smollm2-135m")).yes_threshold == 0.5  # nobody calibrated it


def test_local_budget_is_fixed_and_a_cut_extraction_falls_back_to_sentences() -> None:
    judge = Judge(need("smollm2-135m"), max_tokens=8)  # far too few for any claim list
    scorer = create_faithfulness_scorer(judge, context=["The lake is 12 km long. It freezes in January."])
    result = scorer.run(output="The lake is 12 km long. It freezes in January.")
    assert result.preprocess_step_result == ["The lake is 12 km long.", "It freezes in January."]
    assert result.usage["preprocess"].calls == 1  # the budget did not grow: no second, longer try
    assert "each sentence of the output was checked as one claim" in result.reason


def test_local_extract_budget_follows_the_output_length() -> None:
    from troth.judges.plans import FIXED_EXTRACT_BASE_TOKENS, plan_for

    plan = plan_for(Judge(need("smollm2-135m")), 16)  # the local LLM declares a fixed budget
    assert plan.extract_budget("x" * 200, 1024) == FIXED_EXTRACT_BASE_TOKENS + 100
    assert plan.extract_budget("x" * 10_000, 1024) == 1024


def test_grammar_for_a_long_string_field_does_not_crash_llama_cpp() -> None:
    from troth.judges.backends.llama import GRAMMAR_MAX_LENGTH, LlamaBackend, grammar_schema
    from troth.judges.base import CompletionRequest
    from troth.prompts.faithfulness import ScoreReason

    schema = ScoreReason.model_json_schema()  # reason: maxLength 2000, past what llama.cpp can parse
    assert grammar_schema(schema)["properties"]["reason"]["maxLength"] == GRAMMAR_MAX_LENGTH
    backend = LlamaBackend(resolve_model(need("smollm2-135m").removeprefix("llm/")))
    done = asyncio.run(
        backend.complete(
            CompletionRequest(
                [{"role": "user", "content": "Explain the score in JSON."}],
                schema,
                "ScoreReason",
                max_tokens=24,
                temperature=0.0,
                seed=0,
                retry=True,  # straight to the grammar
            )
        )
    )
    assert done.text.startswith("{")


def test_a_real_crash_of_the_model_process_costs_one_call() -> None:
    from troth.judges.backends.llama import LlamaBackend
    from troth.judges.backends.llama_process import process_for

    backend = LlamaBackend(resolve_model(need("smollm2-135m").removeprefix("llm/")), n_ctx=640)  # its own process
    judge = Judge("llm/smollm2-135m", backend=backend)
    ask = ("Is the sky blue? Answer yes or no.", ("yes", "no"))
    before, _ = asyncio.run(judge.choose(*ask, step="analyze"))
    process = process_for(backend.spec)
    first = process.pid
    assert first is not None
    os.kill(first, signal.SIGSEGV)  # what a llama.cpp built for another CPU does to its process
    with pytest.raises(JudgeCrashedError) as info:
        asyncio.run(judge.choose("Is the grass green? Answer yes or no.", ("yes", "no"), step="analyze"))
    assert info.value.signal == "SIGSEGV" and info.value.model == "llm/smollm2-135m"
    assert "crashed (SIGSEGV) while answering; a new process answers the next call (restart 1 of 2)" in str(info.value)
    after, _ = asyncio.run(judge.choose(*ask, step="analyze"))
    assert after.probabilities == before.probabilities  # a new process, the same model
    assert process.pid not in (None, first)
    process.close()


def test_llama_cpp_is_never_loaded_in_the_test_process() -> None:
    need("smollm2-135m")
    scorer = create_faithfulness_scorer(Judge("llm/smollm2-135m", max_tokens=64), context=["The sky is blue."])
    assert scorer.run(output="The sky is blue.").verdicts
    assert "llama_cpp" not in sys.modules
