"""The command line under hostile text and a key-echoing judge: rich markup and HTML in answers
and judge replies print literally, every artefact (stdout, stderr, --out, --report, the store,
``runs list``/``runs show``) is free of the key, and exit codes are as documented."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

from tests.commands import troth as command
from tests.conftest import SECRET_KEY
from tests.faults.conftest import CONTEXT, MARKER, assert_no_secret, healthy
from troth.testing import FakeOpenAIServer
from troth.testing.faults import FAULTS, FaultyJudge

HOSTILE = "The bridge [bold]opened[/bold] in 1932. [/] <script>alert(1)</script> It is 80 m high."


def troth(*args: str) -> subprocess.CompletedProcess[str]:
    return command(*args, env={"TROTH_API_KEY": SECRET_KEY}, columns=250)


def run_eval(server: FakeOpenAIServer, tmp_path: Path, name: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    data = tmp_path / "data.jsonl"
    rows = [
        {"id": "[red]hostile[/red]", "output": HOSTILE, "context": CONTEXT},
        {"id": "faulted", "output": f"The {MARKER} bridge opened in 1932.", "context": CONTEXT},
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    store = tmp_path / "s.db"
    out, report = str(tmp_path / f"{name}.jsonl"), str(tmp_path / f"{name}.html")
    args = [
        "eval",
        str(data),
        "--model",
        "m",
        "--base-url",
        server.base_url,
        "--store",
        str(store),
        "-q",
        "--eval-id",
        name,
        "--out",
        out,
        "--report",
        report,
    ]
    return troth(*args), store


def run_ids(store: Path) -> list[str]:
    with sqlite3.connect(store) as conn:
        return [r[0] for r in conn.execute("SELECT run_id FROM runs")]


def test_markup_and_html_print_literally(tmp_path: Path) -> None:
    with FakeOpenAIServer(FaultyJudge(healthy(), [FAULTS["not-json-content"]], marker=MARKER)) as server:
        proc, store = run_eval(server, tmp_path, "markup")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr  # one item failed: status 1
    assert "item faulted: faithfulness failed in preprocess: JudgeOutputError" in proc.stdout
    assert "[/red] Here are [bold]the verdicts[/]" in proc.stdout.replace("\n", " ")  # the judge's text, as sent
    assert proc.stderr.strip().splitlines()[-1].startswith("troth: 1 of 2 item(s) failed: preprocess 1 (first: item")
    report = (tmp_path / "markup.html").read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in report and "&lt;script&gt;alert(1)&lt;/script&gt;" in report
    listing = troth("runs", "list", "--store", str(store))
    assert listing.returncode == 0 and "[red]hostile[/red]" in listing.stdout
    shown = [troth("runs", "show", run_id, "--store", str(store)) for run_id in run_ids(store)]
    assert all(p.returncode == 0 and "Traceback" not in p.stderr for p in shown)
    text = " ".join(p.stdout.replace("\n", " ") for p in shown)
    assert "[bold]opened[/bold]" in text and "Failed in step preprocess" in text


def test_echoed_key_reaches_no_artefact_and_all_failed_exits_1(tmp_path: Path) -> None:
    with FakeOpenAIServer(FaultyJudge(healthy(), [FAULTS["echo-key"]])) as server:
        proc, store = run_eval(server, tmp_path, "echo")
    assert proc.returncode == 1 and "troth: 2 of 2 item(s) failed" in proc.stderr
    assert "HTTP 401" in proc.stdout and "[REDACTED]" in proc.stdout
    listing = troth("runs", "list", "--store", str(store))
    shown = [troth("runs", "show", run_id, "--store", str(store), "--json") for run_id in run_ids(store)]
    assert len(shown) == 2 and all("[REDACTED]" in p.stdout for p in shown)
    texts = [proc.stdout, proc.stderr, listing.stdout, *(p.stdout for p in shown)]
    assert_no_secret(store, tmp_path / "echo.jsonl", tmp_path / "echo.html", *texts)
    assert_no_secret(*(p for p in store.parent.glob("s.db*")))


def test_an_unwritable_out_or_report_exits_3_before_any_judge_call(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"id": "a", "output": "The bridge opened in 1932.", "context": CONTEXT}) + "\n")
    (tmp_path / "folder").mkdir()
    with FakeOpenAIServer(healthy()) as server:
        base = ["eval", str(data), "--model", "m", "--base-url", server.base_url, "--store", str(tmp_path / "s.db")]
        cases = [
            ("--out", str(tmp_path / "folder"), "it is a folder"),
            ("--report", "/proc/troth-report.html", "No such file or directory"),
            ("--out", str(tmp_path / "missing" / "rows.jsonl"), "No such file or directory"),
        ]
        for option, path, problem in cases:
            proc = troth(*base, option, path)
            assert proc.returncode == 3, proc.stderr
            assert proc.stderr == f"error: cannot write {option} {path}: {problem}\n"
        assert server.requests == [] and not (tmp_path / "s.db").exists()
        good = tmp_path / "rows.jsonl"
        assert troth(*base, "--out", str(good)).returncode == 0 and good.read_text().count("\n") == 1


def test_compare_and_live_check_their_report_path_first(tmp_path: Path) -> None:
    for args in (["compare", "a", "b"], ["live"]):
        proc = troth(*args, "--store", str(tmp_path / "none.db"), "--report", str(tmp_path))
        assert proc.returncode == 3 and proc.stderr == f"error: cannot write --report {tmp_path}: it is a folder\n"
