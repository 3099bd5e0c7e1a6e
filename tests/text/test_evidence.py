from troth.text.evidence import locate

CONTEXT = ["The Eiffel Tower, completed in 1889, is 330 metres tall.", "It stands in  Paris,\nFrance."]


def test_exact_quote_gives_segment_and_offsets() -> None:
    ev = locate("completed in 1889", CONTEXT)
    assert ev is not None and ev.verified
    assert ev.context_index == 0
    assert CONTEXT[0][ev.start : ev.end] == "completed in 1889"


def test_quote_matched_despite_case_whitespace_and_curly_quotes() -> None:
    ev = locate("“stands in paris, france”", CONTEXT)
    assert ev is not None and ev.verified and ev.context_index == 1
    assert CONTEXT[1][ev.start : ev.end] == "stands in  Paris,\nFrance"


def test_invented_quote_is_flagged() -> None:
    ev = locate("built in 1901", CONTEXT)
    assert ev is not None
    assert not ev.verified
    assert ev.context_index is None and ev.start is None


def test_empty_quote_is_no_evidence() -> None:
    assert locate("  ", CONTEXT) is None
