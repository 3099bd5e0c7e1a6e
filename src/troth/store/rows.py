"""A run record as a flat row and back: JSON text for nested fields, secrets redacted, UTF-8-safe
(one encoding for every store: SQLite columns, Parquet columns)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from troth.redaction import known, redact
from troth.store.record import RunRecord
from troth.values import decode_verdicts

JSON_FIELDS = frozenset({"input", "output", "context", "claims", "verdicts", "prompts", "usage", "result"})
NUMBER_FIELDS = frozenset({"score", "latency_s", "cost_usd"})
COLUMNS = [f.name for f in fields(RunRecord)]


def to_row(record: RunRecord) -> dict[str, Any]:
    """Column name → stored value, in ``COLUMNS`` order (verdicts in their stored form)."""
    data, secrets = {c: getattr(record, c) for c in COLUMNS}, known()  # JSON text below: no deep copy needed
    if record.verdicts is not None:
        data["verdicts"] = [v.to_dict() for v in record.verdicts]
    return {c: storable(data[c], json_field=c in JSON_FIELDS, secrets=secrets) for c in COLUMNS}


def from_row(row: dict[str, Any]) -> RunRecord:
    """The record a stored row holds, its verdicts decoded (the one place they are)."""
    data: dict[str, Any] = {c: row.get(c) for c in COLUMNS}
    for c in JSON_FIELDS:
        if data[c] is not None:
            data[c] = json.loads(data[c])
    data["verdicts"] = decode_verdicts(data["verdicts"])
    return RunRecord(**data)


def storable(value: Any, *, json_field: bool, secrets: Sequence[str] | None = None) -> Any:
    """A column value: JSON text for JSON fields; secrets (default: all known) redacted; UTF-8-safe."""
    if json_field:
        text = json.dumps(value, ensure_ascii=False, default=str)
    elif isinstance(value, str):
        text = value
    else:
        return value
    text = redact(text, secrets)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: JSON escapes them losslessly, plain text is escaped
        text = (
            json.dumps(value, ensure_ascii=True, default=str)
            if json_field
            else text.encode("utf-8", "backslashreplace").decode("utf-8")
        )
        text = redact(text, secrets)
    return text
