"""Per-claim retrieval of context sentences (local judge, long contexts)."""

from __future__ import annotations

import pytest

from troth import ContextTooLongError
from troth.text.retrieval import select_sentences

CONTEXT = [
    "The museum opened in 1901. It has three floors. Entry is free on Sundays.",
    "The café on the ground floor serves lunch. The museum's director is Ana Ruiz.",
]


def test_picks_the_matching_sentence_within_the_budget() -> None:
    assert select_sentences(CONTEXT, "Who directs the museum? Ana Ruiz.", budget_chars=40) == [
        "The museum's director is Ana Ruiz."
    ]


def test_keeps_context_order_and_fills_the_budget() -> None:
    (picked,) = select_sentences(CONTEXT, "The museum opened in 1901 and entry is free on Sundays.", budget_chars=60)
    assert picked == "The museum opened in 1901. Entry is free on Sundays."


def test_everything_fits_in_a_large_budget() -> None:
    (picked,) = select_sentences(CONTEXT, "anything", budget_chars=10_000)
    assert picked.count(".") == 5  # all five sentences


def test_no_sentence_fits_is_a_clear_error() -> None:
    with pytest.raises(ContextTooLongError, match="even after retrieval"):
        select_sentences(["x" * 500], "x", budget_chars=100)


def test_empty_context() -> None:
    assert select_sentences([], "claim", budget_chars=100) == []
