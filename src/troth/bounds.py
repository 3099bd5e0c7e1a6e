"""Numeric command-line options, checked in one place: finite and in range, or a one-line error
(exit status 2). A NaN or an infinity never reaches a comparison, where it would switch a check
off (``--fail-if-worse nan``, ``--threshold nan``), and 0 never reaches a rate (``--rpm 0``)."""

from __future__ import annotations

import math


def check(
    option: str, value: float | None, *, low: float | None = None, high: float | None = None, strict: bool = False
) -> None:
    """ValueError naming ``option`` unless ``value`` is None or a finite number within ``low`` and
    ``high`` (excluded from the range when ``strict``)."""
    if value is None:
        return
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{option} must be a finite number, not {value}")
    above = ">" if strict else ">="
    below = "<" if strict else "<="
    if low is not None and (value <= low if strict else value < low):
        raise ValueError(f"{option} must be {above} {low:g}, not {value:g}")
    if high is not None and (value >= high if strict else value > high):
        raise ValueError(f"{option} must be {below} {high:g}, not {value:g}")
