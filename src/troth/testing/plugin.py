"""pytest plugin (entry point ``pytest11``): options, a ``troth_judge`` fixture, a score summary.

pytest --troth-model openai/gpt-4o-mini
pytest --troth-model my-model --troth-base-url http://127.0.0.1:8000/v1
pytest --troth-store .troth/troth.db    # save every score of the session in the store
pytest --troth-store s.db --troth-eval-id main            # ...under an evaluation id of your choosing
pytest --troth-store s.db --troth-baseline main --troth-fail-if-worse 0.05   # fail on a regression
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from troth.judges.judge import Judge
from troth.store.base import RunRecord
from troth.store.sqlite import SQLiteStore
from troth.testing import asserts
from troth.values import ScoreResult

_KEY = pytest.StashKey["ScoreLog"]()


class ScoreLog:
    """Scores recorded by the assert helpers during the session (and saved to the store if given)."""

    def __init__(self, store: Path | None, eval_id: str | None = None) -> None:
        self.rows: list[tuple[str, str, float, float, bool]] = []
        self.store = SQLiteStore(store) if store is not None else None
        self.eval_id = eval_id or "pytest-" + datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
        self.current_test = ""
        self.verdict: list[str] = []  # what the baseline check found, for the summary

    def __call__(self, name: str, result: ScoreResult, threshold: float, passed: bool) -> None:
        self.rows.append((self.current_test, name, result.score, threshold, passed))
        if self.store is None:
            return
        self.store.save_run(
            RunRecord.from_result(
                result,
                eval_id=self.eval_id,
                item_id=self.current_test,
                judge_model=next((u.model for u in result.usage.values()), None),
                result=result.to_dict() | {"threshold": threshold, "passed": passed},
                source="pytest",
            )
        )


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("troth", "troth faithfulness scoring")
    group.addoption("--troth-model", help="judge for troth's assert helpers: 'verifier', 'llm' or 'provider/model'")
    group.addoption("--troth-base-url", help="OpenAI-compatible server for --troth-model")
    group.addoption("--troth-store", help="save every score of the session in this SQLite store")
    group.addoption("--troth-eval-id", help="the evaluation id the session's scores are saved under")
    group.addoption("--troth-baseline", help="compare the session's scores with this saved evaluation")
    group.addoption(
        "--troth-fail-if-worse",
        type=float,
        default=0.0,
        help="fail when a scorer's mean is lower than the baseline's by more than this, significantly",
    )
    group.addoption("--troth-alpha", type=float, default=0.05, help="significance level of the baseline check")


def pytest_configure(config: pytest.Config) -> None:
    model = config.getoption("--troth-model")
    base_url = config.getoption("--troth-base-url")
    if model:
        os.environ[asserts.ENV_MODEL] = model
    if base_url:
        os.environ[asserts.ENV_BASE_URL] = base_url
    store = config.getoption("--troth-store")
    if config.getoption("--troth-baseline") and not store:
        raise pytest.UsageError("--troth-baseline needs --troth-store (where the baseline and this session are saved)")
    log = ScoreLog(Path(store) if store else None, config.getoption("--troth-eval-id"))
    config.stash[_KEY] = log


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """With --troth-baseline: the session fails when its scores are significantly worse."""
    config = session.config
    log, baseline = config.stash.get(_KEY, None), config.getoption("--troth-baseline")
    if log is None or log.store is None or not baseline or not log.rows:
        return
    from troth.compare import compare_evals

    delta, alpha = config.getoption("--troth-fail-if-worse"), config.getoption("--troth-alpha")
    try:
        comparison = compare_evals(baseline, log.eval_id, store=log.store)
    except ValueError as exc:
        log.verdict = [f"baseline check not made: {exc}"]
        session.exitstatus = pytest.ExitCode.USAGE_ERROR
        return
    for sid, s in comparison.scorers.items():
        if (p := s.stats) is not None:
            shown = "-" if p.p_value is None else f"{p.p_value:.3g}"
            log.verdict.append(
                f"{sid}: mean {p.mean_b:.3f} against {p.mean_a:.3f} in {baseline} ({p.mean_diff:+.3f}, p {shown})"
            )
    failed = comparison.gate(delta, alpha)  # fails closed: nothing scored in both, or more failures, fail too
    if failed:
        log.verdict.append(f"WORSE than {baseline}: {'; '.join(failed)}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_unconfigure(config: pytest.Config) -> None:
    log = config.stash.get(_KEY, None)
    if log is not None and log.store is not None:
        log.store.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    log = item.config.stash.get(_KEY, None)
    if log is None:
        return (yield)
    log.current_test = item.nodeid
    token = asserts.RECORDER.set(log)  # the test's checks are logged while it runs
    try:
        return (yield)
    finally:
        asserts.RECORDER.reset(token)


@pytest.fixture
def troth_judge(pytestconfig: pytest.Config) -> Judge:
    """The judge chosen with --troth-model / --troth-base-url (default: the verifier)."""
    model = pytestconfig.getoption("--troth-model") or os.environ.get(asserts.ENV_MODEL) or "verifier"
    base_url = pytestconfig.getoption("--troth-base-url") or os.environ.get(asserts.ENV_BASE_URL)
    return Judge(model, base_url=base_url) if base_url else Judge(model)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    log = config.stash.get(_KEY, None)
    if log is None or not log.rows:
        return
    terminalreporter.section("troth scores")
    for test, name, score, threshold, passed in log.rows:
        mark = "PASS" if passed else "FAIL"
        terminalreporter.write_line(f"{mark} {name:<16} {score:>6g} (threshold {threshold:g})  {test}")
    for line in log.verdict:
        terminalreporter.write_line(line)
