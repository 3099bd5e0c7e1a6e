"""How fast a trace file is read into items: an OTLP/JSON export of agent runs (each an
``invoke_agent`` span over two ``chat`` calls and a tool call, GenAI convention, hex ids, 500
spans a line, as the Collector's file exporter writes), read with ``load_items``; spans per
second (median of the repeats) and the peak RSS of the process.

    python -m bench.trace_read --spans 100000 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

from bench.common import RESULTS, table, write_results
from troth.evals.dataset import load_items

QUESTION = "When did the Harbour Bridge open?"
TOOL_RESULT = "The Harbour Bridge opened in 1932 and is 134 m high."
ANSWER = "The Harbour Bridge opened in 1932."
PER_RUN = 4  # spans of one agent run
PER_LINE = 500


def _attr(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def _span(trace: str, n: int, parent: int | None, name: str, attributes: list[dict[str, Any]]) -> dict[str, Any]:
    span = {
        "traceId": trace,
        "spanId": f"{n:016x}",
        "name": name,
        "startTimeUnixNano": str(n),
        "attributes": attributes,
    }
    if parent is not None:
        span["parentSpanId"] = f"{parent:016x}"
    return span


def agent_run(k: int) -> list[dict[str, Any]]:
    """The four spans of agent run ``k``: the run, two model calls, one tool call."""
    trace, base = f"{k + 1:032x}", k * PER_RUN + 1
    asked = json.dumps([{"role": "user", "parts": [{"type": "text", "content": QUESTION}]}])
    answered = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}])
    chat = [_attr("gen_ai.operation.name", "chat"), _attr("gen_ai.input.messages", asked)]
    return [
        _span(trace, base, None, "invoke_agent city", [_attr("gen_ai.operation.name", "invoke_agent")]),
        _span(trace, base + 1, base, "chat m", chat),
        _span(
            trace,
            base + 2,
            base,
            "execute_tool lookup",
            [_attr("gen_ai.operation.name", "execute_tool"), _attr("gen_ai.tool.call.result", TOOL_RESULT)],
        ),
        _span(trace, base + 3, base, "chat m", [*chat, _attr("gen_ai.output.messages", answered)]),
    ]


def write_export(path: Path, spans: int) -> int:
    """An export of ``spans`` spans (rounded down to whole runs), ``PER_LINE`` to a line; the number of runs."""
    runs = spans // PER_RUN
    per_line = PER_LINE // PER_RUN
    with path.open("w", encoding="utf-8") as fh:
        for first in range(0, runs, per_line):
            found = [s for k in range(first, min(first + per_line, runs)) for s in agent_run(k)]
            request = {"resourceSpans": [{"scopeSpans": [{"spans": found}]}]}
            fh.write(json.dumps(request) + "\n")
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "traces.json"
        runs = write_export(path, args.spans)
        size_mb = path.stat().st_size / 2**20
        seconds = []
        for _ in range(args.repeats):
            started = time.perf_counter()
            items = load_items(path)
            seconds.append(time.perf_counter() - started)
            assert len(items) == runs and all(i.error is None and i.context == [TOOL_RESULT] for i in items)
    median = statistics.median(seconds)
    report = {
        "spans": runs * PER_RUN,
        "items": runs,
        "file_mb": round(size_mb, 1),
        "seconds": [round(s, 3) for s in seconds],
        "median_s": round(median, 3),
        "spans_per_s": round(runs * PER_RUN / median),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    rows = [
        [
            report["spans"],
            report["items"],
            report["file_mb"],
            report["median_s"],
            report["spans_per_s"],
            report["peak_rss_mb"],
        ]
    ]
    headers = ["spans", "items", "file MB", "median s", "spans/s", "peak RSS MB"]
    title = f"Trace file read with `load_items`, {date.today()}, medians of {args.repeats}."
    markdown = "\n".join([title, "", *table(headers, rows)])
    write_results(RESULTS / f"trace-read-{date.today()}", report, markdown)
    print(markdown)


if __name__ == "__main__":
    main()
