"""Calling an evaluation's target and reading what it returned as an answer to score."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from troth import telemetry
from troth.agents import ACCEPTED, adapter_for
from troth.agents.run import AgentRun
from troth.text.transcripts import is_messages


@runtime_checkable
class AsyncAgent(Protocol):
    def agenerate(self, value: Any) -> Any: ...


@runtime_checkable
class Agent(Protocol):
    def generate(self, value: Any) -> Any: ...


@runtime_checkable
class WithMessages(Protocol):
    messages: Any


@runtime_checkable
class WithText(Protocol):
    text: Any


def check_runnable(target: Any) -> None:
    """TypeError naming what is accepted, for a target nothing can run (before any item)."""
    if (
        target is not None
        and adapter_for(target) is None
        and not (callable(target) or isinstance(target, (AsyncAgent, Agent)))
    ):
        raise TypeError(f"target must be {ACCEPTED}; got {type(target).__name__}")


async def call_target(target: Any, value: Any) -> Any:
    """The target's answer to ``value``: an agent of a known framework gives its :class:`AgentRun`;
    a callable, or an object with .agenerate/.generate, what it returns."""
    if target is None:
        raise ValueError("the item has no 'output' and no target was given to produce one")
    adapter = adapter_for(target)
    if adapter is not None:
        run: AgentRun = await adapter(target, value)
        return run.in_trace(telemetry.current())  # stored under the trace it ran in, when one is recorded
    if isinstance(target, AsyncAgent):
        out = target.agenerate(value)
    elif isinstance(target, Agent):
        out = target.generate(value)
    elif callable(target):
        out = target(value)
    else:
        raise TypeError(f"target must be {ACCEPTED}; got {type(target).__name__}")
    return await out if inspect.isawaitable(out) else out


def normalise_output(output: Any) -> Any:
    """A string or a chat transcript; objects with ``messages`` or ``text`` are unwrapped."""
    if isinstance(output, str) or is_messages(output):
        return output
    if isinstance(output, AgentRun):
        return output.output
    for value in (
        output.messages if isinstance(output, WithMessages) else None,
        output.text if isinstance(output, WithText) else None,
    ):
        if isinstance(value, str) or is_messages(value):
            return value
    if isinstance(output, Mapping):
        for key in ("messages", "text", "output"):
            if isinstance(output.get(key), str) or is_messages(output.get(key)):
                return output[key]
    expected = "its answer: a string, a list of chat messages, or an object with .text or .messages"
    if output is None:
        raise TypeError(f"target returned None; expected {expected} (does it return what it computes?)")
    shown = repr(output)
    shown = shown if len(shown) <= 60 else shown[:59] + "…"
    raise TypeError(f"target returned {type(output).__name__} {shown}; expected {expected}")
