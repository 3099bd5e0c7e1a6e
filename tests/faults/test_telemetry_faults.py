"""Telemetry that misbehaves (the OpenTelemetry SDK with a processor that raises, an exporter
that hangs) cannot hurt scoring: run_evals and the Monitor score everything, and the failures are
counted and logged once."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SECRET_KEY
from tests.otel.conftest import need_sdk
from troth import Judge, Monitor, create_faithfulness_scorer, run_evals, telemetry
from troth.telemetry_guard import Guard
from troth.testing import FakeOpenAIServer, ScriptedJudge

CONTEXT = ["The bridge opened in 1932. It is 80 m high."]
DATA = [{"id": f"i{n}", "output": "The bridge opened in 1932.", "context": CONTEXT} for n in range(6)]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(ScriptedJudge(verdicts={"1932": ("yes", "opened in 1932")})) as srv:
        yield srv


def scorer(server: FakeOpenAIServer, **kw: Any) -> Any:
    judge = Judge("m", base_url=server.base_url, api_key=SECRET_KEY, timeout=5, max_retries=0)
    return create_faithfulness_scorer(judge, strategy="two-step", reason="template", **kw)


@pytest.fixture
def instrument() -> Iterator[Any]:
    """Instrument troth to a tracer provider with the given span processor (and a logger
    provider with the given log processor), the guard's counts fresh."""
    need_sdk()
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk.trace import TracerProvider

    from troth.otel import TrothInstrumentor

    providers: list[Any] = []

    def install(span_processor: Any, log_processor: Any = None) -> None:
        tracer_provider, logger_provider = TracerProvider(), LoggerProvider()
        tracer_provider.add_span_processor(span_processor)
        if log_processor is not None:
            logger_provider.add_log_record_processor(log_processor)
        providers.extend([tracer_provider, logger_provider])
        TrothInstrumentor().instrument(tracer_provider=tracer_provider, logger_provider=logger_provider)

    fresh = Guard()
    old, telemetry._guard = telemetry._guard, fresh
    try:
        yield install
    finally:
        from troth.otel import TrothInstrumentor

        TrothInstrumentor().uninstrument()
        telemetry._guard = old


def raising_processors() -> tuple[Any, Any]:
    from opentelemetry.sdk._logs import LogRecordProcessor
    from opentelemetry.sdk.trace import SpanProcessor

    class Spans(SpanProcessor):  # type: ignore[misc]
        def on_start(self, span: Any, parent_context: Any = None) -> None:
            raise RuntimeError("span processor down")

        def on_end(self, span: Any) -> None:
            raise RuntimeError("span processor down")

    class Logs(LogRecordProcessor):  # type: ignore[misc]
        def on_emit(self, log_record: Any) -> None:
            raise RuntimeError("log processor down")

        def shutdown(self) -> None: ...

        def force_flush(self, timeout_millis: int = 30000) -> bool:
            return True

    return Spans(), Logs()


def hanging_exporter(release: threading.Event) -> Any:
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    class Hanging(SpanExporter):  # type: ignore[misc]
        def export(self, spans: Sequence[Any]) -> Any:
            release.wait(60)  # bounded: the test releases it at its end
            return SpanExportResult.SUCCESS

    return Hanging()


def test_a_processor_that_raises_is_counted_and_logged_once_and_everything_is_scored(
    instrument: Any, server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    spans, logs = raising_processors()
    instrument(spans, logs)
    with caplog.at_level(logging.WARNING, logger="troth.telemetry"):
        result = run_evals(DATA, [scorer(server)], store=None, quiet=True)
        assert telemetry.flush(10)
    assert [i.results["faithfulness"].score for i in result.items] == [1.0] * 6 and result.summary.failed_items == 0
    found = telemetry.stats()
    assert found.errors >= 6 and found.dropped == 0  # at least one event per item raised
    warnings = [r.getMessage() for r in caplog.records if r.name == "troth.telemetry"]
    assert len(warnings) == 1 and "processor down" in warnings[0] and "only counted" in warnings[0]


def test_a_hanging_exporter_stalls_neither_run_evals_nor_the_monitor(
    instrument: Any, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    release = threading.Event()
    instrument(SimpleSpanProcessor(hanging_exporter(release)))
    done: list[Any] = []
    worker = threading.Thread(target=lambda: done.append(run_evals(DATA, [scorer(server)], store=None, quiet=True)))
    try:
        worker.start()
        worker.join(60)
        assert not worker.is_alive() and [i.results["faithfulness"].score for i in done[0].items] == [1.0] * 6
        monitor = Monitor([scorer(server, context=CONTEXT)], store=tmp_path / "live.db")
        try:
            for n in range(20):
                assert monitor.record(input="When?", output=f"The bridge opened in 1932. ({n})")
            assert monitor.flush(timeout=60)
            assert (monitor.stats().scored, monitor.stats().failed) == (20, 0)
        finally:
            monitor.close()
        assert telemetry.stats().pending > 0  # the ends wait behind the hung export, off the scoring path
    finally:
        release.set()
    assert telemetry.flush(30)


def test_a_full_queue_drops_and_counts() -> None:
    guard, release = Guard(size=2), threading.Event()
    for _ in range(5):
        guard.later(lambda: release.wait(30))
    assert guard.stats().dropped >= 2  # one running and two queued at most
    release.set()
    assert guard.flush(10) and guard.stats().pending == 0
