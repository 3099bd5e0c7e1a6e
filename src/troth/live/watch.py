"""``Monitor.watch``: a sync or async function wrapped so that each call's arguments and return
value are recorded after it returns, the function's answer untouched whatever recording does."""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from troth.engines.targets import normalise_output

log = logging.getLogger("troth.live.monitor")
F = TypeVar("F", bound=Callable[..., Any])
Pick = str | Callable[[Mapping[str, Any], Any], Any] | None  # an argument's name, or f(arguments, result)


@dataclass(frozen=True)
class Picks:
    """Where a call's input, context and trace id come from (None: the first argument, none, none)."""

    input: Pick = None
    context: Pick = None
    trace_id: Pick = None


def watched(record: Callable[..., bool], func: F, picks: Picks) -> F:
    """``func`` wrapped: after each call, ``record(input=, output=, context=, trace_id=)``."""
    signature = inspect.signature(func)

    def capture(args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> None:
        try:
            bound = signature.bind_partial(*args, **kwargs).arguments
            first = next(iter(bound.values()), None)
            record(
                input=_pick(picks.input, bound, result, first),
                output=_output(result),
                context=_pick(picks.context, bound, result, None),
                trace_id=_pick(picks.trace_id, bound, result, None),
            )
        except Exception:  # the watched function's answer is never affected
            log.exception("troth monitor could not record a call")

    if inspect.iscoroutinefunction(func):

        @functools.wraps(func)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            result = await func(*args, **kwargs)
            capture(args, kwargs, result)
            return result

        return async_wrapper  # type: ignore[return-value]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result = func(*args, **kwargs)
        capture(args, kwargs, result)
        return result

    return wrapper  # type: ignore[return-value]


def _pick(how: Pick, arguments: Mapping[str, Any], result: Any, default: Any) -> Any:
    if how is None:
        return default
    if isinstance(how, str):
        return arguments.get(how)
    return how(arguments, result)


def _output(result: Any) -> Any:
    try:
        return normalise_output(result)
    except TypeError:
        return result  # the scorer reports it as a failure, stored with the step
