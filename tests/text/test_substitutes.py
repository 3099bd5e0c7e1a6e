"""A claim's substitutes: one of its names or numbers replaced by another of its window."""

from __future__ import annotations

from troth.text.substitutes import substitutes

WINDOW = (
    "The iPhone 4 was first unveiled on June 7, 2010, at Apple's Worldwide Developers Conference in "
    "San Francisco, and was released on June 24, 2010, in the United States, France and Germany."
)


def test_a_swapped_in_name_gets_the_windows_other_names_a_month_among_them() -> None:
    found = substitutes("It was first released on Germany 7th 2010.", WINDOW, most=20)
    assert "It was first released on June 7th 2010." in found
    assert "It was first released on San Francisco 7th 2010." in found
    assert "It was first released on France 7th 2010." in found
    assert "It was first released on Germany 7th 24." in found  # or its number
    assert "It was first released on Germany 7th 2010." not in found


def test_each_number_of_the_claim_is_replaced_by_the_windows_others_commas_or_not() -> None:
    window = "Liverpool lost 4-2 to Chelsea; 12,500 fans came."
    found = substitutes("Liverpool lost 4 - 5 with 20,000 fans.", window, most=20)
    assert "Liverpool lost 2 - 5 with 20,000 fans." in found
    assert "Liverpool lost 4 - 2 with 20,000 fans." in found
    assert "Liverpool lost 4 - 5 with 12500 fans." in found
    assert "Liverpool lost 4 - 5 with 2 fans." in found


def test_names_and_numbers_take_turns_up_to_the_limit() -> None:
    window = "Anna Berg and Tom Ruiz met Lena Park in Oslo in 1999, 2001 and 2004."
    found = substitutes("Anna Berg met Tom Ruiz in 1999.", window, most=4)
    assert len(found) == 4
    assert found[:2] == ["Lena Park met Tom Ruiz in 1999.", "Anna Berg met Lena Park in 1999."]
    assert found[2] == "Anna Berg met Tom Ruiz in 2001."


def test_a_claim_without_names_or_numbers_or_a_window_without_others_has_none() -> None:
    assert substitutes("the weather was mild.", WINDOW) == []
    assert substitutes("It was released in Germany in 2010.", "Germany got it in 2010.") == []
    assert substitutes("It opened in 2010.", "") == []
