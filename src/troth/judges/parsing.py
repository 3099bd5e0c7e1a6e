"""Reading a model's JSON answer into a pydantic schema, and describing why it did not fit."""

from __future__ import annotations

import functools
import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from troth.judges.base import bare_choice

T = TypeVar("T", bound=BaseModel)

_FENCE_RE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


@functools.lru_cache(maxsize=256)
def json_schema_of(schema: type[BaseModel]) -> dict[str, Any]:
    """``schema``'s JSON schema, built once per class (pydantic builds it anew at each call) for
    the last 256 classes asked about; shared, so never changed in place."""
    return schema.model_json_schema()


class OutputCheckError(ValueError):
    """Raised by a ``check`` callback when parsed output is well-formed but unusable."""


def parse_json_output(text: str, schema: type[T]) -> T:
    """Parse a model's JSON answer into ``schema``; tolerate code fences and surrounding prose."""
    candidate = text.strip()
    fenced = _FENCE_RE.match(candidate)
    if fenced:
        candidate = fenced.group(1)
    try:
        data = json.loads(candidate)
    except json.JSONDecodeError:
        bare = bare_choice(candidate, json_schema_of(schema))
        if bare is not None:
            return schema.model_validate(bare)
        start, end = candidate.find("{"), candidate.rfind("}")
        if start == -1 or end <= start:
            raise ValueError(f"the reply is not valid JSON: {candidate[:120]!r}") from None
        try:
            data = json.loads(candidate[start : end + 1])
        except json.JSONDecodeError as exc:
            raise ValueError(f"the reply is not valid JSON ({exc.msg} at position {exc.pos})") from None
    return schema.model_validate(data)


def describe(exc: Exception) -> str:
    """A short account of a parse or validation failure, fed back to the model on retry."""
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors()[:5]:
            loc = ".".join(str(p) for p in err["loc"]) or "(root)"
            parts.append(f"{loc}: {err['msg']}")
        return "; ".join(parts)
    return str(exc)
