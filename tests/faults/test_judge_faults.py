"""Every fault a judge server can commit (``troth.testing.faults.FAULTS``), once and on every
attempt: the batch finishes, healthy items keep their exact scores, a faulted item fails with a
typed error naming its step (never a silent 0), the store holds one row per item, no key appears
anywhere, and a resume against a healthy judge scores what failed without re-judging the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.faults.conftest import EXPECTED, ITEMS, MARKER, assert_no_secret, fault_judge, healthy, rows
from troth import create_faithfulness_scorer, errors, run_evals
from troth.scorers.base import STEPS
from troth.testing import FakeOpenAIServer
from troth.testing.faults import FAULTS, Fault, FaultyJudge

TRANSIENT = [f for f in FAULTS.values() if f.error not in (None,) and f.name != "echo-key"]


def evaluate(server: FakeOpenAIServer, db: Path, eval_id: str = "faults") -> object:
    """The faults of the two-step protocol (single pass: tests/scorers/test_single_pass.py)."""
    scorer = create_faithfulness_scorer(fault_judge(server), strategy="two-step", reason="template")
    return run_evals(ITEMS, [scorer], store=db, eval_id=eval_id, quiet=True, concurrency=4)


@pytest.mark.parametrize("fault", FAULTS.values(), ids=lambda f: f.name)
def test_fault_on_every_attempt_fails_one_item_typed(
    fault: Fault, fault_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    db = tmp_path / "t.db"
    fault_server.responder = FaultyJudge(healthy(), [fault], marker=MARKER)
    result = evaluate(fault_server, db)
    items = {it.id: it for it in result.items}  # type: ignore[attr-defined]
    assert set(items) == set(EXPECTED)  # the batch finished, every item is there
    for item_id in ("ok-yes", "ok-no"):
        assert items[item_id].results["faithfulness"].score == EXPECTED[item_id] and not items[item_id].errors
    faulted = items["faulted"]
    if fault.error is None:  # handled: scored from its sentences, with a note, not a silent 0
        assert faulted.results["faithfulness"].score == 1.0 and "no claims" in faulted.results["faithfulness"].reason
    else:
        error = faulted.errors["faithfulness"]
        assert error.type == fault.error and issubclass(getattr(errors, error.type), errors.TrothError)
        assert error.step in STEPS and "faithfulness" not in faulted.results
    stored = rows(db)
    assert [r[0] for r in stored] == sorted(EXPECTED)  # one row per item: nothing lost, nothing doubled
    assert all((r[2] is None) == (r[3] is not None) for r in stored)  # a score or an error, never neither
    assert_no_secret(db, *(str(e.message) for it in items.values() for e in it.errors.values()))

    fault_server.responder = healthy()  # resume: failures are not replayed from the cache
    fault_server.reset()
    again = evaluate(fault_server, db)
    assert {it.id: it.results["faithfulness"].score for it in again.items} == EXPECTED  # type: ignore[attr-defined]
    asked = [MARKER in r.prompt for r in fault_server.requests]  # only the failed item is judged again
    assert (asked and all(asked)) if fault.error is not None else asked == []
    assert [(r[0], r[3]) for r in rows(db)] == [(i, None) for i in sorted(EXPECTED)]


@pytest.mark.parametrize("fault", TRANSIENT, ids=lambda f: f.name)
def test_fault_once_is_recovered(fault: Fault, fault_server: FakeOpenAIServer, tmp_path: Path) -> None:
    fault_server.responder = script = FaultyJudge(healthy(), [fault], marker=MARKER, times=1)
    result = evaluate(fault_server, tmp_path / "t.db")
    assert script.injected == {fault.name: 1}
    assert {it.id: it.results["faithfulness"].score for it in result.items} == EXPECTED  # type: ignore[attr-defined]
    assert result.summary.failed_items == 0  # type: ignore[attr-defined]


def test_echoed_key_reaches_no_artefact(fault_server: FakeOpenAIServer, tmp_path: Path) -> None:
    fault_server.responder = FaultyJudge(healthy(), [FAULTS["echo-key"]])
    scorer = create_faithfulness_scorer(fault_judge(fault_server), reason="template")
    with pytest.raises(errors.ScorerRunError) as caught:
        scorer.run(output="The bridge opened in 1932.", context=ITEMS[0]["context"])
    chain = [caught.value, caught.value.__cause__, caught.value.__cause__.__cause__ if caught.value.__cause__ else None]
    assert "[REDACTED]" in str(caught.value)
    assert_no_secret(*(repr(e) + str(e) for e in chain if e is not None))


def test_an_over_budget_wait_never_reads_as_equal_to_what_is_left() -> None:
    import time

    from troth.judges.waits import WaitBudget, over_budget

    budget = WaitBudget(120.0, started=time.monotonic() - 0.4)  # about 119.6 s left
    message = str(over_budget("m", 429, 120.3, budget, asked=True))
    wanted, left = message.split("a wait of ")[1].split("s, longer than the ")
    assert float(wanted) > float(left.split("s left")[0]) and "wait budget of 120s" in message
