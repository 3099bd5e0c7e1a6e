"""Times as people write and read them: a stored ISO time shown, a ``--since`` read, an ISO date
in prose."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

MONTHS: tuple[str, ...] = ("January", "February", "March", "April", "May", "June", "July")
MONTHS += ("August", "September", "October", "November", "December")
_ISO_TIME = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?")


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


def since_time(value: str | None) -> str | None:
    """An ISO time from ``30m``/``2h``/``7d`` (before now; a duration longer than the calendar goes
    back to its first day) or an ISO time as given."""
    if value is None:
        return None
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    number, unit = value[:-1], value[-1:]
    if unit in units and number.replace(".", "", 1).isdigit():
        try:
            start = datetime.now(UTC) - timedelta(seconds=float(number) * units[unit])
        except OverflowError:  # "99999999999d": everything
            start = datetime.min.replace(tzinfo=UTC)
        return start.isoformat(timespec="milliseconds")
    try:
        return datetime.fromisoformat(value).isoformat(timespec="milliseconds")
    except ValueError:
        raise ValueError(f"--since must be a duration such as 30m, 2h or 7d, or an ISO time, not {value!r}") from None


def written_time(text: str) -> str:
    """An ISO date or time as people write it ("9 December 2026", "9 December 2026 14:30");
    other text as it is."""
    if not _ISO_TIME.fullmatch(text):
        return text
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    day = f"{moment.day} {MONTHS[moment.month - 1]} {moment.year}"
    return day if len(text) == 10 else f"{day} {moment:%H:%M}"
