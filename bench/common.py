"""What the benchmark scripts share: data and result paths, number formatting, writing results,
and running one tool's runner (bench/runners/) in its own interpreter; a process's memory."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA_DIR = Path(os.environ.get("TROTH_DATA_DIR") or HERE.parents[1] / "shared" / "data")
FILES = ("cliff-val", "qags-all", "qags-sentences", "wice-dev", "begin-dev")
RESULTS = HERE / "results"
RUNNERS = HERE / "runners"
PEERS = HERE / "peers"
TOOLS = ("troth", "ragas", "deepeval")


def fmt(value: Any, digits: int = 3) -> str:
    """A table cell: floats to ``digits`` decimals, None as a dash."""
    if value is None:
        return "–"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    """The lines of a Markdown table (cells already formatted)."""
    lines = ["| " + " | ".join(headers) + " |", "|---" * len(headers) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def write_results(stem: Path, report: dict[str, Any], markdown: str | None = None) -> None:
    """``<stem>.json`` (and ``<stem>.md``); called after every part, so a long run keeps what it finished."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    Path(f"{stem}.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    if markdown is not None:
        Path(f"{stem}.md").write_text(markdown, encoding="utf-8")


def tool_python(tool: str) -> Path | None:
    """The interpreter that runs ``tool``: this one for troth, the peer's venv otherwise."""
    if tool == "troth":
        return Path(sys.executable)
    python = PEERS / f".venv-{tool}" / "bin" / "python"
    return python if python.exists() else None


def run_runner(tool: str, items_file: Path, base_url: str, model: str, concurrency: int) -> dict[str, Any]:
    """Score ``items_file`` with ``tool``'s runner; its JSON report (see runners/_harness.py)."""
    python = tool_python(tool)
    if python is None:
        raise SystemExit(f"no interpreter for {tool}: run bash bench/peers/setup.sh")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        cmd = [
            str(python),
            str(RUNNERS / f"{tool}_runner.py"),
            "--items",
            str(items_file),
            "--base-url",
            base_url,
            "--model",
            model,
            "--concurrency",
            str(concurrency),
            "--out",
            str(out),
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=6 * 3600, check=False)
        if done.returncode != 0 or not out.exists():
            raise SystemExit(f"{tool} runner failed ({done.returncode}):\n{done.stderr[-3000:]}")
        report: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        return report


def rss_mb(pid: int | str = "self") -> float:
    """Resident memory of a process now (MB), from /proc (Linux)."""
    with open(f"/proc/{pid}/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**20
