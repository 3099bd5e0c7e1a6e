"""Reading and checking evaluation items: a list of dicts, a .jsonl/.csv file, an OTLP/JSON
trace export or a DataFrame."""

from __future__ import annotations

import contextlib
import csv
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from troth.evals.eval_result import ItemError
from troth.evals.item import ITEM_FIELDS, Item
from troth.evals.otlp import read_otlp
from troth.evals.trace_options import Level, TraceOptions
from troth.scorers.inputs import validate_context
from troth.textfiles import read_text

__all__ = ["ITEM_FIELDS", "Item", "check_row", "check_target", "load_items", "read_traces"]


def load_items(data: Any) -> list[Item]:
    """Items from a list of dicts, a .jsonl/.csv path, an OTLP/JSON trace export (.json/.jsonl)
    or a pandas DataFrame; checked row by row."""
    if isinstance(data, (str, Path)):
        rows = _read_file(Path(data))
    elif hasattr(data, "to_dict") and hasattr(data, "columns"):
        rows = data.to_dict(orient="records")
    elif isinstance(data, Iterable) and not isinstance(data, (str, bytes, Mapping)):
        rows = list(data)
    else:
        raise TypeError(f"data must be a list of dicts, a .jsonl/.csv path or a DataFrame, not {type(data).__name__}")
    if not rows:
        raise ValueError("data is empty: there is nothing to evaluate")
    seen: set[str] = set()
    items = []
    for i, row in enumerate(rows):
        item = check_row(row, f"data row {i + 1}", default_id=str(i))
        if item.id in seen:
            raise ValueError(f"data row {i + 1}: duplicate id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    return items


def read_traces(
    path: str | Path,
    *,
    level: Level = "agent",
    span_name: str | None = None,
    attributes: Mapping[str, str] | None = None,
    sample: float | None = None,
    input_attr: str | None = None,
    output_attr: str | None = None,
    context_attr: str | None = None,
) -> list[Item]:
    """The items of a trace file (an OTLP/JSON export), for ``run_evals``: one per agent run (and
    per LLM call outside one), or per LLM call with ``level="llm"``; only the spans named
    ``span_name`` with the ``attributes`` given; ``sample``: the share of traces kept (by trace
    id); ``*_attr``: the attribute holding the input, output or context, for spans of a
    convention troth does not read."""
    options = TraceOptions(level, span_name, dict(attributes or {}), sample, input_attr, output_attr, context_attr)
    return read_trace_file(Path(path), options)


def read_trace_file(path: Path, options: TraceOptions) -> list[Item]:
    """The items of the trace file at ``path`` as ``options`` say; ValueError when it is not one."""
    rows = read_otlp(read_text(path), str(path), options)
    if rows is None:
        raise ValueError(f'{path}: not an OTLP/JSON trace export (a {{"resourceSpans": [...]}} request per line)')
    return load_items(rows)


def check_target(items: list[Item], target: Any) -> None:
    """ValueError naming the first item without an output when there is no target to make one."""
    missing = next((it.id for it in items if it.output is None and it.error is None), None)
    if target is None and missing is not None:
        raise ValueError(f"item {missing!r} has no 'output' and no target was given to produce one")


def check_row(row: Any, where: str, *, default_id: str | None = None) -> Item:
    """One row as an :class:`Item`; ValueError/TypeError naming ``where`` if bad."""
    if isinstance(row, Item):
        return row  # checked when it was made
    if not isinstance(row, Mapping):
        raise TypeError(f"{where} must be a dict, not {type(row).__name__}")
    if row.get("input") is None and row.get("output") is None and row.get("error") is None:
        raise ValueError(f"{where} has neither 'input' nor 'output'")
    if row.get("id") is not None:
        item_id = str(row["id"])
    elif default_id is not None:
        item_id = default_id
    else:
        raise ValueError(f"{where} has no 'id'")
    metadata = row.get("metadata")
    if metadata is not None and not isinstance(metadata, Mapping):
        raise TypeError(f"{where}: 'metadata' must be an object, not {type(metadata).__name__}")
    return Item(
        item_id,
        row.get("input"),
        row.get("output"),
        validate_context(row.get("context"), f"{where}: 'context'"),
        row.get("ground_truth"),
        dict(metadata or {}),
        None if row.get("error") is None else _error(row["error"], where),
    )


def _error(error: Any, where: str) -> ItemError:
    """A row its reader could not make (a broken span): failed as data."""
    if not isinstance(error, Mapping) or not isinstance(error.get("message"), str):
        raise TypeError(f"{where}: 'error' must be an object with a 'type' and a 'message'")
    return ItemError(str(error.get("type") or "ValueError"), error["message"], "data")


def _read_file(path: Path) -> list[dict[str, Any]]:
    text = read_text(path)
    if path.suffix in (".json", ".jsonl") and (spans := read_otlp(text, str(path))) is not None:
        return spans
    if path.suffix == ".jsonl":
        rows = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not valid JSON ({exc.msg})") from None
        return rows
    if path.suffix == ".csv":
        rows = list(csv.DictReader(text.splitlines()))
        for n, row in enumerate(rows, 2):
            if None in row:
                raise ValueError(f"{path}:{n}: more fields than the header has")
            if row.get("context"):
                with contextlib.suppress(json.JSONDecodeError):  # a JSON list, or a plain string
                    row["context"] = json.loads(row["context"])
        return rows
    raise ValueError(f"{path}: unsupported file type {path.suffix!r} (use .jsonl, .csv or an OTLP/JSON trace export)")
