"""Each agent example runs as a user runs it, ``python examples/NAME.py`` with nothing added to the
path (offline, its model on 127.0.0.1), warns of no deprecated API, and prints a score."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agents.conftest import need

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("example", "framework"),
    [
        ("eval_openai_agent.py", "agents"),
        ("eval_pydantic_ai_agent.py", "pydantic_ai"),
        ("eval_langgraph_agent.py", "langgraph"),
    ],
)
def test_the_example_scores_its_agent(example: str, framework: str) -> None:
    need(framework)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # as a user runs it: nothing added
    env["PYTHONWARNINGS"] = "error::DeprecationWarning"  # a deprecated API in an example fails it
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / example)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["bridge", "1.0", "lookup"]
