"""An answer's prose out of its markup: list items, lines and HTML blocks apart; code, headings,
lead-ins and markers left out."""

from __future__ import annotations

from troth.text.markup import inline_reading, prose_segments
from troth.text.sentences import split_claims


def test_list_items_are_segments_without_their_markers() -> None:
    text = "Key facts:\n- Paris is the capital of France\n* It has 2.1 million residents.\n• The tower opened in 1889"
    assert prose_segments(text) == [
        "Paris is the capital of France",
        "It has 2.1 million residents.",
        "The tower opened in 1889",
    ]
    numbered = "1. Paris is the capital of France.\n2) Berlin is the capital of Germany.\n10. Rome is in Italy."
    assert split_claims(numbered) == [
        "Paris is the capital of France.",
        "Berlin is the capital of Germany.",
        "Rome is in Italy.",
    ]


def test_a_hard_wrapped_sentence_stays_whole_and_a_blank_line_ends_a_paragraph() -> None:
    text = "The company was founded in 1998 by\nAnna Berg in Oslo. It grew\nquickly\n\nIt now has 40 staff"
    assert prose_segments(text) == [
        "The company was founded in 1998 by Anna Berg in Oslo. It grew quickly",
        "It now has 40 staff",
    ]
    assert split_claims(text)[:2] == ["The company was founded in 1998 by Anna Berg in Oslo.", "It grew quickly"]


def test_code_headings_html_and_emphasis() -> None:
    text = (
        "## Answer\nThe **tower** opened in __1889__.\n```python\nprint('Paris is in Spain.')\n```\nIt is 330 m tall."
    )
    assert split_claims(text) == ["The tower opened in 1889.", "It is 330 m tall."]
    html = "<p>Paris is the capital of France.</p><ul><li>It has <b>2.1 million</b> residents.</li></ul>"
    assert split_claims(html) == ["Paris is the capital of France.", "It has 2.1 million residents."]
    assert split_claims("```\nonly code\n```") == [] and split_claims("1.\n2.") == []


def test_plain_prose_is_unchanged() -> None:
    text = "The Tesla Model 3 is an electric sedan, and deliveries began in July 2017. It costs $40,000 (in 2017)."
    assert split_claims(text) == [
        "The Tesla Model 3 is an electric sedan.",
        "Deliveries began in July 2017.",
        "It costs $40,000 (in 2017).",
    ]
    assert prose_segments("x < 5 and y > 3 hold.") == ["x < 5 and y > 3 hold."]


def test_citation_markers_are_removed_and_what_looks_like_one_in_prose_is_kept() -> None:
    cited = (
        "The tower is 330 metres tall [1][2]. It opened in 1889 [1, 3]. It has 3 floors (Source 2). "
        "It draws 7 million visitors【4:0†source】. It is in Paris [doc1]. It is iron^1. See note [^2]."
    )
    assert split_claims(cited) == [
        "The tower is 330 metres tall.",
        "It opened in 1889.",
        "It has 3 floors.",
        "It draws 7 million visitors.",
        "It is in Paris.",
        "It is iron.",
        "See note.",
    ]
    assert split_claims("The area is 10^3 square metres (about 1,000).") == [
        "The area is 10^3 square metres (about 1,000)."
    ]


def test_a_table_is_read_row_by_row_with_its_header() -> None:
    answer = (
        "Here is a comparison:\n\n| Tower | Height | Opened |\n|---|:---:|---|\n"
        "| Eiffel Tower | 330 m | 1889 |\n| **Tokyo Tower** | 333 m | |\n\nBoth are lattice towers."
    )
    assert split_claims(answer) == [
        "Eiffel Tower: Height: 330 m; Opened: 1889.",
        "Tokyo Tower: Height: 333 m.",
        "Both are lattice towers.",
    ]
    assert prose_segments("| Paris | France |\n| Rome | Italy |") == ["Paris: France.", "Rome: Italy."]
    assert prose_segments("Pick a | b, not both.") == ["Pick a | b, not both."]


def test_a_link_reads_as_its_words_and_an_image_states_nothing() -> None:
    answer = "The [Eiffel Tower](https://en.wikipedia.org/wiki/Eiffel_(tower)) is 330 m tall. ![A photo](t.png)"
    assert prose_segments(answer) == ["The Eiffel Tower is 330 m tall."]
    assert inline_reading("See **the [docs](https://x.org)** and ![logo](l.png).") == "See the docs and logo."
    censored = "Shut your f***ing windows, b**ch."  # a lone ** is no bold mark
    assert inline_reading(censored) == censored and inline_reading("@kasey__moore, 576 U.S. __ (2015)") == (
        "@kasey__moore, 576 U.S. __ (2015)"
    )
