"""Times as people write and read them: a stored ISO time shown, a ``--since`` read, an ISO date
in prose, a clock time read whichever way it is written ("2:45 pm", "14:45"), a month abbreviated
before a date ("Aug. 10") spelled out."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

MONTHS: tuple[str, ...] = ("January", "February", "March", "April", "May", "June", "July")
MONTHS += ("August", "September", "October", "November", "December")
_SHORT_MONTH = re.compile(r"\b(Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?(?=\s+\d)")
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


_TWELVE_HOUR = re.compile(r"(?<![\w.:,$£€¥])(1[0-2]|0?[1-9])(?:[:.]([0-5]\d))?\s?([ap])\.?\s?m\b", re.IGNORECASE)
_DAY_HOUR = re.compile(r"(?<![\w.:,$£€¥])([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?(?![\d:])")


@dataclass(frozen=True)
class Clock:
    """A clock time of a text: its value as "HH:MM" on a 24-hour clock, where it stands, and the
    other value it may have (a time written without "am" or "pm", "3:30", may be 15:30; one
    written with "pm", "3:30 pm", may be what a text writes bare as "3:30")."""

    value: str
    start: int
    end: int
    twin: str = ""

    def admits(self, found: str) -> bool:
        """Whether ``found``, a value of the context, is the other value this time may have."""
        return bool(self.twin) and found == self.twin


def clock_times(text: str) -> list[Clock]:
    """The clock times of ``text``: "2:45 pm", "2.45pm", "2 PM", "9 a.m." and "14:45" by their
    24-hour value; a date, a score ("2:1") or a bare hour ("at 3") is none."""
    found = []
    for m in _TWELVE_HOUR.finditer(text):
        hour, minute = int(m.group(1)) % 12, m.group(2) or "00"
        pm = m.group(3).lower() == "p"
        twin = (f"{hour:02d}:{minute}" if hour else "") if pm else (f"12:{minute}" if hour == 0 else "")
        found.append(Clock(f"{hour + 12 * pm:02d}:{minute}", m.start(), m.end(), twin))
    taken = [(c.start, c.end) for c in found]
    for m in _DAY_HOUR.finditer(text):
        if any(a < m.end() and m.start() < b for a, b in taken):
            continue
        hour, written = int(m.group(1)), m.group(1)
        bare = 1 <= hour <= 12 and not written.startswith("0")  # "3:30" may be 15:30; "03:30" and "15:30" are not
        twin = f"{(hour + 12) % 24:02d}:{m.group(2)}" if bare else ""
        found.append(Clock(f"{hour:02d}:{m.group(2)}", m.start(), m.end(), twin))
    return sorted(found, key=lambda c: c.start)


def spelled_months(text: str) -> str:
    """``text`` with each month abbreviated before a day or a year written out ("Aug. 10, 2014":
    "August 10, 2014", "Sept 2019": "September 2019"), as a news agency's style abbreviates them."""
    return _SHORT_MONTH.sub(lambda m: next(n for n in MONTHS if n.startswith(m.group(1)[:3])), text)
