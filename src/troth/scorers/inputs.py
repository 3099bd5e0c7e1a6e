"""Checking a claim scorer's arguments and preparing a run: the answer text, the question and
the context (from the run, a context function, the scorer, or a transcript's tool results)."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import replace

from troth.errors import ContextFunctionError, ContextTooLongError, InvalidTextError, OutputTooLongError
from troth.text.transcripts import Transcript, is_messages, user_text
from troth.values import ScorerRun

DEFAULT_MAX_CONTEXT_CHARS = 1_000_000
DEFAULT_MAX_OUTPUT_CHARS = 100_000

GetContext = Callable[[ScorerRun], "list[str] | Awaitable[list[str] | None] | None"]


def validate_scale(scale: object) -> float:
    """``scale`` must be a positive finite number."""
    if isinstance(scale, bool) or not isinstance(scale, (int, float)):
        raise TypeError(f"scale must be a number, not {type(scale).__name__}")
    if not math.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale must be > 0, not {scale!r}")
    return float(scale)


def validate_positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, not {value!r}")
    return value


def validate_context(context: object, name: str = "context") -> list[str] | None:
    """None, a string (one segment) or a list of strings; anything else is a TypeError naming it."""
    if context is None:
        return None
    if isinstance(context, str):
        return [context]
    if not isinstance(context, (list, tuple)):
        raise TypeError(f"{name} must be a string or a list of strings, not {type(context).__name__}")
    for i, segment in enumerate(context):
        if not isinstance(segment, str):
            raise TypeError(f"{name}[{i}] must be a string, not {type(segment).__name__}")
    return list(context)


def resolve_context(*candidates: object, transcript: Transcript | None = None) -> list[str] | None:
    """The context to judge against: the first of ``candidates`` given (a string or a list of
    strings, checked), else the tool results of ``transcript``; None when there is none."""
    for candidate in candidates:
        if candidate is not None:
            return validate_context(candidate)
    return transcript.tool_results or None if transcript is not None else None


def text_input(value: object) -> str:
    """The question as text (a string, or the last user message of a transcript)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if is_messages(value):
        return user_text(value)  # type: ignore[arg-type]
    raise TypeError(f"input must be a string or a list of chat messages, not {type(value).__name__}")


def check_context_size(context: list[str], max_context_chars: int) -> None:
    total = sum(len(c) for c in context)
    if total > max_context_chars:
        raise ContextTooLongError(
            f"context is {total:,} characters, over the limit of {max_context_chars:,}; "
            "raise max_context_chars or pass fewer context segments"
        )


def check_text(text: str, name: str) -> None:
    """InvalidTextError when ``text`` cannot be encoded as UTF-8 (lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        raise InvalidTextError(f"{name} is not valid text: a lone surrogate {bad!a} at position {exc.start}") from None


def check_output_size(text: str, max_output_chars: int) -> None:
    if len(text) > max_output_chars:
        raise OutputTooLongError(
            f"output is {len(text):,} characters, over the limit of {max_output_chars:,}; "
            "raise max_output_chars or score a shorter answer"
        )


async def call_get_context(get_context: GetContext, run: ScorerRun) -> list[str] | None:
    """``get_context(run)``, checked; anything it raises becomes ContextFunctionError."""
    try:
        got = get_context(run)
        found = await got if isinstance(got, Awaitable) else got
    except Exception as exc:  # user code: any exception is this item's failure, named
        raise ContextFunctionError(f"get_context raised {type(exc).__name__}: {exc}") from exc
    return validate_context(found, "get_context(run)")


def make_prepare(
    static_context: list[str] | None,
    max_context_chars: int,
    get_context: GetContext | None = None,
    require_input: bool = False,
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
) -> Callable[[ScorerRun], Awaitable[ScorerRun]]:
    """Check types and sizes; resolve the answer text and the context.

    Context, first found: the run's ``context``, ``get_context(run)``, the scorer's
    ``context``, the tool-call results of a transcript output.
    """

    async def prepare(run: ScorerRun) -> ScorerRun:
        output = run.output
        if isinstance(output, str):
            text, transcript = output, None
        elif isinstance(output, Transcript) or is_messages(output):
            transcript = output if isinstance(output, Transcript) else Transcript.read(output)
            text = transcript.answer
        elif output is None:
            raise TypeError("output is required: a string or a list of chat messages")
        else:
            raise TypeError(f"output must be a string or a list of chat messages, not {type(output).__name__}")
        check_output_size(text, max_output_chars)
        question = text_input(run.input)
        if require_input and not question.strip():
            raise ValueError("input is required: the question that the output answers")
        found = None if run.context is not None or get_context is None else await call_get_context(get_context, run)
        context = [
            c for c in resolve_context(run.context, found, static_context, transcript=transcript) or [] if c.strip()
        ]
        check_context_size(context, max_context_chars)
        for name, value in (
            ("output", text),
            ("input", question),
            *((f"context[{i}]", c) for i, c in enumerate(context)),
        ):
            check_text(value, name)
        return replace(run, input=question, output=text, context=context)

    return prepare
