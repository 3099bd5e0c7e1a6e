from troth.text.windows import claim_windows, consecutive, context_sentences, rank, window_text


def test_sentences_keep_segment_and_offsets_and_long_ones_are_cut_at_spaces() -> None:
    context = ["Short one. " + "word " * 50, "Second segment here."]
    sentences = context_sentences(context, max_chars=60)
    assert all(len(s.text) <= 60 for s in sentences)
    assert all(context[s.segment][s.start : s.end] == s.text for s in sentences)
    assert sentences[-1].segment == 1 and sentences[-1].text == "Second segment here."


def test_a_context_that_fits_is_one_window_else_best_sentences_then_every_window() -> None:
    short = context_sentences(["A cat sat. A dog ran."], 100)
    assert [window_text(w) for w in claim_windows(short, "the dog", 100)] == ["A cat sat. A dog ran."]
    long = context_sentences([" ".join(f"Line {i} is about topic {i}." for i in range(30))], 300)
    windows = claim_windows(long, "topic 29", 60, scan=True)
    assert "topic 29" in window_text(windows[0])  # the best-matching sentence first
    assert len(windows) == 1 + len(consecutive(long, 60))
    covered = {s.start for w in windows[1:] for s in w}
    assert covered == {s.start for s in long}  # every sentence is in some window: nothing is cut
    assert claim_windows(long, "topic 29", 60, scan=False) == windows[:1]


def test_rank_prefers_rare_shared_words() -> None:
    sentences = context_sentences(["The report is long. The report cites Zanzibar."], 200)
    scores = rank(sentences, "a report about Zanzibar")
    assert scores[1] > scores[0] > 0


def test_a_table_row_of_the_context_is_read_as_a_sentence_and_quoted_as_written() -> None:
    segment = "Heights:\n\n| Tower | Height |\n|---|---|\n| Eiffel Tower | 330 m |\n"
    segment += "| Tokyo Tower | 333 m |\n\nBoth are tall."
    sentences = context_sentences(["Intro.", segment], 700)
    assert [s.text for s in sentences] == [
        "Intro.",
        "Heights:",
        "Eiffel Tower: Height: 330 m.",
        "Tokyo Tower: Height: 333 m.",
        "Both are tall.",
    ]
    row = sentences[2]
    assert row.segment == 1 and segment[row.start : row.end] == row.quote == "| Eiffel Tower | 330 m |"
    assert sentences[4].quote == "Both are tall."


def test_a_link_in_the_context_is_read_as_its_words_and_quoted_as_written() -> None:
    segment = "The [Eiffel Tower](https://en.wikipedia.org/wiki/Eiffel_Tower) is **330 m** tall. It opened in 1889."
    first, second = context_sentences([segment], 700)
    assert first.text == "The Eiffel Tower is 330 m tall." and not first.structured
    assert first.quote == segment[first.start : first.end] == segment.split(" It")[0]
    assert second.text == second.quote == "It opened in 1889." and second.original == ""


def test_a_markdown_or_html_context_reads_line_by_line_and_is_quoted_as_written() -> None:
    markdown = "## Specs\n- Battery: 12 **hours**\n- Weight: 1.2 kg"
    heading, battery, weight = context_sentences([markdown], 700)
    assert (heading.text, battery.text, weight.text) == ("Specs.", "Battery: 12 hours.", "Weight: 1.2 kg.")
    assert battery.quote == markdown[battery.start : battery.end] == "- Battery: 12 **hours**"
    html = "<p>The museum opens at <b>9am</b>.</p><ul><li>Adults: 12 euros</li><li>Children: free</li></ul>"
    opens, adults, children = context_sentences([html], 700)
    assert [s.text for s in (opens, adults, children)] == [
        "The museum opens at 9am.",
        "Adults: 12 euros.",
        "Children: free.",
    ]
    assert opens.quote == html[opens.start : opens.end] == "The museum opens at <b>9am</b>."
    assert window_text([adults, children]) == "Adults: 12 euros. Children: free."


def test_a_line_of_markup_alone_is_no_sentence() -> None:
    segment = "<div><span></span></div><p>The tower is 330 m tall.</p>\n####\n- "
    (only,) = context_sentences([segment], 700)
    assert only.text == only.quote == "The tower is 330 m tall."


def test_an_html_table_row_of_the_context_is_a_structured_sentence() -> None:
    segment = (
        "<p>Towers.</p><table><tr><th>Tower</th><th>Height</th></tr>"
        "<tr><td>Eiffel Tower</td><td>330 m</td></tr></table>"
    )
    prose, row = context_sentences([segment], 700)
    assert prose.text == "Towers." and not prose.structured
    assert row.text == "Eiffel Tower: Height: 330 m." and row.structured
    assert row.quote == segment[row.start : row.end] == "<tr><td>Eiffel Tower</td><td>330 m</td></tr>"
