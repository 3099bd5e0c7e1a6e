"""troth's scores and judge calls in OpenTelemetry (``pip install "troth[otel]"``)::

    from troth.otel import TrothInstrumentor
    TrothInstrumentor().instrument()          # or tracer_provider=..., logger_provider=...

Every score is then a ``gen_ai.evaluation.result`` event (GenAI semantic conventions), parented
to the evaluated operation's span: live, the span current when the watched call or agent run
happened; in ``run_evals``, a span per item under a span for the run. Each judge call is a
client span with the GenAI attributes (model, tokens). With no SDK configured, the API's no-op
providers drop it all. A processor or exporter that raises or hangs cannot hurt scoring: calls
into it are guarded (counted in ``troth.telemetry.stats()``, the first logged), and spans' ends
and events go through a bounded queue drained by a daemon thread (``troth.telemetry.flush()``
waits for it).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Collection, Iterator
from typing import Any

from troth.extras import require

require("otel")  # a clear MissingDependencyError, not a bare ImportError

from opentelemetry import context as otel_context  # noqa: E402
from opentelemetry import trace  # noqa: E402
from opentelemetry._logs import Logger, get_logger  # noqa: E402
from opentelemetry.instrumentation.instrumentor import BaseInstrumentor  # type: ignore[attr-defined]  # noqa: E402
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, TraceFlags  # noqa: E402

from troth import telemetry  # noqa: E402
from troth.telemetry import Attributes, Evaluation, SpanRef  # noqa: E402

EVENT = "gen_ai.evaluation.result"
SCOPE = "troth"


class OTelSpan:
    """A recording OpenTelemetry span made current, as :class:`troth.telemetry.Opened`."""

    def __init__(self, span: trace.Span) -> None:
        self._span = span
        self._token = otel_context.attach(trace.set_span_in_context(span))

    def set(self, attributes: Attributes) -> None:
        self._span.set_attributes(dict(attributes))

    def failed(self, error_type: str) -> None:
        self._span.set_attribute("error.type", error_type)

    def close(self) -> Callable[[], object]:
        otel_context.detach(self._token)
        ended = time.time_ns()
        return lambda: self._span.end(end_time=ended)


class OTelExporter:
    """Spans through ``tracer``, evaluation events through ``logger``."""

    def __init__(self, tracer: trace.Tracer, logger: Logger) -> None:
        self.tracer, self.logger = tracer, logger

    def current(self) -> SpanRef | None:
        found = trace.get_current_span().get_span_context()
        return SpanRef(found.trace_id, found.span_id) if found.is_valid else None

    def start(self, name: str, attributes: Attributes, *, client: bool = False) -> OTelSpan:
        kind = SpanKind.CLIENT if client else SpanKind.INTERNAL
        return OTelSpan(self.tracer.start_span(name, kind=kind, attributes=dict(attributes)))

    @contextlib.contextmanager
    def attached(self, parent: SpanRef) -> Iterator[None]:
        token = otel_context.attach(trace.set_span_in_context(NonRecordingSpan(_span_context(parent))))
        try:
            yield
        finally:
            otel_context.detach(token)

    def evaluation(self, evaluation: Evaluation, parent: SpanRef | None) -> None:
        where = trace.set_span_in_context(NonRecordingSpan(_span_context(parent))) if parent is not None else None
        self.logger.emit(event_name=EVENT, attributes=event_attributes(evaluation), context=where)


def event_attributes(evaluation: Evaluation) -> dict[str, str | float]:
    """The GenAI semantic conventions' attributes of an evaluation result (those known)."""
    found: dict[str, str | float | None] = {
        "gen_ai.evaluation.name": evaluation.name,
        "gen_ai.evaluation.score.value": evaluation.score,
        "gen_ai.evaluation.score.label": evaluation.label,
        "gen_ai.evaluation.explanation": evaluation.explanation,
        "gen_ai.response.id": evaluation.response_id,
        "error.type": evaluation.error_type,
    }
    return {key: value for key, value in found.items() if value is not None}


def _span_context(ref: SpanRef) -> SpanContext:
    return SpanContext(ref.trace_id, ref.span_id, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED))


class TrothInstrumentor(BaseInstrumentor):  # type: ignore[misc]
    """Turns troth's telemetry on (``instrument()``) and off (``uninstrument()``); takes the
    ``tracer_provider`` and ``logger_provider`` to use (default: the global ones)."""

    def instrumentation_dependencies(self) -> Collection[str]:
        return []

    def _instrument(self, **kwargs: Any) -> None:
        from troth import __version__

        tracer = trace.get_tracer(SCOPE, __version__, kwargs.get("tracer_provider"))
        logger = get_logger(SCOPE, __version__, kwargs.get("logger_provider"))
        telemetry.install(OTelExporter(tracer, logger))

    def _uninstrument(self, **kwargs: Any) -> None:
        telemetry.install(None)


__all__ = ["EVENT", "OTelExporter", "TrothInstrumentor", "event_attributes"]
