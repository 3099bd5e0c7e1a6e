"""The store on a real read-only mount and on a full disk (a 512 KB tmpfs), each made in a mount
namespace of its own (``unshare``): the CLI says what failed in one line (exit 2), reads a
read-only store, and keeps every score it could not save in ``--out``."""

from __future__ import annotations

import base64
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REQUIRED = os.environ.get("TROTH_REQUIRE_LOCAL_MODELS") == "1"
PYTHON = shlex.quote(sys.executable)
CONTEXT = ["The bridge opened in 1932 and is painted red."]


def namespaced(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``script`` (sh) as root of a new user and mount namespace: its mounts vanish with it."""
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200"},
    )


@pytest.fixture(scope="module", autouse=True)
def mounts_allowed(tmp_path_factory: pytest.TempPathFactory) -> None:
    probe = tmp_path_factory.mktemp("probe")
    if shutil.which("unshare") is None or namespaced(f"mount -t tmpfs -o size=64k tmpfs {probe}", probe).returncode:
        if REQUIRED:
            pytest.fail("this machine cannot make a mount namespace (unshare -rm)")
        pytest.skip("no mount namespaces here")


def troth(*args: str) -> str:
    return " ".join([PYTHON, "-m", "troth", *(shlex.quote(a) for a in args)])


def data(path: Path, n: int, padding: int = 0) -> Path:
    """``n`` items, each question ``padding`` characters of text no compression shrinks much."""
    noise = [base64.b64encode(random.Random(k).randbytes(padding * 3 // 4)).decode() for k in range(n)]
    rows = [
        {"id": f"i{k}", "input": noise[k] or "When?", "output": "The bridge opened in 1932.", "context": CONTEXT}
        for k in range(n)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_store_on_a_read_only_mount_is_read_and_a_run_into_it_fails_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    items = data(tmp_path / "d.jsonl", 3)
    made = subprocess.run(
        troth("eval", str(items), "--store", str(folder / "s.db"), "-q"),
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert made.returncode == 0, made.stderr
    read_only = f"mount --bind {folder} {folder} && mount -o remount,ro,bind {folder} && "
    listed = namespaced(read_only + troth("runs", "list", "--store", str(folder / "s.db")), tmp_path)
    assert listed.returncode == 0 and listed.stderr == "" and "faithfulness" in listed.stdout, listed.stderr
    run = namespaced(read_only + troth("eval", str(items), "--store", str(folder / "s.db"), "-q"), tmp_path)
    assert run.returncode == 2 and run.stdout == "", run.stdout
    assert run.stderr.startswith(f"error: cannot open the store at {folder / 's.db'}: it is read-only")
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr


@pytest.mark.parametrize("store", ["s.db", "runs.parquet"])
def test_a_full_disk_keeps_every_score_in_out_and_says_so_in_one_line(store: str, tmp_path: Path) -> None:
    disk, out = tmp_path / "disk", tmp_path / "out.jsonl"
    disk.mkdir()
    items = data(tmp_path / "d.jsonl", 30, padding=40_000)  # 30 items of 40 KB for 512 KB
    script = f"mount -t tmpfs -o size=512k tmpfs {disk} && " + troth(
        "eval", str(items), "--store", str(disk / store), "--out", str(out), "-q"
    )
    run = namespaced(script, tmp_path)
    assert run.returncode == 2, (run.stdout, run.stderr)
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith(f"error: cannot write the store at {disk / store}: the disk is full"), line
    assert line.endswith(f"item(s) not saved: their scores are in {out}") and "Traceback" not in run.stdout
    rows = [json.loads(r) for r in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 30 and all(r["score"] == 1.0 for r in rows)
