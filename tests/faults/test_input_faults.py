"""Hostile or broken input: files that are not UTF-8, huge answers, odd message shapes, context
functions that raise. Each fails its own item with a typed error naming the step (or the whole
call with an error naming the file and line), never the batch, and never silently scores 0."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.faults.conftest import CONTEXT, ITEMS, fault_judge
from troth import create_faithfulness_scorer, run_evals
from troth.errors import OutputTooLongError
from troth.testing import FakeOpenAIServer


def troth(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "troth", *args], capture_output=True, input=stdin, timeout=120)


def test_file_not_utf8_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(json.dumps(ITEMS[0]).encode() + b"\n" + b'{"output": "caf\xe9", "context": ["x"]}\n')
    with pytest.raises(ValueError, match=r"latin1\.jsonl:2: not UTF-8 text \(byte 0xe9"):
        run_evals(str(path), [create_faithfulness_scorer("local")], store=None, quiet=True)
    proc = troth("eval", str(path), "--no-store", "-q")
    stderr = proc.stderr.decode()
    assert proc.returncode == 2 and "Traceback" not in stderr
    assert stderr.strip().count("\n") == 0 and "latin1.jsonl:2: not UTF-8" in stderr


def test_cli_argument_file_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "answer.txt").write_bytes(b"line one\nthe caf\xe9 opens at 9\n")
    proc = troth("score", "--output", f"@{tmp_path / 'answer.txt'}", "--context", "x")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr.decode()
    assert "answer.txt:2:notUTF-8" in flat(proc.stderr)
    proc = troth("score", "--output", "@-", "--context", "x", stdin=b"caf\xe9")
    assert proc.returncode == 2 and "stdin:1:notUTF-8" in flat(proc.stderr)


def flat(stderr: bytes) -> str:
    """Click's boxed error message as one line without borders or spaces (it wraps anywhere)."""
    return "".join(line.strip(" │╭╮╰╯─") for line in stderr.decode().splitlines()).replace(" ", "")


def test_huge_output_fails_before_any_judge_call(fault_server: FakeOpenAIServer) -> None:
    big = {"id": "big", "output": "The bridge opened in 1932. " * 40_000, "context": CONTEXT}  # ~1 MB
    result = run_evals([big, ITEMS[1]], [create_faithfulness_scorer(fault_judge(fault_server))], store=None, quiet=True)
    error = result.items[0].errors["faithfulness"]
    assert (error.type, error.step) == (
        "OutputTooLongError",
        "prepare",
    ) and "over the limit of 100,000" in error.message
    assert result.items[1].results["faithfulness"].score == 0.0
    assert all("1932. The bridge opened in 1932. The bridge" not in r.prompt for r in fault_server.requests)
    scorer = create_faithfulness_scorer(fault_judge(fault_server), max_output_chars=50)
    with pytest.raises(OutputTooLongError, match="raise max_output_chars"):
        scorer.run(output="x" * 51, context=CONTEXT)


ODD_OUTPUTS: list[Any] = [
    [{"role": "assistant", "content": None}],  # a transcript with no text
    [
        {"role": "tool", "content": [{"type": "text", "text": "The bridge opened in 1932."}]},
        {"role": "assistant", "content": [{"type": "text", "text": "The bridge opened in 1932."}]},
    ],
    [{"role": "assistant"}, 5, "text"],  # not messages at all
    {"unexpected": "mapping"},
    12.5,
]


def test_odd_message_shapes_fail_or_score_their_own_item(fault_server: FakeOpenAIServer) -> None:
    data = [{"id": f"odd-{i}", "output": out, "context": CONTEXT} for i, out in enumerate(ODD_OUTPUTS)]
    scorer = create_faithfulness_scorer(fault_judge(fault_server), reason="template")
    result = run_evals([*data, ITEMS[0]], [scorer], store=None, quiet=True)
    by_id = {it.id: it for it in result.items}
    assert by_id["ok-yes"].results["faithfulness"].score == 1.0
    assert by_id["odd-1"].results["faithfulness"].score == 1.0  # parts are read as text
    empty = by_id["odd-0"].results["faithfulness"]
    assert empty.score == 0.0 and "no claims" in (empty.reason or "")  # an empty answer says so
    for i in (2, 3, 4):
        assert by_id[f"odd-{i}"].errors["faithfulness"].type == "TypeError"
        assert "output must be a string or a list of chat messages" in by_id[f"odd-{i}"].errors["faithfulness"].message


def test_context_function_that_raises_fails_only_its_item(fault_server: FakeOpenAIServer, tmp_path: Path) -> None:
    def get_context(run: Any) -> list[str]:
        if "1950" in run.output:
            raise KeyError("docs")
        return CONTEXT

    scorer = create_faithfulness_scorer(fault_judge(fault_server), get_context=get_context, reason="template")
    data = [{k: v for k, v in item.items() if k != "context"} for item in ITEMS[:2]]
    result = run_evals(data, [scorer], store=tmp_path / "s.db", eval_id="ctx", quiet=True)
    error = result.items[1].errors["faithfulness"]
    assert (error.type, error.step) == ("ContextFunctionError", "get_context")
    assert "get_context raised KeyError: 'docs'" in error.message
    assert result.items[0].results["faithfulness"].score == 1.0
