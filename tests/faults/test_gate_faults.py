"""CI gates that fail closed: ``troth compare --fail-if-worse`` when B failed every item (no item
scored in both) or more items failed in B than in A beyond ``--failed-tolerance``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.compare.conftest import two_evals  # noqa: F401  (the fixture)
from tests.compare.test_cli import troth
from troth import Judge, create_faithfulness_scorer, run_evals
from troth.testing import FakeOpenAIServer, Reply


@pytest.fixture(scope="module")
def broken_b(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A in which every item is scored; B, of the same items, in which every item failed."""
    from tests.compare.conftest import GOOD, items, run

    db = tmp_path_factory.mktemp("gate") / "s.db"
    run(GOOD, db, "base", items(0))
    with FakeOpenAIServer(lambda request: Reply(status=400)) as down:
        judge = Judge("m", base_url=down.base_url, api_key="k", timeout=5, max_retries=0)
        run_evals(
            items(0),
            [create_faithfulness_scorer(judge, reason="template")],
            store=str(db),
            eval_id="cand",
            quiet=True,
            cache=False,
        )
    return db


def test_the_gate_fails_closed_when_b_failed_every_item(broken_b: Path, tmp_path: Path) -> None:
    out = troth("compare", "base", "cand", "--store", str(broken_b), "--fail-if-worse", "0.0", cwd=tmp_path)
    assert out.returncode == 1, out.stdout
    assert "gate failed: faithfulness: no item was scored in both evaluations" in out.stderr
    assert "gate failed: faithfulness: 30 item(s) failed in B, 0 in A (more than 0 more)" in out.stderr
    shown = troth("compare", "base", "cand", "--store", str(broken_b), cwd=tmp_path)
    assert shown.returncode == 0  # no gate asked for: the comparison is shown, nothing fails


def test_failures_in_b_beyond_the_tolerance_fail_the_gate(two_evals: Path, tmp_path: Path) -> None:  # noqa: F811
    from troth.compare import compare_evals

    c = compare_evals("base", "cand", store=str(two_evals))
    s = c.scorers["faithfulness"]
    s.failed_b = s.failed_a + 3  # three more failures in B
    assert c.gate(0.25, failed_tolerance=3) == []
    assert c.gate(0.25, failed_tolerance=2) == ["faithfulness: 3 item(s) failed in B, 0 in A (more than 2 more)"]
