"""Hostile OTLP/JSON trace exports: parent cycles, deep chains, wrong shapes and types, duplicate
ids, deep JSON. Reading ends, a span that cannot be read fails with the file, the line and its id,
and every other span is still an item."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from troth import InvalidTraceError
from troth.evals.dataset import Item, load_items
from troth.store import SQLiteStore

TRACE = "0af7651916cd43dd8448eb211c80319c"
CONTEXT = "The Harbour Bridge opened in 1932."
ANSWER = "The bridge opened in 1932."


def span_id(n: int) -> str:
    return f"{n + 1:016x}"


def attr(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def span(n: int, parent: int | None, operation: str | None = "chat", **extra: Any) -> dict[str, Any]:
    """A span in the OTLP/JSON encoding; an LLM call answers ANSWER from a tool result CONTEXT."""
    attributes = []
    if operation is not None:
        attributes.append(attr("gen_ai.operation.name", operation))
    if operation in ("chat", "invoke_agent"):
        given = [
            {"role": "user", "parts": [{"type": "text", "content": "When?"}]},
            {"role": "user", "parts": [{"type": "tool_call_response", "id": "t", "result": CONTEXT}]},
        ]
        reply = [{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}]
        attributes.append(attr("gen_ai.input.messages", json.dumps(given)))
        attributes.append(attr("gen_ai.output.messages", json.dumps(reply)))
    raw = {"traceId": TRACE, "spanId": span_id(n), "name": f"s{n}", "startTimeUnixNano": str(n)}
    raw["attributes"] = attributes
    if parent is not None:
        raw["parentSpanId"] = span_id(parent)
    return raw | extra


def export(spans: list[Any]) -> dict[str, Any]:
    return {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {"name": "app"}, "spans": spans}]}]}


def write(tmp_path: Path, *requests: Any, name: str = "traces.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(r) for r in requests) + "\n", encoding="utf-8")
    return path


def read(path: Path, seconds: float = 10.0) -> list[Item]:
    """The items of a file, read in a thread that must end within ``seconds`` (a hang fails)."""
    found: list[Any] = []
    worker = threading.Thread(target=lambda: found.append(_load(path)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"reading {path.name} did not end within {seconds} s"
    if isinstance(found[0], BaseException):
        raise found[0]
    return list(found[0])


def _load(path: Path) -> Any:
    try:
        return load_items(str(path))
    except BaseException as exc:  # handed to the test's thread
        return exc


def errors(items: list[Item]) -> dict[str, str]:
    return {i.id: i.error.message for i in items if i.error}


def test_a_parent_cycle_fails_its_spans_with_their_ids_and_troth_eval_ends(tmp_path: Path) -> None:
    cycle = [span(0, 2), span(1, 0, None), span(2, 1, None)]  # s0 -> s2 -> s1 -> s0
    path = write(tmp_path, export([*cycle, span(5, None)]))
    items = read(path)
    failed = errors(items)
    assert set(failed) == {f"{TRACE}/{span_id(n)}" for n in (0, 1, 2)}
    assert all("its own ancestor" in m and ":1 span" in m for m in failed.values())
    assert span_id(0) in failed[f"{TRACE}/{span_id(0)}"]
    (ok,) = [i for i in items if i.error is None]
    assert ok.output == ANSWER and ok.context == [CONTEXT]
    db = tmp_path / "s.db"
    argv = [sys.executable, "-m", "troth", "eval", str(path), "--store", str(db), "--eval-id", "cyc", "-q"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "300"})
    said = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "Traceback" not in said and "3 of 4 item(s) failed" in said
    assert "it is its own ancestor" in said
    records = SQLiteStore(db).list_runs(eval_id="cyc")
    assert sorted(r.score for r in records if r.score is not None) == [1.0]
    assert sum(1 for r in records if r.error and "its own ancestor" in r.error) == 3


def test_a_self_parent_and_a_long_chain_raise_no_recursion_error(tmp_path: Path) -> None:
    chain = [span(0, None, "invoke_agent")] + [span(n, n - 1, None if n % 2 else "chat") for n in range(1, 3000)]
    items = read(write(tmp_path, export([span(9999, 9999), *chain])))
    assert errors(items) == {f"{TRACE}/{span_id(9999)}": errors(items)[f"{TRACE}/{span_id(9999)}"]}
    assert "its own ancestor" in errors(items)[f"{TRACE}/{span_id(9999)}"]
    (agent,) = [i for i in items if i.error is None]  # the 1,500 LLM calls are inside the agent run
    assert agent.metadata["operation"] == "invoke_agent" and agent.context == [CONTEXT]


def test_an_orphan_llm_call_fails_naming_its_missing_parent(tmp_path: Path) -> None:
    items = read(write(tmp_path, export([span(0, 77), span(1, 77, "invoke_agent")])))
    assert errors(items) == {
        f"{TRACE}/{span_id(0)}": f"{tmp_path / 'traces.jsonl'}:1 span 1: span 's0' ({span_id(0)}): its parent span "
        f"{span_id(77)} is not in the file, so whether it ran inside an agent run is unknown"
    }
    assert [i.metadata["span_id"] for i in items if i.error is None] == [span_id(1)]


def test_wrong_shapes_fail_only_their_part_naming_file_line_and_span(tmp_path: Path) -> None:
    bad_attribute = span(1, None, attributes=[5])
    bad_messages = span(2, None)
    bad_messages["attributes"][1] = attr("gen_ai.input.messages", json.dumps([{"role": "user", "parts": 3}]))
    path = write(tmp_path, {"resourceSpans": 7}, export([span(0, None), bad_attribute, bad_messages, "x"]))
    items = read(path)
    failed = errors(items)
    assert failed[f"{path}:1"] == f"{path}:1: resourceSpans: Input should be a valid list"
    problem = "attributes.0: Input should be a valid dictionary or instance of KeyValue"
    assert failed[f"{path}:2 span 2"] == f"{path}:2 span 2 ({span_id(1)}): {problem}"
    messages = f"{path}:2 span 3: span 's2' ({span_id(2)}): gen_ai.input.messages must be"
    assert failed[f"{TRACE}/{span_id(2)}"].startswith(messages)
    assert failed[f"{path}:2 span 4"] == f"{path}:2 span 4: a span must be an object, not str"
    assert [i.output for i in items if i.error is None] == [ANSWER]


def test_a_duplicated_span_id_fails_only_those_spans(tmp_path: Path) -> None:
    path = write(tmp_path, export([span(0, None), span(1, None), span(1, None)]))
    items = read(path)
    assert sorted(errors(items)) == [f"{path}:1 span 2", f"{path}:1 span 3"]
    assert all(f"span id {span_id(1)} appears 2 times" in m for m in errors(items).values())
    assert [i.metadata["span_id"] for i in items if i.error is None] == [span_id(0)]


def test_the_format_is_told_by_parsing_not_by_the_first_4_kb(tmp_path: Path) -> None:
    request = {"padding": "x" * 10_000, **export([span(0, None)])}
    path = tmp_path / "late.json"
    path.write_text(json.dumps(request, indent=2), encoding="utf-8")
    (item,) = read(path)
    assert item.output == ANSWER and item.metadata["span_id"] == span_id(0)


def test_deeply_nested_json_is_refused_naming_the_file_and_depth(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    deep = '{"resourceSpans": ' + "[" * 100_000 + "]" * 100_000 + "}"
    path.write_text(json.dumps(export([span(0, None)])) + "\n" + deep + "\n")
    items = read(path)
    assert errors(items) == {f"{path}:2": f"{path}:2: JSON nested 100001 deep (at most 64 is read)"}
    deep_attribute = span(1, None)
    deep_attribute["attributes"][1] = attr("gen_ai.input.messages", "[" * 50_000 + "]" * 50_000)
    items = read(write(tmp_path, export([deep_attribute]), name="deep-attr.jsonl"))
    assert "gen_ai.input.messages: JSON nested 50000 deep" in errors(items)[f"{TRACE}/{span_id(1)}"]


def test_a_json_file_that_is_no_trace_export_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "items.json"
    path.write_text(json.dumps([{"output": "x"}]), encoding="utf-8")
    with pytest.raises(ValueError, match=r"items\.json: unsupported file type '\.json'"):
        read(path)
    with pytest.raises(InvalidTraceError, match=r"no agent or LLM operation"):
        read(write(tmp_path, export([span(0, None, None)])))


@st.composite
def forests(draw: st.DrawFn) -> list[Any]:
    """Random spans: parents anywhere (cycles, self-parents), missing (orphans) or none; random
    operations; now and then a wrongly typed field."""
    n = draw(st.integers(1, 40))
    raws: list[Any] = []
    for i in range(n):
        parent = draw(st.one_of(st.none(), st.integers(0, n + 5)))
        raw: Any = span(i, parent, draw(st.sampled_from(["chat", "invoke_agent", "execute_tool", None])))
        fault = draw(st.sampled_from(["none"] * 6 + ["attributes", "traceId", "start", "not-a-span"]))
        if fault == "attributes":
            raw["attributes"] = draw(st.sampled_from([5, "x", [1], [{"key": 3}], [{"key": "k", "value": 4}]]))
        elif fault == "traceId":
            raw["traceId"] = draw(st.sampled_from([5, "", "zz", None]))
        elif fault == "start":
            raw["startTimeUnixNano"] = draw(st.sampled_from(["soon", [1], -1.5]))
        elif fault == "not-a-span":
            raw = draw(st.sampled_from([5, "span", None, []]))
        raws.append(raw)
    return raws


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(raws=forests())
def test_any_span_forest_ends_with_every_span_an_item_or_failed_with_its_id(tmp_path: Path, raws: list[Any]) -> None:
    path = write(tmp_path, export(raws))
    try:
        items = read(path)
    except InvalidTraceError as exc:  # nothing to read at all: said so, naming the file
        assert str(path) in str(exc)
        return
    seen = {i.metadata.get("span_id") for i in items}
    for n, raw in enumerate(raws):
        at = f"{path}:1 span {n + 1}"
        if any(i.id == at for i in items):
            continue  # this span could not be read: failed, named by its place
        ops = [a["value"]["stringValue"] for a in raw["attributes"] if a["key"] == "gen_ai.operation.name"]
        if ops and ops[0] == "invoke_agent" and not _agent_above(raws, raw):  # a nested one folds into it
            assert span_id(n) in seen, f"agent run {n} neither scored nor failed"
    for item in items:
        if item.error is not None:
            message = item.error.message
            assert message.startswith(f"{path}:1"), message
            assert item.metadata.get("span_id", "") in message
        else:
            assert item.output == ANSWER


def _agent_above(raws: list[Any], raw: Any) -> bool:
    """Whether an ``invoke_agent`` span is among ``raw``'s ancestors in the file (cycles end the walk)."""
    by_id = {r.get("spanId"): r for r in raws if isinstance(r, dict) and isinstance(r.get("attributes"), list)}
    seen, parent = set(), raw.get("parentSpanId")
    while parent in by_id and parent not in seen:
        seen.add(parent)
        above = by_id[parent]
        if any(
            a.get("key") == "gen_ai.operation.name" and a.get("value") == {"stringValue": "invoke_agent"}
            for a in above["attributes"]
            if isinstance(a, dict)
        ):
            return True
        parent = above.get("parentSpanId")
    return False
