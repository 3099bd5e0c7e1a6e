"""Scorers by name, for ``troth score/eval --scorer NAME``: the built-in ones listed here, and a
user's own through the ``troth.scorers`` entry point group. A name leads to a factory
``factory(model, **options) -> Scorer``, imported when it is used.

Adding a scorer: write its module with such a factory, and add one line to ``BUILT_IN`` (or, in
another package, one entry point: ``[project.entry-points."troth.scorers"] name = "pkg.mod:make"``).
"""

from __future__ import annotations

import difflib
import importlib
import importlib.metadata
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from troth.errors import ConfigError
from troth.scorers.base import Scorer

ENTRY_POINTS = "troth.scorers"

BUILT_IN: dict[str, str] = {
    "faithfulness": "troth.scorers.faithfulness:create_faithfulness_scorer",
    "hallucination": "troth.scorers.hallucination:create_hallucination_scorer",
    "answer-relevancy": "troth.scorers.answer_relevancy:create_answer_relevancy_scorer",
}
"""Built-in scorers: name -> ``module:factory``."""

Factory = Callable[..., Scorer]


def known() -> dict[str, str]:
    """Every scorer name with where its factory lives: the built-in ones, then entry points (a
    built-in name cannot be taken over)."""
    found = dict(BUILT_IN)
    for entry in importlib.metadata.entry_points(group=ENTRY_POINTS):
        found.setdefault(entry.name, entry.value)
    return found


def factory(name: str) -> Factory:
    """The factory of scorer ``name``; ConfigError naming the known scorers for an unknown one."""
    names = known()  # entry points read once
    where = names.get(name)
    if where is None:
        close = difflib.get_close_matches(name, names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"unknown scorer {name!r}{hint}; known: {', '.join(sorted(names))}")
    module, _, attribute = where.partition(":")
    try:
        found = getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"scorer {name!r} points to {where}, which cannot be loaded: {exc}") from exc
    if not callable(found):
        raise ConfigError(f"scorer {name!r} points to {where}, which is not a function")
    return cast(Factory, found)


def build(name: str, model: Any = None, options: Mapping[str, Any] | None = None) -> Scorer:
    """Scorer ``name`` on ``model`` (None: the scorer's own default judge) with ``options``; an
    option the factory does not take is a ConfigError naming the scorer."""
    make = factory(name)
    given = dict(options or {})
    try:
        built = make(**given) if model is None else make(model, **given)
    except TypeError as exc:
        raise ConfigError(f"scorer {name!r}: {exc}") from exc
    if not isinstance(built, Scorer):
        raise ConfigError(f"scorer {name!r}'s factory returned {type(built).__name__}, not a Scorer")
    return built


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``["key=value", ...]`` as keyword options: a value that reads as JSON (``0.5``, ``true``,
    ``[1, 2]``) is that value, any other is the text; ``-`` in a key becomes ``_``."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--opt takes key=value, not {pair!r}")
        try:
            value = json.loads(text)
        except ValueError:
            value = text
        options[key.strip().replace("-", "_")] = value
    return options
