from troth.text.sentences import sentence_spans, split_claims, split_sentences


def test_splits_on_sentence_ends() -> None:
    assert split_sentences("The sky is blue. Grass is green!  Is water wet? Yes.") == [
        "The sky is blue.",
        "Grass is green!",
        "Is water wet?",
        "Yes.",
    ]


def test_keeps_abbreviations_initials_and_decimals() -> None:
    text = "Dr. Smith met J. R. Tolkien in 1937. The ratio was 3.5 to 1. Sales grew, e.g. in Q3."
    assert split_sentences(text) == [
        "Dr. Smith met J. R. Tolkien in 1937.",
        "The ratio was 3.5 to 1.",
        "Sales grew, e.g. in Q3.",
    ]


def test_empty_and_unterminated() -> None:
    assert split_sentences("  ") == []
    assert split_sentences("no end mark\nacross lines") == ["no end mark across lines"]


def test_sentence_spans_point_into_the_text() -> None:
    text = "  First one.   Second\nline here! "
    spans = sentence_spans(text)
    assert [text[a:b] for a, b in spans] == ["First one.", "Second\nline here!"]


def test_split_claims_splits_coordinated_clauses_only() -> None:
    assert split_claims("The Model 3 is an electric sedan, and deliveries began in July 2017.") == [
        "The Model 3 is an electric sedan.",
        "Deliveries began in July 2017.",
    ]
    assert split_claims("He went home, but she stayed; it rained all night.") == [
        "He went home, but she stayed.",  # "she stayed" is too short to stand alone
        "It rained all night.",
    ]
    assert split_claims("The bridge opened in 1932, and it carries six lanes.") == [
        "The bridge opened in 1932.",
        "It carries six lanes.",
    ]
    assert split_claims("Tom and Ann were sad and tired.") == ["Tom and Ann were sad and tired."]  # no clause joined


def test_a_unit_after_a_number_ends_a_sentence_and_initials_do_not() -> None:
    assert split_sentences("The tower is 330 m. It opened in 1889.") == ["The tower is 330 m.", "It opened in 1889."]
    assert split_sentences("It left at 5 p. m. Flight 4 was late.") == ["It left at 5 p. m. Flight 4 was late."]
    assert split_sentences("The house at 1101 W. Pennsylvania Ave. is old.") == [
        "The house at 1101 W. Pennsylvania Ave. is old."
    ]
    assert split_sentences("He met J. Smith there.") == ["He met J. Smith there."]


def test_a_blank_line_ends_a_sentence_with_its_offsets() -> None:
    text = "Title: Eiffel Tower\nSource: wiki.pdf, page 3\n\n  The tower is 330 m tall. It opened in 1889."
    spans = sentence_spans(text)
    assert [text[a:b] for a, b in spans] == [
        "Title: Eiffel Tower\nSource: wiki.pdf, page 3",
        "The tower is 330 m tall.",
        "It opened in 1889.",
    ]
    assert split_sentences("a line\nwrapped here.") == ["a line wrapped here."]


def test_markup_ends_a_sentence_a_list_items_number_does_not() -> None:
    text = "## Specs\nThe X1 ships in two sizes.\n- Battery: 12 hours\n1. Preheat the oven. Then bake."
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "## Specs",
        "The X1 ships in two sizes.",
        "- Battery: 12 hours",
        "1. Preheat the oven.",
        "Then bake.",
    ]
    html = "<h2>Hours</h2><p>It opens at 9am.</p><ul><li>Adults: 12 euros</li></ul>"
    assert [html[a:b] for a, b in sentence_spans(html)] == ["Hours", "It opens at 9am.", "Adults: 12 euros"]
    wrapped = "The tower was finished\nin 1889 and is 330 m tall."  # a line break alone ends nothing
    assert [wrapped[a:b] for a, b in sentence_spans(wrapped)] == [wrapped]
