from troth.sentences import split_sentences


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
