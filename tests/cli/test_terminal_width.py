"""``troth compare``, ``troth eval`` and ``troth runs list`` in an 80-column pseudo-terminal: no
line wider than the terminal, no id or header cut, colour on the terminal and none when piped
(the JSON is checked unchanged in tests/compare/test_cli.py)."""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from contextlib import closing
from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.compare.conftest import ANSWER, CONTEXT, GOOD, WORSE, items, run
from troth.store import SQLiteStore
from troth.testing import FakeOpenAIServer

COLUMNS, ROWS = 80, 24
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")
LONG = "cliff-cnndm-BART-0099-a-rather-long-item-identifier-"  # + q00: 55 characters


def in_terminal(args: list[str], cwd: Path) -> str:
    """Run ``troth ARGS`` with a pseudo-terminal of 80×24 as its standard streams; what it wrote."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "troth", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=cwd,
        env={**env, "TERM": "xterm-256color"},
        close_fds=True,
    )
    os.close(slave)
    chunks, deadline = [], time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        elif proc.poll() is not None:
            break
    os.close(master)
    assert proc.wait(timeout=30) in (0, 1), b"".join(chunks).decode(errors="replace")
    return b"".join(chunks).decode("utf-8", errors="replace")


def screen_lines(raw: str) -> list[str]:
    """The lines as the terminal shows them: colour codes dropped."""
    return [ANSI.sub("", line).rstrip("\r") for line in raw.replace("\r\n", "\n").split("\n")]


def assert_fits(raw: str, ids: list[str], headers: list[str]) -> list[str]:
    lines = screen_lines(raw)
    too_wide = [line for line in lines if cell_len(line) > COLUMNS]
    assert not too_wide, too_wide
    assert "\u2026" not in "\n".join(lines)  # rich's ellipsis: something was cut
    for ident in ids:
        assert any(ident in line for line in lines), f"{ident} not whole on any line"
    for header in headers:
        assert any(header in line for line in lines), f"header {header!r} cut"
    assert "\x1b[" in raw  # colour on a terminal
    return lines


@pytest.fixture(scope="module")
def long_ids(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two evaluations of 30 items whose ids are 55 characters long; B worse on 12."""
    db = tmp_path_factory.mktemp("narrow") / "s.db"
    rows = [{**it, "id": LONG + str(it["id"])} for it in items(12)]
    run(GOOD, db, "baseline-evaluation-2026-12-05", rows)
    run(WORSE, db, "candidate-evaluation-2026-12-05", [*rows, {"id": "new", "output": ANSWER, "context": CONTEXT}])
    return db


def test_compare_fits_80_columns_with_ids_whole_and_claims_folded(long_ids: Path, tmp_path: Path) -> None:
    args = ["compare", "baseline-evaluation-2026-12-05", "candidate-evaluation-2026-12-05", "--store", str(long_ids)]
    raw = in_terminal(args, tmp_path)
    lines = assert_fits(
        raw,
        [f"{LONG}q{i:02d}" for i in range(10)] + ["candidate-evaluation-2026-12-05"],
        ["items, worst first", "change", "claims", "item", "mean A", "mean B", "95% CI"],
    )
    assert lines[0].startswith("faithfulness: B is significantly worse")  # the verdict first
    changes = [line for line in lines if ": yes -> no" in line]
    assert len(changes) == 10  # --limit 10 by default: 12 changes folded
    assert any("2 more claim changes" in line for line in lines)
    piped = subprocess.run(
        [sys.executable, "-m", "troth", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "TERM": "xterm-256color"},
    )
    assert piped.returncode == 0 and "\x1b[" not in piped.stdout  # no colour when piped
    assert piped.stdout.startswith("faithfulness: B is significantly worse")


def newest(store: Path, limit: int) -> list[str]:
    """The run, evaluation and item ids of the newest ``limit`` runs, as the store lists them."""
    with closing(SQLiteStore(store, read_only=True)) as opened:
        return [i for r in opened.list_runs(limit=limit) for i in (r.run_id, r.eval_id or "", r.item_id or "")]


def test_runs_list_fits_80_columns(long_ids: Path, tmp_path: Path) -> None:
    raw = in_terminal(["runs", "list", "--store", str(long_ids), "--limit", "5"], tmp_path)
    assert_fits(raw, newest(long_ids, 5), ["run ", "eval ", "item "])


def test_wide_prints_the_whole_table(long_ids: Path, tmp_path: Path) -> None:
    raw = in_terminal(["runs", "list", "--store", str(long_ids), "--limit", "2", "--wide"], tmp_path)
    lines = screen_lines(raw)
    assert max(cell_len(line) for line in lines) > COLUMNS  # the table as wide as it needs
    assert "\u2026" not in raw and any("item / trace" in line for line in lines)
    for ident in newest(long_ids, 2):
        assert any(ident in line for line in lines)


def test_eval_summary_fits_80_columns(server: FakeOpenAIServer, tmp_path: Path) -> None:
    server.responder = GOOD
    data = tmp_path / "data.jsonl"
    rows = [{"id": f"{LONG}q{i:02d}", "output": ANSWER, "context": CONTEXT} for i in range(3)]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    eval_id = "an-evaluation-named-at-some-length-2026-12-05-and-then-some"
    args = [
        "eval",
        str(data),
        "--model",
        "m",
        "--base-url",
        server.base_url,
        "--store",
        str(tmp_path / "s.db"),
        "--eval-id",
        eval_id,
        "-q",
    ]
    lines = assert_fits(
        in_terminal(args, tmp_path),
        [eval_id],
        ["items", "scored", "failed", "mean", "judge calls", "tokens", "cost", "wall s"],
    )
    assert any("mean 1.000" in line for line in lines)
