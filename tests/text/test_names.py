"""Names read from a claim and its context: runs of capitalised words, a name displaced from its
neighbours, accents, and acronyms both ways."""

from __future__ import annotations

from troth.text.names import acronyms, displaced_names, folded, names, spelled_out, written_acronyms


def test_a_name_is_a_run_of_capitalised_words_that_does_not_start_a_sentence() -> None:
    assert names("Anna met Tom Rask in Oslo. Then they left.") == {"Tom Rask", "Oslo"}
    assert names("Anna Berg founded it in May.", initial=True) == {"Anna Berg"}  # a month is no name
    assert folded("Zürich, José") == "Zurich, Jose"


def test_a_name_set_beside_another_name_s_words_is_displaced() -> None:
    window = "Anna Berg founded the firm in 1998 and Tom Rask joined later."
    assert displaced_names("Tom Rask founded the firm.", window) == {"Tom Rask"}
    assert displaced_names("Anna Berg founded the firm.", window) == set()


def test_acronyms_are_read_both_ways() -> None:
    assert {"us", "fbi", "un"} <= acronyms(
        "The United States, the Federal Bureau of Investigation and the United Nations"
    )
    assert acronyms("Talks in the U.S. ended.") == {"us"}
    assert written_acronyms("Team GB and the PCC met the U.S. team TO BE sure.") == {"gb", "pcc", "us"}  # "BE": a word
    assert spelled_out("In Israel, Great Britain won.", {"ii", "gb"}) == {"Great", "Britain"}  # "In" is no initial
    assert spelled_out("The Police and Crime Commissioner spoke.", {"pcc"}) == {"Police", "Crime", "Commissioner"}
