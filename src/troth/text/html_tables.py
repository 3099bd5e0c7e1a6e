"""An HTML table of a context read row by row, as a Markdown table is
(:func:`troth.text.markup.table_blocks`): each data row a sentence of its cells named by the
header row ("Eiffel Tower: Height: 330 m; Opened: 1889."), and where the row stands in the text,
for evidence to quote it as written. Parsed with the standard library's ``html.parser``; a table
inside a table cell is read as that cell's text, and a table left open is not read as one."""

from __future__ import annotations

from html.parser import HTMLParser

from troth.text.markup import TableRow, row_sentence


def html_table_blocks(text: str) -> list[tuple[int, int, list[TableRow]]]:
    """Each complete HTML table of ``text``: where it starts and ends, and its data rows (a first
    row of header cells names the others' cells)."""
    if "<table" not in text.lower():
        return []
    parser = _Tables(text)
    parser.feed(text)
    parser.close()
    return parser.blocks


class _Tables(HTMLParser):
    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.text = text
        self.line_starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
        self.blocks: list[tuple[int, int, list[TableRow]]] = []
        self.depth = 0
        self.start = 0
        self.rows: list[tuple[int, int, list[str], bool]] = []
        self.row: tuple[int, list[str], bool] | None = None  # its start, its cells, all of them headers
        self.cell: list[str] | None = None

    def _at(self) -> int:
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.depth += 1
            if self.depth == 1:
                self.start, self.rows = self._at(), []
        elif self.depth == 1 and tag == "tr":
            self._end_row(self._at())
            self.row = (self._at(), [], True)
        elif self.depth == 1 and tag in ("td", "th") and self.row is not None:
            self._end_cell()
            self.cell = []
            if tag == "td":
                self.row = (self.row[0], self.row[1], False)

    def handle_endtag(self, tag: str) -> None:
        at = self._at()
        end = self.text.find(">", at) + 1 or len(self.text)
        if self.depth == 1 and tag in ("td", "th"):
            self._end_cell()
        elif self.depth == 1 and tag == "tr":
            self._end_row(end)
        elif tag == "table" and self.depth:
            if self.depth == 1:
                self._end_row(at)
                self.blocks.append((self.start, end, _rows(self.rows)))
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)

    def _end_cell(self) -> None:
        if self.cell is not None and self.row is not None:
            self.row[1].append(" ".join("".join(self.cell).split()))
        self.cell = None

    def _end_row(self, end: int) -> None:
        """Closes the open row at ``end`` (its end tag's end, or where the next row or the table's
        end starts: HTML may leave a row's end tag out)."""
        self._end_cell()
        if self.row is not None:
            start, cells, headers = self.row
            while end > start and self.text[end - 1].isspace():
                end -= 1
            self.rows.append((start, end, cells, headers))
        self.row = None


def _rows(rows: list[tuple[int, int, list[str], bool]]) -> list[TableRow]:
    """The data rows read as sentences, named by a first row of header cells."""
    header = rows[0][2] if rows and rows[0][3] and rows[0][2] else []
    data = rows[1:] if header else rows
    return [TableRow(start, end, row_sentence(cells, header)) for start, end, cells, _ in data if any(cells)]
