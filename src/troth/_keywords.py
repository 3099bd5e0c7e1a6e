"""Keyword options given as ``**options: Unpack[SomeTypedDict]``, checked by name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def check_keywords(function: str, given: Mapping[str, Any], allowed: type) -> None:
    """TypeError, as Python words it, for the first keyword ``allowed`` (a TypedDict) lacks."""
    unknown = sorted(set(given) - set(allowed.__annotations__))
    if unknown:
        raise TypeError(f"{function}() got an unexpected keyword argument {unknown[0]!r}")
