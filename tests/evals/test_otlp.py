"""Traces already collected, scored without running the agent again: a real pydantic-ai agent's
GenAI spans (and an app's own LLM span) exported as OTLP/JSON the way the Collector's file
exporter writes it, read by ``run_evals`` and ``troth eval``; broken spans are items with a
typed error, and nothing in the file goes uncounted."""

from __future__ import annotations

import asyncio
import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import ANSWER, TOOL_RESULT, lookup, need, scripted_agent_model
from tests.otel.conftest import need_sdk
from troth import InvalidTraceError, create_faithfulness_scorer, run_evals
from troth.store import SQLiteStore
from troth.testing import FakeOpenAIServer

QUESTION = "When did the Harbour Bridge open?"


def otlp_lines(spans: Any, *, hex_ids: bool = True) -> list[str]:
    """Finished SDK spans as OTLP/JSON lines: the SDK's own protobuf encoding in the JSON mapping,
    ids written as hex, as the OTLP/JSON spec and the Collector's file exporter write them."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    request = MessageToDict(encode_spans(spans))
    if hex_ids:
        for resource in request["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if key in span:
                            span[key] = base64.b64decode(span[key]).hex()
    return [json.dumps(request)]


def tracer() -> tuple[Any, Any]:
    need_sdk()
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter, provider = InMemorySpanExporter(), TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def pydantic_ai_spans(base_url: str, questions: list[str]) -> list[Any]:
    """The spans of a real, instrumented pydantic-ai agent answering each question."""
    need("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.capabilities.instrumentation import Instrumentation
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    provider, exporter = tracer()
    model = OpenAIChatModel("m", provider=OpenAIProvider(base_url=base_url, api_key="k"))
    instrumented = Instrumentation(InstrumentationSettings(tracer_provider=provider))
    agent = Agent(model, tools=[lookup], capabilities=[instrumented])

    async def ask() -> None:
        for question in questions:
            await agent.run(question)

    asyncio.run(ask())
    return list(exporter.get_finished_spans())


def llm_span(output: str | None, *, messages: str | None = None) -> list[Any]:
    """An app's own GenAI ``chat`` span (no agent), given the tool's result in its input messages."""
    provider, exporter = tracer()
    given = messages or json.dumps(
        [
            {"role": "user", "parts": [{"type": "text", "content": QUESTION}]},
            {"role": "user", "parts": [{"type": "tool_call_response", "id": "t1", "result": TOOL_RESULT}]},
        ]
    )
    attributes = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.input.messages": given}
    if output is not None:
        reply = [{"role": "assistant", "parts": [{"type": "text", "content": output}]}]
        attributes |= {"gen_ai.output.messages": json.dumps(reply), "gen_ai.response.id": "resp-1"}
    with provider.get_tracer("app").start_as_current_span("chat m", attributes=attributes):
        pass
    return list(exporter.get_finished_spans())


def test_a_pydantic_ai_trace_export_is_scored_with_its_trace_ids(
    model_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    spans = pydantic_ai_spans(model_server.base_url, [QUESTION, "And when did it open?"])
    path = tmp_path / "traces.json"
    path.write_text("\n".join(otlp_lines(spans)) + "\n", encoding="utf-8")
    agent_runs = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "invoke_agent"]
    db = tmp_path / "s.db"
    result = run_evals(str(path), [create_faithfulness_scorer("local")], store=str(db), eval_id="t", quiet=True)
    assert len(result.items) == 2  # one per agent run; its LLM calls and tool call are inside it
    for item in result.items:
        assert item.errors == {} and item.output == ANSWER and item.context == [TOOL_RESULT]
        assert item.results["faithfulness"].score == 1.0 and item.metadata["operation"] == "invoke_agent"
    ids = {(format(s.context.trace_id, "032x"), format(s.context.span_id, "016x")) for s in agent_runs}
    assert {(i.metadata["trace_id"], i.metadata["span_id"]) for i in result.items} == ids
    assert {i.input for i in result.items} == {QUESTION, "And when did it open?"}
    records = SQLiteStore(db).list_runs(eval_id="t")
    assert {r.trace_id for r in records} == {i.metadata["trace_id"] for i in result.items}


def test_an_llm_span_on_its_own_is_an_item_with_the_tool_results_it_was_given(tmp_path: Path) -> None:
    path = tmp_path / "llm.jsonl"
    path.write_text("\n".join(otlp_lines(llm_span(ANSWER), hex_ids=False)), encoding="utf-8")  # base64 ids too
    (item,) = run_evals(str(path), [create_faithfulness_scorer("local")], store=None, quiet=True).items
    assert item.input == QUESTION and item.output == ANSWER and item.context == [TOOL_RESULT]
    assert item.metadata["response_id"] == "resp-1" and item.results["faithfulness"].score == 1.0


def test_broken_spans_are_items_with_a_typed_error_and_the_rest_is_scored(tmp_path: Path) -> None:
    good = otlp_lines(llm_span(ANSWER))
    no_output = otlp_lines(llm_span(None))
    bad_json = otlp_lines(llm_span(ANSWER, messages="[{not json"))
    no_id = json.loads(otlp_lines(llm_span(ANSWER))[0])
    del no_id["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["spanId"]
    path = tmp_path / "traces.jsonl"
    path.write_text("\n".join([*good, *no_output, "{truncated", *bad_json, json.dumps(no_id)]), encoding="utf-8")
    result = run_evals(str(path), [create_faithfulness_scorer("local")], store=None, quiet=True)
    assert len(result.items) == 5
    scored = [i for i in result.items if not i.errors]
    assert len(scored) == 1 and scored[0].results["faithfulness"].score == 1.0
    errors = sorted(i.errors["data"].message for i in result.items if i.errors)
    assert all(i.errors["data"].type == "InvalidTraceError" for i in result.items if i.errors)
    assert any("has no output" in e for e in errors) and any("not valid JSON" in e for e in errors)
    assert any(":3: not valid JSON" in e for e in errors) and any("spanId is missing" in e for e in errors)
    assert (result.summary.total_items, result.summary.failed_items) == (5, 4)


def test_a_file_with_no_operation_is_refused_naming_it(tmp_path: Path) -> None:
    provider, exporter = tracer()
    with provider.get_tracer("app").start_as_current_span("GET /health"):
        pass
    path = tmp_path / "plain.json"
    path.write_text(otlp_lines(list(exporter.get_finished_spans()))[0], encoding="utf-8")
    with pytest.raises(InvalidTraceError, match=r"plain\.json: no agent or LLM operation"):
        run_evals(str(path), [create_faithfulness_scorer("local")], store=None, quiet=True)


def test_troth_eval_reads_a_trace_export(model_server: FakeOpenAIServer, tmp_path: Path) -> None:
    path = tmp_path / "traces.json"
    path.write_text(otlp_lines(pydantic_ai_spans(model_server.base_url, [QUESTION]))[0], encoding="utf-8")
    argv = [sys.executable, "-m", "troth", "eval", str(path), "--store", str(tmp_path / "s.db"), "--eval-id", "traces"]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    (record,) = SQLiteStore(tmp_path / "s.db").list_runs(eval_id="traces")
    assert record.score == 1.0 and record.output == ANSWER and record.context == [TOOL_RESULT]


@pytest.fixture
def model_server() -> Any:
    with FakeOpenAIServer(scripted_agent_model()) as server:
        yield server
