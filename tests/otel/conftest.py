"""OpenTelemetry's SDK with in-memory exporters, and troth instrumented to it for one test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from troth import telemetry

REQUIRED = os.environ.get("TROTH_REQUIRE_OTEL") == "1"


def need_sdk() -> None:
    """Skip (or fail, with TROTH_REQUIRE_OTEL=1) when the OpenTelemetry SDK is not installed."""
    try:
        import opentelemetry.instrumentation.instrumentor
        import opentelemetry.sdk  # noqa: F401
    except ImportError:
        if REQUIRED:
            raise
        pytest.skip("opentelemetry-sdk / troth[otel] is not installed")


@dataclass
class Telemetry:
    """What troth emitted: finished spans and log records (events), and the tracer to make spans with."""

    spans_exporter: Any
    logs_exporter: Any
    tracer: Any
    tracer_provider: Any
    logger_provider: Any

    def spans(self, name: str | None = None) -> list[Any]:
        assert telemetry.flush(10), "telemetry's queue did not empty"
        return [s for s in self.spans_exporter.get_finished_spans() if name is None or s.name == name]

    def events(self) -> list[Any]:
        assert telemetry.flush(10), "telemetry's queue did not empty"
        found = [d.log_record for d in self.logs_exporter.get_finished_logs()]
        return [r for r in found if r.event_name == "gen_ai.evaluation.result"]


@pytest.fixture
def otel() -> Iterator[Telemetry]:
    need_sdk()
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from troth.otel import TrothInstrumentor

    spans, logs = InMemorySpanExporter(), InMemoryLogRecordExporter()
    tracer_provider, logger_provider = TracerProvider(), LoggerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    TrothInstrumentor().instrument(tracer_provider=tracer_provider, logger_provider=logger_provider)
    try:
        yield Telemetry(spans, logs, tracer_provider.get_tracer("app"), tracer_provider, logger_provider)
    finally:
        TrothInstrumentor().uninstrument()
        tracer_provider.shutdown()
        logger_provider.shutdown()
