"""Stored ISO times shown to people."""

from __future__ import annotations

from datetime import datetime, timedelta


def readable_time(value: str | None) -> str:
    """An ISO time as "2026-12-05 14:12 UTC" (minutes; "UTC" only for a zero offset); text that
    is not an ISO time as it is; nothing as ""."""
    if not value:
        return ""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return value
    zone = " UTC" if moment.utcoffset() == timedelta(0) else ""
    return moment.strftime("%Y-%m-%d %H:%M") + zone
