"""What troth tells a tracing backend: spans for its runs, items and judge calls, and an
evaluation event per score. Nothing happens until an exporter is installed (``troth.otel``'s
``TrothInstrumentor().instrument()`` installs the OpenTelemetry one); until then every hook here
is a check of one module variable. Telemetry never hurts scoring: every call into the exporter
is guarded, and spans' ends and events are emitted from a bounded queue (``telemetry_guard``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from troth.telemetry_guard import Guard, TelemetryStats

Attributes = Mapping[str, str | int | float | bool | Sequence[str]]


@dataclass(frozen=True)
class SpanRef:
    """A span by its ids, to carry to a scoring thread or process and parent what comes of it."""

    trace_id: int
    span_id: int


@dataclass(frozen=True)
class Evaluation:
    """One score as an evaluation result: the scorer's id, the score and its pass/fail label
    (when a threshold is set), the reason, the evaluated response's id, or the error's type."""

    name: str
    score: float | None = None
    label: str | None = None
    explanation: str | None = None
    response_id: str | None = None
    error_type: str | None = None


class Span(Protocol):
    """A span being recorded: attributes can be added until it ends."""

    def set(self, attributes: Attributes) -> None: ...


class Opened(Span, Protocol):
    """A span started and made current by :meth:`Exporter.start`."""

    def failed(self, error_type: str) -> None:
        """Record the type of the exception that ended the span's work."""

    def close(self) -> Callable[[], object]:
        """Stop being current (here and now); the span's end (which may export it), to run later."""


class Exporter(Protocol):
    """Where telemetry goes (see :mod:`troth.otel`)."""

    def current(self) -> SpanRef | None:
        """The span current here, if one is being recorded."""

    def start(self, name: str, attributes: Attributes, *, client: bool = False) -> Opened:
        """A child of the current span, started and made current."""

    def attached(self, parent: SpanRef) -> AbstractContextManager[None]:
        """``parent`` made the current span for the ``with`` block."""

    def evaluation(self, evaluation: Evaluation, parent: SpanRef | None) -> None:
        """Emit one evaluation result, parented to ``parent`` (else to the current span)."""


_exporter: Exporter | None = None
_guard = Guard()


def install(exporter: Exporter | None) -> None:
    """Send telemetry to ``exporter`` from now on (None: stop)."""
    global _exporter
    _exporter = exporter


def active() -> Exporter | None:
    """The installed exporter, if any."""
    return _exporter


def stats() -> TelemetryStats:
    """Telemetry's failures so far: exporter calls that raised, emissions dropped, emissions waiting."""
    return _guard.stats()


def flush(timeout: float = 5.0) -> bool:
    """Wait up to ``timeout`` seconds for queued emissions to be handed to the exporter; whether
    they all were."""
    return _guard.flush(timeout)


def current() -> SpanRef | None:
    """The span current here (carried with a live call to parent its scores); None without an exporter."""
    exporter = _exporter
    return _guard.call(exporter.current) if exporter is not None else None


@contextlib.contextmanager
def span(name: str, attributes: Attributes, *, client: bool = False) -> Iterator[Span | None]:
    """A span for the ``with`` block when an exporter is installed (and starting it worked);
    None otherwise. Its end is emitted from the queue."""
    exporter = _exporter
    opened = _guard.call(lambda: exporter.start(name, attributes, client=client)) if exporter is not None else None
    if opened is None:
        yield None
        return
    try:
        yield _Guarded(opened)
    except BaseException as exc:
        error_type = type(exc).__name__
        _guard.call(lambda: opened.failed(error_type))
        raise
    finally:
        end = _guard.call(opened.close)
        if end is not None:
            _guard.later(end)


@dataclass(frozen=True)
class _Guarded:
    """A span whose ``set`` cannot raise."""

    opened: Opened

    def set(self, attributes: Attributes) -> None:
        _guard.call(lambda: self.opened.set(attributes))


@contextlib.contextmanager
def attached(parent: SpanRef | None) -> Iterator[None]:
    """``parent`` current for the ``with`` block (nothing without one, without an exporter, or
    when attaching fails)."""
    exporter = _exporter
    if exporter is None or parent is None:
        yield
        return
    entered = _guard.call(lambda: _enter(exporter.attached(parent)))
    try:
        yield
    finally:
        if entered is not None:
            _guard.call(lambda: entered.__exit__(None, None, None))


def _enter(manager: AbstractContextManager[None]) -> AbstractContextManager[None]:
    manager.__enter__()
    return manager


def item_span(eval_id: str, item_id: str) -> AbstractContextManager[Span | None]:
    """The span of one item of an evaluation (its judge calls and scores beneath it)."""
    return span("evaluate item", {"troth.eval.id": eval_id, "troth.eval.item.id": item_id})


def judge_call(model_id: str, step: str, operation: str = "chat") -> AbstractContextManager[Span | None]:
    """A client span for one judge call (``provider/model``), with the GenAI client attributes."""
    provider, _, name = model_id.partition("/")
    attributes = {
        "gen_ai.operation.name": operation,
        "gen_ai.provider.name": provider if name else "openai",
        "gen_ai.request.model": name or provider,
        "troth.step": step,
    }
    return span(f"{operation} {name or provider}", attributes, client=True)


def tokens(opened: Span | None, input_tokens: int, output_tokens: int, finish_reason: str | None = None) -> None:
    """A judge call's token usage (and why it stopped) on its span."""
    if opened is not None:
        found: dict[str, str | int | list[str]] = {
            "gen_ai.usage.input_tokens": input_tokens,
            "gen_ai.usage.output_tokens": output_tokens,
        }
        if finish_reason:
            found["gen_ai.response.finish_reasons"] = [finish_reason]
        opened.set(found)


def emit(evaluations: Sequence[Evaluation], parent: SpanRef | None = None) -> None:
    """Emit each evaluation from the queue, parented to ``parent`` (else to the span current
    here); never raises and never blocks."""
    exporter = _exporter
    if exporter is None or not evaluations:
        return
    where = parent or _guard.call(exporter.current)
    for evaluation in evaluations:
        _guard.later(lambda e=evaluation: exporter.evaluation(e, where))  # type: ignore[misc]


def evaluations(
    results: Mapping[str, Any],
    errors: Mapping[str, Any],
    scorer_ids: Sequence[str],
    thresholds: Mapping[str, float | None],
    metadata: Mapping[str, Any] | None,
) -> list[Evaluation]:
    """One evaluation per scorer of an item: its score (labelled ``pass``/``fail`` against its
    threshold), else its error, else the item's own error (the target's, say)."""
    response_id = (metadata or {}).get("response_id")
    response = str(response_id) if response_id is not None else None
    item_error = next((errors[k] for k in ("target", "item", "data") if k in errors), None)
    out = []
    for sid in scorer_ids:
        result, error = results.get(sid), errors.get(sid, item_error)
        if result is not None:
            threshold = thresholds.get(sid)
            label = None if threshold is None else ("pass" if result.score >= threshold else "fail")
            out.append(Evaluation(sid, float(result.score), label, result.reason, response))
        elif error is not None:
            out.append(Evaluation(sid, explanation=error.message, response_id=response, error_type=error.type))
    return out
