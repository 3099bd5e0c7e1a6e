"""pytest plugin (entry point ``pytest11``): options, a ``troth_judge`` fixture, a score summary.

pytest --troth-model openai/gpt-4o-mini
pytest --troth-model my-model --troth-base-url http://127.0.0.1:8000/v1
pytest --troth-store .troth/troth.db    # save every score of the session in the store
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

    def __init__(self, store: Path | None) -> None:
        self.rows: list[tuple[str, str, float, float, bool]] = []
        self.store = SQLiteStore(store) if store is not None else None
        self.eval_id = "pytest-" + datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
        self.current_test = ""

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
    group.addoption("--troth-model", help="judge for troth's assert helpers: 'local', 'llm' or 'provider/model'")
    group.addoption("--troth-base-url", help="OpenAI-compatible server for --troth-model")
    group.addoption("--troth-store", help="save every score of the session in this SQLite store")


def pytest_configure(config: pytest.Config) -> None:
    model = config.getoption("--troth-model")
    base_url = config.getoption("--troth-base-url")
    if model:
        os.environ[asserts.ENV_MODEL] = model
    if base_url:
        os.environ[asserts.ENV_BASE_URL] = base_url
    store = config.getoption("--troth-store")
    log = ScoreLog(Path(store) if store else None)
    config.stash[_KEY] = log


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
    """The judge chosen with --troth-model / --troth-base-url (default: the local judge)."""
    model = pytestconfig.getoption("--troth-model") or os.environ.get(asserts.ENV_MODEL) or "local"
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
