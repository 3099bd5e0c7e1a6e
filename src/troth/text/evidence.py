"""Locate a judge's evidence quote in the context, or flag it as not found."""

from __future__ import annotations

from troth.values import Evidence

_TRANSLATE = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u00a0": " ",
        "\u2039": "<",
    }
)
_TRIM = " \t\n\"'`.,;:…"


def _normalise(text: str) -> tuple[str, list[int]]:
    """Lower-case, unify quotes/dashes, collapse whitespace; map each kept char to its source offset."""
    chars: list[str] = []
    offsets: list[int] = []
    prev_space = True
    for i, ch in enumerate(text.translate(_TRANSLATE)):
        if ch.isspace():
            if prev_space:
                continue
            chars.append(" ")
            prev_space = True
        else:
            chars.append(ch.lower())
            prev_space = False
        offsets.append(i)
    if chars and chars[-1] == " ":
        chars.pop()
        offsets.pop()
    return "".join(chars), offsets


def locate(quote: str, context: list[str]) -> Evidence | None:
    """Find ``quote`` in the context segments.

    Returns None for an empty quote, an :class:`Evidence` with offsets into the segment
    where it occurs (exactly, or after normalising case, quotes and whitespace), or an
    unverified :class:`Evidence` when it occurs nowhere.
    """
    stripped = quote.translate(_TRANSLATE).strip().strip(_TRIM)
    if not stripped:
        return None
    for index, segment in enumerate(context):
        pos = segment.find(stripped)
        if pos != -1:
            return Evidence(quote=quote, verified=True, context_index=index, start=pos, end=pos + len(stripped))
    needle, _ = _normalise(stripped)
    for index, segment in enumerate(context):
        hay, offsets = _normalise(segment)
        pos = hay.find(needle)
        if pos != -1:
            start = offsets[pos]
            end = offsets[pos + len(needle) - 1] + 1
            return Evidence(quote=quote, verified=True, context_index=index, start=start, end=end)
    return Evidence(quote=quote, verified=False)
