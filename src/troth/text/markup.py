"""An answer's prose, out of the markup LLMs write it in: the segments a model-free claim
extractor splits into sentences.

- Fenced code blocks are dropped: code states no fact of the context.
- HTML block tags (``<p>``, ``<li>``, ``<br>``, ...) end a segment; other tags are dropped.
- A line ends a segment where the next one starts a list item, or where it ends a sentence
  (``.``, ``!``, ``?``, ``:`` or ``;``), or before a blank line; a hard-wrapped sentence stays whole.
- List markers (``-``, ``*``, ``•``, ``1.``, ``2)``) and bold or underline marks (``**``, ``__``)
  are removed; a link reads as its words ("[Eiffel Tower](https://...)" as "Eiffel Tower"), and
  an image is dropped.
- Citation markers are removed: ``[1]``, ``[1, 2]``, ``[^3]``, ``[doc1]``, ``[Source 2]``,
  ``(Source 1)``, ``【4:0†source】``, a footnote caret ``tall^1``: they point at the context, they
  state nothing about it.
- A Markdown table is read row by row: each row a segment of its own, its cells named by the
  header ("Eiffel Tower: Height: 330 m; Opened: 1889.").
- Not claims, and dropped: Markdown headings (``# Results``), a lead-in ending with a colon
  ("Here is what the report says:"), and a segment without a letter.

A context's markup is read too: :func:`block_breaks` (where its sentences break apart) and
:func:`line_reading` (a marked line as it reads).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\((?:[^()\s]|\([^()\s]*\))*\)")
_BOLD = re.compile(r"(?<![\w*])(\*\*|__)(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*])")


def inline_reading(text: str) -> str:
    """``text`` as it reads, without inline Markdown: a link or an image as its words
    ("[Eiffel Tower](https://...)" as "Eiffel Tower"), bold text without its marks (a lone
    ``**``, as in a censored word, stays)."""
    return _BOLD.sub(r"\2", _LINK.sub(r"\2", text))


_MARKED_LINE = re.compile(r"^[ \t]*(?:(#{1,6})|[-*•+–]|\d{1,3}[.)])[ \t]+", re.MULTILINE)
_LINE_END = re.compile(r"[ \t]*(?:\n|$)")
_SPACED_BLOCK_TAG = re.compile(r"\s*" + _BLOCK_TAG.pattern, re.IGNORECASE)


def block_breaks(text: str) -> list[tuple[int, int]]:
    """Where ``text`` breaks apart by its markup, not its prose (a context written in Markdown or
    HTML): the spans that no sentence crosses or holds: an HTML block tag, the line break before
    a list item or a heading, and the one after a heading."""
    breaks = [(m.start(), m.end()) for m in _BLOCK_TAG.finditer(text)]
    for line in _MARKED_LINE.finditer(text):
        breaks.append((max(line.start() - 1, 0), line.start()))
        if line.group(1):  # a heading is a sentence of its own
            end = _LINE_END.search(text, line.end())
            breaks.append((end.start(), end.end()) if end else (len(text), len(text)))
    return sorted(breaks)


def line_reading(text: str, closed: bool = False) -> str:
    """A context sentence as it reads: without a list or heading marker before it or HTML tags
    in it, and without inline Markdown (:func:`inline_reading`); a marked line, or one ``closed``
    by an HTML block tag, reads as a sentence ("- Weight: 1.2 kg" as "Weight: 1.2 kg.")."""
    marked = _MARKED_LINE.match(text)
    read = inline_reading(_TAG.sub("", text[marked.end() :] if marked else text)).strip()
    return read + "." if (marked or closed) and read and not read.endswith((*_ENDS, ")")) else read


def closed_at(text: str, end: int) -> bool:
    """Whether an HTML block tag follows ``end`` in ``text`` (spaces aside)."""
    return _SPACED_BLOCK_TAG.match(text, end) is not None


_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _cells(row: str) -> list[str]:
    return [_EMPHASIS.sub("", c).strip() for c in row.strip().strip("|").split("|")]


def row_sentence(cells: list[str], header: list[str]) -> str:
    """A table row as a sentence: "first cell: Header: cell; Header: cell." (cells named by the
    header when there is one, else joined by commas)."""
    if header:
        rest = "; ".join(f"{h}: {c}" if h else c for h, c in zip(header[1:], cells[1:], strict=False) if c)
    else:
        rest = ", ".join(c for c in cells[1:] if c)
    return f"{cells[0]}: {rest}." if rest else f"{cells[0]}."


@dataclass(frozen=True)
class TableRow:
    """A data row of a Markdown table: where its line stands in the text, and the row read as a
    sentence (:func:`row_sentence`)."""

    start: int
    end: int
    text: str


def table_blocks(text: str) -> list[tuple[int, int, list[TableRow]]]:
    """Each Markdown table of ``text`` (two lines or more between pipes): where it starts and
    ends, and its data rows (the header row, above a ``|---|`` rule, names the cells)."""
    lines, at = [], 0
    for line in text.split("\n"):
        lines.append((at, at + len(line), line))
        at += len(line) + 1
    blocks, i = [], 0
    while i < len(lines):
        j = i
        while j < len(lines) and _TABLE_ROW.match(lines[j][2]):
            j += 1
        if j - i < 2:
            i += 1
            continue
        group, header = lines[i:j], []
        if _TABLE_RULE.match(group[1][2]):
            header, group = _cells(group[0][2]), group[2:]
        rows = [TableRow(start, end, row_sentence(_cells(line), header)) for start, end, line in group]
        blocks.append((lines[i][0], lines[j - 1][1], rows))
        i = j
    return blocks


def _read_tables(text: str) -> str:
    """``text`` with each Markdown table read row by row, a row a paragraph."""
    for start, end, rows in reversed(table_blocks(text)):
        text = text[:start] + "\n\n" + "\n\n".join(r.text for r in rows) + "\n\n" + text[end:]
    return text


def _lines(text: str) -> list[str]:
    """``text``'s lines, code blocks dropped and HTML blocks on lines of their own."""
    text = _CITATION.sub("", _FENCE.sub("\n", text))
    text = _LINK.sub(lambda m: "" if m.group(1) else m.group(2), text)  # an image states nothing
    text = _TAG.sub("", _BLOCK_TAG.sub("\n", text))
    return _read_tables(text).split("\n")


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
