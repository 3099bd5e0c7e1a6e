"""The pytest plugin, run in a child pytest session with pytester."""

from __future__ import annotations

from pathlib import Path

import pytest

from troth.evals import result_from_record
from troth.store import SQLiteStore
from troth.testing import FakeOpenAIServer, ScriptedJudge

LEAN = ("-p", "no:langsmith_plugin", "-p", "no:hypothesispytest")
"""Child sessions start without two third-party plugins that troth's plugin does not need and that
take ~3 s of each start (langsmith's client; hypothesis, imported at every summary)."""


def run_child(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*LEAN, *args)


USER_TESTS = """
from troth.testing import assert_faithful

CONTEXT = ["Oslo is the capital of Norway."]

def test_good(troth_judge):
    assert troth_judge.model == "judge-under-test"
    assert_faithful("Oslo is the capital of Norway.", CONTEXT)

def test_bad():
    assert_faithful("Bergen is the capital of Norway.", CONTEXT)
"""


def test_plugin_options_fixture_summary_and_store(
    pytester: pytest.Pytester, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    server.responder = ScriptedJudge(verdicts={"Oslo": ("yes", "Oslo is the capital")}, default=("no", ""))
    pytester.makepyfile(test_user=USER_TESTS)
    store = tmp_path / "scores.db"
    result = run_child(
        pytester,
        "--troth-model",
        "judge-under-test",
        "--troth-base-url",
        server.base_url,
        "--troth-store",
        str(store),
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*AssertionError: faithfulness score 0 < threshold 1",
            "*troth scores*",
            "PASS faithfulness          1 (threshold 1)  test_user.py::test_good",
            "FAIL faithfulness          0 (threshold 1)  test_user.py::test_bad",
        ]
    )
    runs = sorted(SQLiteStore(store).list_runs(limit=10), key=lambda r: r.item_id or "")
    assert [(r.item_id, r.score, r.result["threshold"], r.result["passed"]) for r in runs if r.result] == [
        ("test_user.py::test_bad", 0.0, 1.0, False),
        ("test_user.py::test_good", 1.0, 1.0, True),
    ]
    # the same stored shape as run_evals: the result comes back typed
    rebuilt = result_from_record(runs[0])
    assert rebuilt.score == 0.0 and rebuilt.analyze_step_result.verdicts[0].verdict == "no"
    assert all(r.judge_model == "judge-under-test" and r.eval_id and r.eval_id.startswith("pytest-") for r in runs)
    assert runs[0].verdicts is not None and runs[0].verdicts[0].verdict == "no"


def test_plugin_help_lists_options(pytester: pytest.Pytester) -> None:
    result = run_child(pytester, "--help")  # loaded through its pytest11 entry point
    result.stdout.fnmatch_lines(["*--troth-model*", "*--troth-base-url*", "*--troth-store*"])


def test_example_file_runs_against_a_judge(pytester: pytest.Pytester, server: FakeOpenAIServer) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "test_rag_answers.py"
    pytester.makepyfile(test_example=example.read_text())
    server.responder = ScriptedJudge(default=("yes", ""))
    result = run_child(pytester, "--troth-model", "m", "--troth-base-url", server.base_url)
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        ["*troth scores*", "PASS faithfulness*", "PASS hallucination*", "PASS answer-relevancy*"]
    )


GATED_TESTS = """
import pytest
from troth.testing import assert_faithful

CONTEXT = ["Oslo is the capital of Norway. Bergen is on the west coast."]

@pytest.mark.parametrize("n", range(12))
def test_answer(n):
    assert_faithful(f"Oslo is the capital of Norway. Bergen is on the west coast ({n}).", CONTEXT, threshold=0)
"""


def test_a_session_significantly_worse_than_its_baseline_fails(
    pytester: pytest.Pytester, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    pytester.makepyfile(test_gated=GATED_TESTS)
    store = str(tmp_path / "scores.db")
    common = ["--troth-model=m", f"--troth-base-url={server.base_url}", f"--troth-store={store}"]
    server.responder = ScriptedJudge(verdicts={"Oslo": ("yes", "Oslo is the capital"), "Bergen": ("yes", "Bergen")})
    run_child(pytester, *common, "--troth-eval-id=main").assert_outcomes(passed=12)
    server.responder = ScriptedJudge(verdicts={"Oslo": ("yes", "Oslo is the capital"), "Bergen": ("no", "Bergen")})
    worse = run_child(pytester, *common, "--troth-eval-id=branch", "--troth-baseline=main", "--troth-fail-if-worse=0.1")
    worse.assert_outcomes(passed=12)  # every test passed its own threshold; the session as a whole got worse
    assert worse.ret == 1
    gate = "WORSE than main: faithfulness: B's mean is lower by 0.5, more than 0.1 (p < 0.05)"
    worse.stdout.fnmatch_lines(["faithfulness: mean 0.500 against 1.000 in main (-0.500, p *)", gate])
    within = run_child(
        pytester, *common, "--troth-eval-id=branch2", "--troth-baseline=main", "--troth-fail-if-worse=0.6"
    )
    assert within.ret == 0
    missing = run_child(pytester, *common, "--troth-baseline=nope")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stdout.fnmatch_lines(["baseline check not made: no evaluation 'nope' in the store"])
