"""Scorers by name: the built-in ones from ``troth score/eval --scorer``, a new scorer that is its
own module plus one registry line, and one installed by another package's entry point (a real
dist-info on the path of a ``troth`` subprocess)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.commands import troth
from troth.cli import app
from troth.errors import ConfigError
from troth.scorers import registry
from troth.testing import FakeOpenAIServer, ScriptedJudge

CONTEXT = "The museum opens at 10:00 and entry costs 12 euros."
OVERLAP = '''
from troth import create_scorer


def make(model=None, *, scale=1.0, minimum=0):
    """Share of the output's words found in the context, times scale (no judge)."""

    def score(ctx):
        context = set(" ".join(ctx.run.context or []).lower().split())
        words = ctx.run.output.lower().split()
        return round(scale * sum(w in context for w in words) / max(len(words), minimum, 1), 2)

    return create_scorer(id="word-overlap", description="Words of the output in the context.").generate_score(score)
'''


def test_the_built_in_scorers_run_from_the_cli(server: FakeOpenAIServer, tmp_path: Path) -> None:
    server.responder = ScriptedJudge(
        verdicts={"10:00": ("yes", "opens at 10:00"), "free": ("no", "12 euros")}, relevance={"free": "unsure"}
    )
    common = [
        "--model",
        "m",
        "--base-url",
        server.base_url,
        "--output",
        "It opens at 10:00. Entry is free.",
        "--context",
        CONTEXT,
        "--json",
    ]
    hallucination = troth("score", "--scorer", "hallucination", *common, cwd=tmp_path)
    assert hallucination.returncode == 0, hallucination.stderr
    assert json.loads(hallucination.stdout)["score"] == 0.5
    relevancy = troth(
        "score",
        "--scorer",
        "answer-relevancy",
        "--input",
        "When does it open?",
        "--opt",
        "uncertainty_weight=0.5",
        "--scale",
        "10",
        *common,
        cwd=tmp_path,
    )
    assert relevancy.returncode == 0, relevancy.stderr
    assert json.loads(relevancy.stdout)["score"] == 7.5  # (1 + 0.5 × 1 partly relevant) / 2 × 10


def test_bad_scorer_names_and_options_are_one_line_errors(tmp_path: Path) -> None:
    cases = [
        (["--scorer", "faithfulnes"], "unknown scorer 'faithfulnes' (did you mean 'faithfulness'?); known: "),
        (["--opt", "batch_size"], "--opt takes key=value, not 'batch_size'"),
        (["--opt", "bogus=1"], "scorer 'faithfulness': create_faithfulness_scorer() got an unexpected keyword"),
        (["--scorer", "answer-relevancy", "--strategy", "single-pass"], "scorer 'answer-relevancy': "),
        (["--base-url", "http://127.0.0.1:9"], "--base-url needs --model"),
    ]
    for args, message in cases:
        out = troth("score", "--example", *args, cwd=tmp_path)
        assert out.returncode == 2 and message in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr


@pytest.fixture
def overlap_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    (tmp_path / "overlap_scorer.py").write_text(OVERLAP, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(registry.BUILT_IN, "word-overlap", "overlap_scorer:make")  # the registry line
    yield
    sys.modules.pop("overlap_scorer", None)


@pytest.mark.usefixtures("overlap_module")
def test_a_new_scorer_is_one_module_and_one_registry_line() -> None:
    args = [
        "score",
        "--scorer",
        "word-overlap",
        "--output",
        "opens at noon",
        "--context",
        CONTEXT,
        "--opt",
        "scale=10",
        "--json",
    ]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["score"] == 6.67  # "opens" and "at" of three words
    scorer = registry.build("word-overlap", options={"minimum": 4})
    assert scorer.run(output="opens at noon", context=[CONTEXT]).score == 0.5
    with pytest.raises(ConfigError, match=r"scorer 'word-overlap': .*unexpected keyword argument 'size'"):
        registry.build("word-overlap", options={"size": 1})


def test_another_package_adds_a_scorer_by_entry_point(tmp_path: Path) -> None:
    site = tmp_path / "site"
    info = site / "overlap_scorers-0.1.dist-info"
    info.mkdir(parents=True)
    (site / "overlap_scorer.py").write_text(OVERLAP, encoding="utf-8")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: overlap-scorers\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[troth.scorers]\nword-overlap = overlap_scorer:make\n", encoding="utf-8")
    env = {"PYTHONPATH": str(site), "TROTH_STORE": str(tmp_path / "s.db")}
    out = troth(
        "score",
        "--scorer",
        "word-overlap",
        "--output",
        "opens at noon",
        "--context",
        CONTEXT,
        "--json",
        cwd=tmp_path,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["score"] == 0.67
    data = tmp_path / "items.jsonl"
    data.write_text(json.dumps({"id": "a", "output": "opens at noon", "context": [CONTEXT]}) + "\n")
    evaluated = troth(
        "eval",
        str(data),
        "--scorer",
        "word-overlap",
        "--eval-id",
        "e1",
        "-q",
        "--out",
        "rows.jsonl",
        cwd=tmp_path,
        env=env,
    )
    assert evaluated.returncode == 0, evaluated.stderr
    row = json.loads((tmp_path / "rows.jsonl").read_text())
    assert row["scorer_id"] == "word-overlap" and row["score"] == 0.67
    assert "word-overlap" in troth("score", "--scorer", "nope", "--example", cwd=tmp_path, env=env).stderr
