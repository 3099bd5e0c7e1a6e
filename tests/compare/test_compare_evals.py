"""compare_evals on two stored evaluations: paired statistics, items worst first with the
claims whose verdict changed, what is in one only, and the regression gate."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.compare.conftest import REGRESSED
from troth import compare_evals
from troth.store import SQLiteStore


def test_b_is_worse_significantly_and_its_items_say_which_claims_changed(two_evals: Path) -> None:
    c = compare_evals("base", "cand", store=SQLiteStore(two_evals))
    s = c.scorers["faithfulness"].stats
    assert s is not None and s.n == 30
    assert s.mean_a == 1.0 and s.mean_b == pytest.approx(1 - REGRESSED * 0.5 / 30)
    assert s.mean_diff == pytest.approx(-0.2)
    assert s.ci_low is not None and s.ci_high is not None and s.ci_low < -0.2 < s.ci_high < 0
    assert s.p_value is not None and s.p_value < 0.01
    assert c.worse(0.1) == ["faithfulness"] and c.worse(0.25) == [] and c.worse(0.1, alpha=1e-9) == []
    worst = c.items[:REGRESSED]
    assert all(d.status == "worse" and d.delta == -0.5 for d in worst)
    assert {d.status for d in c.items[REGRESSED:]} == {"same"}
    (change,) = worst[0].changes
    assert change.claim == "It is 134 m high (r)." and (change.verdict_a, change.verdict_b) == ("yes", "no")
    assert change.evidence_b == "134 m high"
    assert c.only_b == [("new", "faithfulness")] and c.only_a == []
    assert c.notes == []  # same judge model and prompt version


def test_an_evaluation_against_itself_is_the_same(two_evals: Path) -> None:
    c = compare_evals("base", "base", store=SQLiteStore(two_evals))
    s = c.scorers["faithfulness"].stats
    assert s is not None and (s.mean_diff, s.ci_low, s.ci_high, s.p_value) == (0.0, 0.0, 0.0, 1.0)
    assert c.worse(0.0) == [] and all(d.changes == [] for d in c.items)


def test_bad_input_is_a_value_error_naming_it(two_evals: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no evaluation 'nope' in the store"):
        compare_evals("base", "nope", store=SQLiteStore(two_evals))
    other = SQLiteStore(tmp_path / "o.db")
    for eval_id, item in (("x", "a"), ("y", "b")):
        from troth.store.base import RunRecord

        other.save_run(RunRecord(run_id=eval_id, scorer_id="faithfulness", eval_id=eval_id, item_id=item, score=1.0))
    with pytest.raises(ValueError, match="'x' and 'y' have no \\(item, scorer\\) in common"):
        compare_evals("x", "y", store=other)


def test_a_different_judge_is_noted(two_evals: Path, tmp_path: Path) -> None:
    from troth.store.base import RunRecord

    store = SQLiteStore(tmp_path / "j.db")
    for eval_id, judge in (("a", "openai/gpt-4o-mini"), ("b", "openai/gpt-4o")):
        for i in range(3):
            store.save_run(
                RunRecord(
                    run_id=f"{eval_id}{i}",
                    scorer_id="faithfulness",
                    eval_id=eval_id,
                    item_id=str(i),
                    score=1.0,
                    judge_model=judge,
                    prompt_version="faithfulness-v1",
                )
            )
    c = compare_evals("a", "b", store=store)
    assert c.notes == ["faithfulness: the judge differs (A: openai/gpt-4o-mini, B: openai/gpt-4o)"]
