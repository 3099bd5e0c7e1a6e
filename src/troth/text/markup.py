"""An answer's prose, out of the markup LLMs write it in: the segments a model-free claim
extractor splits into sentences.

- Fenced code blocks are dropped: code states no fact of the context.
- HTML block tags (``<p>``, ``<li>``, ``<br>``, ...) end a segment; other tags are dropped.
- A line ends a segment where the next one starts a list item, or where it ends a sentence
  (``.``, ``!``, ``?``, ``:`` or ``;``), or before a blank line; a hard-wrapped sentence stays whole.
- List markers (``-``, ``*``, ``•``, ``1.``, ``2)``) and bold or underline marks (``**``, ``__``)
  are removed.
- Citation markers are removed: ``[1]``, ``[1, 2]``, ``[^3]``, ``[doc1]``, ``[Source 2]``,
  ``(Source 1)``, ``【4:0†source】``, a footnote caret ``tall^1``: they point at the context, they
  state nothing about it.
- A Markdown table is read row by row: each row a segment of its own, its cells named by the
  header ("Eiffel Tower: height 330 m, opened 1889.").
- Not claims, and dropped: Markdown headings (``# Results``), a lead-in ending with a colon
  ("Here is what the report says:"), and a segment without a letter.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^\s*(```|~~~).*?(^\s*\1[^\n]*$|\Z)", re.MULTILINE | re.DOTALL)
_BLOCK_TAG = re.compile(r"</?(?:p|br|li|ul|ol|div|h[1-6]|tr|td|th|table|blockquote|section)\b[^>]*>", re.IGNORECASE)
_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*\b[^<>]*>")
_ITEM = re.compile(r"^\s*(?:[-*•+–]|\d{1,3}[.)])\s+")
_HEADING = re.compile(r"^\s*#{1,6}\s+")
_EMPHASIS = re.compile(r"\*\*|__")
_SOURCE = r"(?:source|doc|document|ref|reference|citation|context|passage)s?\s*:?\s*#?\d+"
_CITATION = re.compile(
    r"[ \t]?(?:\[(?:\^?\d+(?:\s*[,–-]\s*\d+)*|" + _SOURCE + r"(?:\s*,\s*#?\d+)*)\]"
    r"|【[^】\n]{0,40}】"
    r"|\(" + _SOURCE + r"(?:\s*(?:,|and)\s*#?\d+)*\)"
    r"|(?<=[^\W\d_]|[.,;:)])\^\d+)",
    re.IGNORECASE,
)
_ENDS = (".", "!", "?", ":", ";")


_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _cells(row: str) -> list[str]:
    return [_EMPHASIS.sub("", c).strip() for c in row.strip().strip("|").split("|")]


def _table_rows(rows: list[str]) -> list[str]:
    """A Markdown table's rows as sentences: "first cell: header cell, header cell." under a
    header row (the line above a ``|---|`` rule), else the cells joined."""
    header: list[str] = []
    if len(rows) > 1 and _TABLE_RULE.match(rows[1]):
        header, rows = _cells(rows[0]), rows[2:]
    out = []
    for row in rows:
        cells = _cells(row)
        named = [f"{h.lower()} {c}" if h else c for h, c in zip(header[1:], cells[1:], strict=False) if c]
        rest = named if header else [c for c in cells[1:] if c]
        out.append(f"{cells[0]}: {', '.join(rest)}." if rest else f"{cells[0]}.")
    return out


def _read_tables(lines: list[str]) -> list[str]:
    """``lines`` with each Markdown table (two lines or more between pipes) read row by row."""
    out: list[str] = []
    at = 0
    while at < len(lines):
        end = at
        while end < len(lines) and _TABLE_ROW.match(lines[end]):
            end += 1
        if end - at >= 2:
            out += ["", *_table_rows(lines[at:end]), ""]
            at = end
        else:
            out.append(lines[at])
            at += 1
    return out


def _lines(text: str) -> list[str]:
    """``text``'s lines, code blocks dropped and HTML blocks on lines of their own."""
    text = _CITATION.sub("", _FENCE.sub("\n", text))
    text = _TAG.sub("", _BLOCK_TAG.sub("\n", text))
    return _read_tables(text.split("\n"))


def prose_segments(text: str) -> list[str]:
    """The segments of ``text`` (see the module's note), markers removed, blanks collapsed."""
    segments: list[str] = []
    current: list[str] = []
    for line in _lines(text):
        heading, item = _HEADING.match(line) is not None, _ITEM.match(line) is not None
        if current and (heading or item or not line.strip() or current[-1].endswith(_ENDS)):
            segments.append(" ".join(current))
            current = []
        bare = _EMPHASIS.sub("", _ITEM.sub("", line)).strip()
        if bare and not heading:
            current.append(bare)
    if current:
        segments.append(" ".join(current))
    found = [" ".join(s.split()) for s in segments]
    return [s for s in found if any(c.isalpha() for c in s) and not s.endswith(":")]
