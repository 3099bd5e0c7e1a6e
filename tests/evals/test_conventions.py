"""Trace files written by other instrumentations, read as the GenAI ones are: real spans of real
agents against the loopback model, made by OpenInference's packages (Arize Phoenix's convention:
the OpenAI Agents SDK, LangGraph, pydantic-ai) and by OpenLLMetry's (LangGraph); one item per
agent run, the tool's text as context; and the conventions' pieces on their own."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import ANSWER, TOOL_RESULT, need
from tests.agents.frameworks import FRAMEWORKS
from tests.evals.test_otlp import QUESTION, tracer
from troth import create_faithfulness_scorer, read_traces, run_evals
from troth.evals.conventions import flat_messages, operation, unwrap
from troth.testing import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]


def recorded(instrumentors: list[Any], run: Callable[[], Any], spans: tuple[Any, Any] | None = None) -> list[Any]:
    """The spans ``run`` makes with ``instrumentors`` on (into ``spans``, a provider and its
    in-memory exporter, else new ones); the Agents SDK's tracing on meanwhile, with no processor
    but theirs (nothing to OpenAI)."""
    from agents import set_trace_processors, set_tracing_disabled

    provider, exporter = spans or tracer()
    set_tracing_disabled(False)
    set_trace_processors([])
    for instrumentor in instrumentors:
        instrumentor.instrument(tracer_provider=provider)
    try:
        asyncio.run(run())
    finally:
        for instrumentor in instrumentors:
            instrumentor.uninstrument()
        set_trace_processors([])
        set_tracing_disabled(True)
    return list(exporter.get_finished_spans())


def openai_agents_spans(base_url: str) -> list[Any]:
    need("openinference.instrumentation.openai_agents")
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

    from agents import Runner

    agent = FRAMEWORKS["openai-agents"](base_url)
    return recorded([OpenAIAgentsInstrumentor()], lambda: Runner.run(agent, QUESTION))


def langgraph_spans(base_url: str) -> list[Any]:
    need("openinference.instrumentation.langchain")
    from openinference.instrumentation.langchain import LangChainInstrumentor

    agent = FRAMEWORKS["langgraph"](base_url)
    return recorded([LangChainInstrumentor()], lambda: agent.ainvoke({"messages": [("user", QUESTION)]}))


def pydantic_ai_openinference_spans(base_url: str) -> list[Any]:
    need("openinference.instrumentation.pydantic_ai")
    from openinference.instrumentation.pydantic_ai import OpenInferenceSpanProcessor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from pydantic_ai import Agent
    from pydantic_ai.capabilities.instrumentation import Instrumentation
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from tests.agents.conftest import lookup

    exporter, provider = InMemorySpanExporter(), TracerProvider()
    provider.add_span_processor(OpenInferenceSpanProcessor())  # pydantic-ai's spans given OpenInference's attributes
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    model = OpenAIChatModel("m", provider=OpenAIProvider(base_url=base_url, api_key="k"))
    instrumented = Instrumentation(InstrumentationSettings(tracer_provider=provider))
    asyncio.run(Agent(model, tools=[lookup], capabilities=[instrumented]).run(QUESTION))
    return list(exporter.get_finished_spans())


def langgraph_openllmetry_spans(base_url: str) -> list[Any]:
    need("opentelemetry.instrumentation.langchain")
    from opentelemetry.instrumentation.langchain import LangchainInstrumentor

    agent = FRAMEWORKS["langgraph"](base_url)
    return recorded([LangchainInstrumentor()], lambda: agent.ainvoke({"messages": [("user", QUESTION)]}))


def openai_agents_openllmetry_spans(base_url: str) -> list[Any]:
    """OpenLLMetry's instrumentations of the Agents SDK and of the openai client, as Traceloop's
    SDK sets them up together (the client's spans hold the model's answers)."""
    need("opentelemetry.instrumentation.openai_agents")
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor
    from opentelemetry.instrumentation.openai_agents import OpenAIAgentsInstrumentor

    from agents import Runner

    agent = FRAMEWORKS["openai-agents"](base_url)
    return recorded([OpenAIAgentsInstrumentor(), OpenAIInstrumentor()], lambda: Runner.run(agent, QUESTION))


READERS = {  # id -> (the instrumentation's module, the function making the spans)
    "openai-agents/openllmetry": ("opentelemetry.instrumentation.openai_agents", "openai_agents_openllmetry_spans"),
    "openai-agents/openinference": ("openinference.instrumentation.openai_agents", "openai_agents_spans"),
    "langgraph/openinference": ("openinference.instrumentation.langchain", "langgraph_spans"),
    "pydantic-ai/openinference": ("openinference.instrumentation.pydantic_ai", "pydantic_ai_openinference_spans"),
    "langgraph/openllmetry": ("opentelemetry.instrumentation.langchain", "langgraph_openllmetry_spans"),
}


def lines_of(maker: str, base_url: str) -> list[str]:
    """The OTLP/JSON lines of ``maker``'s run, made in a process of its own: instrumentations
    patch the frameworks for the whole process, and not every one undoes it (OpenLLMetry's
    LangChain one leaves its callback handler behind)."""
    code = (
        "import json, sys\n"
        f"from tests.evals.test_conventions import {maker}\n"
        "from tests.evals.test_otlp import otlp_lines\n"
        f"print(json.dumps(otlp_lines({maker}(sys.argv[1]))))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code, base_url], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def tree(lines: list[str]) -> dict[str, tuple[str | None, dict[str, Any]]]:
    """Span id -> (parent span id, attributes) of the spans in OTLP/JSON lines."""
    found = {}
    for line in lines:
        for resource in json.loads(line)["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    attributes = {a["key"]: next(iter(a["value"].values()), None) for a in span.get("attributes", [])}
                    found[span["spanId"]] = (span.get("parentSpanId") or None, attributes)
    return found


@pytest.mark.parametrize(("module", "maker"), list(READERS.values()), ids=list(READERS))
def test_an_openinference_trace_is_one_item_per_agent_run_with_the_tool_text_as_context(
    module: str, maker: str, model_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    need(module)
    lines = lines_of(maker, model_server.base_url)
    path = tmp_path / "traces.json"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run_evals(str(path), [create_faithfulness_scorer("local")], store=None, quiet=True)
    (item,) = result.items  # nested agent and workflow spans fold into the outermost
    assert item.errors == {} and item.input == QUESTION and item.output == ANSWER
    assert item.context == [TOOL_RESULT] and item.results["faithfulness"].score == 1.0  # the tool's text, unwrapped
    spans = tree(lines)
    for span_id, (_, attributes) in spans.items():  # every model call of the run is under the one item's span
        if attributes.get("gen_ai.operation.name") == "chat" or attributes.get("openinference.span.kind") == "LLM":
            above, seen = spans[span_id][0], set()
            while above is not None and above != item.metadata["span_id"] and above not in seen:
                seen.add(above)
                above = spans[above][0] if above in spans else None
            assert above == item.metadata["span_id"], span_id


def test_openinference_kinds_are_genai_operations() -> None:
    assert operation({"openinference.span.kind": "AGENT"}, root=False) == "invoke_agent"
    assert operation({"openinference.span.kind": "LLM"}, root=False) == "chat"
    assert operation({"openinference.span.kind": "TOOL"}, root=False) == "execute_tool"
    assert operation({"openinference.span.kind": "CHAIN"}, root=True) == "invoke_agent"  # LangGraph's graph
    assert operation({"openinference.span.kind": "CHAIN"}, root=False) == "chain"
    assert operation({"gen_ai.operation.name": "chat", "openinference.span.kind": "AGENT"}, root=True) == "chat"
    assert operation({}, root=True) is None


def test_flattened_messages_are_read_in_order() -> None:
    attributes = {
        "llm.input_messages.1.message.role": "tool",
        "llm.input_messages.1.message.content": "It opened in 1932.",
        "llm.input_messages.0.message.role": "user",
        "llm.input_messages.0.message.content": "When?",
        "llm.output_messages.0.message.content": "1932.",
    }
    assert flat_messages(attributes, "input") == [
        {"role": "user", "content": "When?"},
        {"role": "tool", "content": "It opened in 1932."},
    ]
    assert flat_messages(attributes, "output") == [{"content": "1932."}]
    assert flat_messages({}, "input") is None


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("It opened in 1932.", "It opened in 1932."),  # plain text stays
        ('{"content": "It opened in 1932.", "type": "tool"}', "It opened in 1932."),  # a message
        ('{"lc": 1, "kwargs": {"content": "It opened in 1932."}}', "It opened in 1932."),  # LangChain's serialization
        ('{"update": {"messages": [{"type": "tool", "data": {"content": "It opened."}}]}}', "It opened."),  # a Command
        ("42", "42"),
        ('{"rows":[1, 2]}', '{"rows":[1, 2]}'),  # other JSON: the text as written
    ],
)
def test_a_tool_output_is_unwrapped_to_its_text(value: str, text: str) -> None:
    assert unwrap(value) == text


@pytest.fixture
def model_server() -> Any:
    from tests.agents.conftest import scripted_agent_model

    with FakeOpenAIServer(scripted_agent_model()) as server:
        yield server


def test_the_proto_field_names_are_read_as_the_json_mapping_allows(tmp_path: Path) -> None:
    """Phoenix's ``/spans/otlpv1`` writes ``span_id``, ``string_value``...: the JSON mapping's
    parsers take them as they take ``spanId``, ``stringValue``."""
    from tests.evals.test_otlp import llm_span, otlp_lines

    def snake(value: Any) -> Any:
        if isinstance(value, dict):
            return {re.sub(r"(?<!^)([A-Z])", r"_\1", k).lower(): snake(v) for k, v in value.items()}
        return [snake(v) for v in value] if isinstance(value, list) else value

    request = snake(json.loads(otlp_lines(llm_span(ANSWER))[0]))
    assert "resource_spans" in request
    path = tmp_path / "snake.json"
    path.write_text(json.dumps({"resourceSpans": request["resource_spans"]}), encoding="utf-8")
    (item,) = read_traces(path)
    assert (item.output, item.context, item.error) == (ANSWER, [TOOL_RESULT], None)
