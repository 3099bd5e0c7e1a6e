"""The command line, run as a real subprocess against the loopback server."""

from __future__ import annotations

import json
from pathlib import Path

from tests.commands import troth
from troth.testing import FakeOpenAIServer, ScriptedJudge


def test_score_json_against_server(server: FakeOpenAIServer, tmp_path: Path) -> None:
    server.responder = ScriptedJudge(verdicts={"1889": ("yes", "completed in 1889"), "Rome": ("no", "in Paris")})
    ctx = tmp_path / "ctx.txt"
    ctx.write_text("The Eiffel Tower, completed in 1889, stands in Paris.")
    proc = troth(
        "score",
        "--output",
        "It was completed in 1889. It is in Rome.",
        "--context",
        f"@{ctx}",
        "--model",
        "m",
        "--base-url",
        server.base_url,
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["score"] == 0.5
    assert [v["verdict"] for v in data["analyze_step_result"]["verdicts"]] == ["yes", "no"]


def test_score_table_output(server: FakeOpenAIServer) -> None:
    server.responder = ScriptedJudge(verdicts={"blue": ("yes", "sky is blue")}, reason="One claim, supported.")
    proc = troth(
        "score",
        "--output",
        "@-",
        "--context",
        "The sky is blue.",
        "--model",
        "m",
        "--base-url",
        server.base_url,
        "--reason",
        "judge",
        stdin="The sky is blue.",
    )
    assert proc.returncode == 0, proc.stderr
    assert "Faithfulness score: 1 / 1" in proc.stdout
    assert "One claim, supported." in proc.stdout
    assert "yes" in proc.stdout and "sky is blue" in proc.stdout


def test_strategy_and_reason_options(server: FakeOpenAIServer) -> None:
    server.responder = ScriptedJudge(verdicts={"blue": ("yes", "sky is blue")}, reason="Judge's words.")
    common = [
        "score",
        "--output",
        "The sky is blue.",
        "--context",
        "The sky is blue.",
        "--model",
        "m",
        "--base-url",
        server.base_url,
        "--json",
    ]
    one = json.loads(troth(*common, "--strategy", "single-pass").stdout)
    assert [r.schema_name for r in server.requests] == ["ClaimsWithVerdicts"] and one["score"] == 1.0
    assert "Judge's words" not in one["reason"]  # single pass: the reason from the template
    server.reset()
    two = json.loads(troth(*common, "--strategy", "two-step", "--reason", "judge").stdout)
    assert [r.schema_name for r in server.requests][:2] == ["ExtractedClaims", "ClaimVerdicts"]
    assert len(server.requests) == 3 and two["reason"] == "Judge's words."
    bad = troth(*common, "--strategy", "one-shot")
    assert bad.returncode == 2 and "Invalid value for '--strategy'" in bad.stderr
    assert "'one-shot' is not one of" in bad.stderr


def test_errors_are_one_line_without_traceback() -> None:
    proc = troth("score", "--output", "x", "--model", "opneai/gpt-4o")
    assert proc.returncode == 2
    assert (
        proc.stderr.strip() == "error: unknown model 'opneai/gpt-4o'; did you mean 'openai/gpt-4o'? "
        "Known providers: anthropic, deepseek, google, groq, llm, local, local-llm, mistral, ollama, openai, "
        "openrouter, together, verifier, xai."
    )
    assert "Traceback" not in proc.stderr


def test_missing_file_and_missing_output() -> None:
    proc = troth("score", "--output", "@/no/such/file")
    assert proc.returncode == 2 and "cannot read /no/such/file" in proc.stderr
    proc = troth("score")
    assert proc.returncode == 2 and "--output" in proc.stderr


def test_models_list() -> None:
    proc = troth("models", "list")
    assert proc.returncode == 0
    assert "qwen2.5-coder-1.5b" in proc.stdout and "smollm2-135m" in proc.stdout
