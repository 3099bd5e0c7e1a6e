"""Every Python and shell block of the README and the docs runs, as a reader would run it.

Each page's Python blocks run in order in one fresh interpreter (a reader pasting them in turn),
its shell blocks one by one, all in a folder holding the files they name. Judges reach the
loopback server through the environment a reader sets for a proxy (``OPENAI_BASE_URL``) and the
offline verifier runs for real. A block marked skip is syntax-checked only.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.docs.snippets import ROOT, Snippet, matches, pages, snippets
from troth.testing import FakeOpenAIServer, Reply, ScriptedJudge
from troth.testing.server import Request

FILES = Path(__file__).parent / "files"
# Pages that run a local LLM (llama.cpp's threads spin: run with nothing beside them, make test's second step).
LOCAL_MODEL = {"offline-judges.md"}
PAGES = [
    pytest.param(p, id=str(p.relative_to(ROOT)), marks=[pytest.mark.local_model] if p.name in LOCAL_MODEL else [])
    for p in pages()
    if any(s.lang == "python" for s in snippets(p))
]
SHELL = [s for p in pages() for s in snippets(p) if s.lang == "bash"]

# What the docs' answers say, as the scripted judge answers it: supported claims with their quotes.
VERDICTS = {
    "electric sedan": ("yes", "The Tesla Model 3 is a battery-electric sedan made by Tesla."),
    "July 2017": ("yes", "Deliveries began in July 2017."),
    "520 miles": ("no", "The Long Range version has an EPA-rated range of 358 miles."),
    "bridge opened": ("yes", "The bridge opened in 1932."),
    "1932": ("yes", "The bridge opened in 1932."),
    "library opens": ("yes", "The library opens at 9 am every day."),
    "Fremont": ("yes", "The car is built at the Fremont factory in California and at Gigafactory Shanghai."),
}


class DocsJudge(ScriptedJudge):
    """The scripted judge, and the answers of the docs' own prompt steps."""

    def __call__(self, request: Request) -> Reply:
        if request.schema_name == "Tone":
            return Reply(content={"polite": True})
        return super().__call__(request)


@pytest.fixture(scope="module")
def judge_url() -> Iterator[str]:
    with FakeOpenAIServer(DocsJudge(verdicts=VERDICTS), record=False) as server:
        yield server.base_url


@pytest.fixture
def folder(tmp_path: Path, judge_url: str) -> tuple[Path, dict[str, str]]:
    """A folder with the files the snippets name, and the environment a reader would have."""
    shutil.copytree(FILES, tmp_path, dirs_exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TROTH_STORE", "OPENAI_"))}
    env |= {"OPENAI_API_KEY": "sk-docs", "OPENAI_BASE_URL": judge_url, "NO_COLOR": "1", "COLUMNS": "100"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return tmp_path, env


def check_output(snippet: Snippet, stdout: str) -> None:
    if snippet.output is not None:
        assert matches(snippet.output, stdout), f"{snippet.where} printed:\n{stdout}\nexpected:\n{snippet.output}"


@pytest.mark.parametrize("page", PAGES)
def test_the_python_blocks_of_a_page_run(page: Path, folder: tuple[Path, dict[str, str]]) -> None:
    cwd, env = folder
    found = [s for s in snippets(page) if s.lang == "python"]
    for s in found:
        compile(s.code, s.where, "exec", flags=0x2000)  # PyCF_ALLOW_TOP_LEVEL_AWAIT
    run = [s for s in found if s.mark != "skip" and s.include is None]
    results = cwd / "results.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "docs" / "run_page.py"), str(results)],
        input=json.dumps([s.code for s in run]),
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    outcomes = json.loads(results.read_text())
    for snippet, outcome in zip(run, outcomes, strict=False):
        assert not outcome["error"], f"{snippet.where} raised:\n{outcome['error']}"
        check_output(snippet, outcome["stdout"])
    assert len(outcomes) == len(run)


@pytest.mark.parametrize("snippet", SHELL, ids=[s.where for s in SHELL])
def test_a_shell_block_runs(snippet: Snippet, folder: tuple[Path, dict[str, str]]) -> None:
    cwd, env = folder
    syntax = subprocess.run(["bash", "-n"], input=snippet.code, capture_output=True, text=True)
    assert syntax.returncode == 0, f"{snippet.where}: {syntax.stderr}"
    if snippet.mark == "skip":
        assert snippet.reason, f"{snippet.where}: a skipped block says why"
        return
    done = subprocess.run(
        ["bash", "-euo", "pipefail"], input=snippet.code, cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{snippet.where} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    check_output(snippet, done.stdout)


def test_every_block_runs_or_says_why_not() -> None:
    every = [s for p in pages() for s in snippets(p)]
    python = [s for s in every if s.lang == "python"]
    assert python and SHELL
    assert [s.where for s in python if s.mark == "skip"] == []  # every Python block runs
    for s in every:
        assert s.mark in ("", "skip"), f"{s.where}: unknown mark {s.mark!r}"
        if s.include is not None:
            assert (ROOT / s.include).is_file(), s.where
            tested = "".join(p.read_text() for p in (ROOT / "tests" / "examples").glob("test_*.py"))
            assert Path(s.include).name in tested, f"{s.where}: no test runs {s.include}"


def test_output_blocks_are_matched_line_by_line() -> None:
    assert matches("a\n...\nd\n", "a\nb\nc\nd\n") and matches("a\n", "a  \n")
    assert not matches("a\nd\n", "a\nb\nd\n") and not matches("a\n", "b\n")
