from troth.text.html_tables import html_table_blocks

PAGE = (
    "<p>Two towers.</p><table><thead><tr><th>Tower</th><th>Height</th><th>Opened</th></tr></thead>"
    "<tbody><tr><td>Eiffel Tower</td><td>330 m</td><td>1889</td></tr>\n"
    "<tr><td>Tokyo <b>Tower</b></td><td>333&nbsp;m</td><td>1958</td></tr></tbody></table><p>Both are tall.</p>"
)


def test_each_data_row_is_a_sentence_named_by_the_header_and_placed_where_it_stands() -> None:
    ((start, end, rows),) = html_table_blocks(PAGE)
    assert PAGE[start:end].startswith("<table>") and PAGE[start:end].endswith("</table>")
    assert [r.text for r in rows] == [
        "Eiffel Tower: Height: 330 m; Opened: 1889.",
        "Tokyo Tower: Height: 333 m; Opened: 1958.",
    ]
    assert [PAGE[r.start : r.end] for r in rows] == [
        "<tr><td>Eiffel Tower</td><td>330 m</td><td>1889</td></tr>",
        "<tr><td>Tokyo <b>Tower</b></td><td>333&nbsp;m</td><td>1958</td></tr>",
    ]


def test_rows_without_end_tags_or_header_and_tables_left_open() -> None:
    text = "<table><tr><td>A</td><td>1\n<tr><td>B</td><td>2</table>"
    ((_, _, rows),) = html_table_blocks(text)
    assert [(r.text, text[r.start : r.end]) for r in rows] == [
        ("A: 1.", "<tr><td>A</td><td>1"),
        ("B: 2.", "<tr><td>B</td><td>2"),
    ]
    assert html_table_blocks("<table><tr><td>open") == []
    assert html_table_blocks("No table here.") == []


def test_a_table_in_a_cell_is_that_cells_text() -> None:
    text = "<table><tr><td>Outer</td><td><table><tr><td>inner</td></tr></table></td></tr></table>"
    ((start, end, rows),) = html_table_blocks(text)
    assert (start, end) == (0, len(text)) and [r.text for r in rows] == ["Outer: inner."]
