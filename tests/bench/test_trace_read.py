"""The trace-reading benchmark's export is what the reader takes: one item per agent run, the
tool's text as context."""

from __future__ import annotations

from pathlib import Path

from bench.trace_read import ANSWER, QUESTION, TOOL_RESULT, write_export
from troth.evals.dataset import load_items


def test_the_benchmark_export_reads_as_one_item_per_agent_run(tmp_path: Path) -> None:
    path = tmp_path / "traces.json"
    runs = write_export(path, 1002)  # 250 runs, 125 to a line: two lines
    items = load_items(path)
    assert runs == 250 and len(items) == 250 and len(path.read_text().splitlines()) == 2
    assert all((i.input, i.output, i.context) == (QUESTION, ANSWER, [TOOL_RESULT]) for i in items)
