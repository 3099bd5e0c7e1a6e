"""What troth tells a tracing backend: spans for its runs, items and judge calls, and an
evaluation event per score. Nothing happens until an exporter is installed (``troth.otel``'s
``TrothInstrumentor().instrument()`` installs the OpenTelemetry one); until then every hook here
is a check of one module variable.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

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


class Exporter(Protocol):
    """Where telemetry goes (see :mod:`troth.otel`)."""

    def current(self) -> SpanRef | None:
        """The span current here, if one is being recorded."""

    def span(self, name: str, attributes: Attributes, *, client: bool = False) -> AbstractContextManager[Span]:
        """A child of the current span for the ``with`` block (an exception in it is recorded)."""

    def attached(self, parent: SpanRef) -> AbstractContextManager[None]:
        """``parent`` made the current span for the ``with`` block."""

    def evaluation(self, evaluation: Evaluation, parent: SpanRef | None) -> None:
        """Emit one evaluation result, parented to ``parent`` (else to the current span)."""


_exporter: Exporter | None = None


def install(exporter: Exporter | None) -> None:
    """Send telemetry to ``exporter`` from now on (None: stop)."""
    global _exporter
    _exporter = exporter


def active() -> Exporter | None:
    """The installed exporter, if any."""
    return _exporter


def current() -> SpanRef | None:
    """The span current here (carried with a live call to parent its scores); None without an exporter."""
    return _exporter.current() if _exporter is not None else None


@contextlib.contextmanager
def span(name: str, attributes: Attributes, *, client: bool = False) -> Iterator[Span | None]:
    """A span for the ``with`` block when an exporter is installed; None otherwise."""
    if _exporter is None:
        yield None
        return
    with _exporter.span(name, attributes, client=client) as opened:
        yield opened


@contextlib.contextmanager
def attached(parent: SpanRef | None) -> Iterator[None]:
    """``parent`` current for the ``with`` block (nothing without one, or without an exporter)."""
    if _exporter is None or parent is None:
        yield
        return
    with _exporter.attached(parent):
        yield


def item_span(eval_id: str, item_id: str) -> AbstractContextManager[Span | None]:
    """The span of one item of an evaluation (its judge calls and scores beneath it)."""
    return span("evaluate item", {"troth.eval.id": eval_id, "troth.eval.item.id": item_id})


def judge_call(model_id: str, step: str, operation: str = "chat") -> AbstractContextManager[Span | None]:
    """A client span for one judge call (``provider/model``), with the GenAI client attributes."""
    provider, _, name = model_id.partition("/")
    attributes = {"gen_ai.operation.name": operation, "gen_ai.provider.name": provider if name else "openai",
                  "gen_ai.request.model": name or provider, "troth.step": step}  # fmt: skip
    return span(f"{operation} {name or provider}", attributes, client=True)


def tokens(opened: Span | None, input_tokens: int, output_tokens: int, finish_reason: str | None = None) -> None:
    """A judge call's token usage (and why it stopped) on its span."""
    if opened is not None:
        found: dict[str, str | int | list[str]] = {"gen_ai.usage.input_tokens": input_tokens,
                                       "gen_ai.usage.output_tokens": output_tokens}  # fmt: skip
        if finish_reason:
            found["gen_ai.response.finish_reasons"] = [finish_reason]
        opened.set(found)


def emit(evaluations: Sequence[Evaluation], parent: SpanRef | None = None) -> None:
    """Emit each evaluation (never raises: telemetry must not fail a run)."""
    if _exporter is None:
        return
    for evaluation in evaluations:
        with contextlib.suppress(Exception):
            _exporter.evaluation(evaluation, parent)


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
