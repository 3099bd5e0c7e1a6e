"""Typed values: verdicts typed everywhere, dicts only in their stored form."""

from __future__ import annotations

from troth import ScoreResult, Verdict, Verdicts
from troth.values import Evidence


def test_verdicts_are_typed_and_dicts_only_in_their_stored_form() -> None:
    verdict = Verdict("It is red.", "yes", "said so", Evidence("red", True, 0, 6, 9), {"supported": 0.9})
    stored = verdict.to_dict()
    assert stored["verdict"] == "yes" and stored["evidence"]["start"] == 6 and "probabilities" in stored
    assert not hasattr(verdict, "__getitem__") and not hasattr(Verdicts([verdict]), "get")
    assert verdict.p_supported == 0.9 and Verdict.from_dict(verdict.to_dict()) == verdict
    stored_before = {  # a result saved before verdicts were typed
        "run_id": "r",
        "scorer_id": "faithfulness",
        "prompt_version": "v1",
        "preprocess_step_result": ["It is red."],
        "preprocess_prompt": None,
        "analyze_prompt": None,
        "score": 1.0,
        "reason": "ok",
        "generate_reason_prompt": None,
        "usage": {},
        "analyze_step_result": {
            "verdicts": [{"claim": "It is red.", "verdict": "yes", "reason": "r", "evidence": None}]
        },
    }
    loaded = ScoreResult.from_dict(stored_before)
    assert isinstance(loaded.analyze_step_result, Verdicts)
    assert loaded.analyze_step_result.verdicts[0].verdict == "yes"
    assert loaded.to_dict()["analyze_step_result"] == stored_before["analyze_step_result"]
