"""Pleasantries and offers of help are no claims; a sentence that states something is one; a
lead-in crediting the context comes off."""

from __future__ import annotations

import pytest

from troth.text.chatter import is_chatter, without_chatter, without_lead_in


@pytest.mark.parametrize(
    "sentence",
    [
        "Sure!",
        "Great question!",
        "Certainly.",
        "I hope this helps!",
        "Let me know if you have any other questions.",
        "Feel free to ask if anything is unclear.",
        "Would you like more details?",
        "Is there anything else I can help you with?",
        "**Happy to help!**",
    ],
)
def test_a_pleasantry_or_an_offer_is_chatter(sentence: str) -> None:
    assert is_chatter(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Sure, the tower is 330 metres tall.",
        "Okay, so the tower opened in 1889.",
        "Do you like it?",
        "The hope is that this helps the town.",
        "Great Britain joined in 1973.",
        "Feel free to bring a picnic: the park allows it.",
    ],
)
def test_a_sentence_that_states_something_is_no_chatter(sentence: str) -> None:
    assert not is_chatter(sentence)


def test_chatter_is_left_out_unless_the_answer_is_nothing_else() -> None:
    claims = ["Sure!", "The tower is 330 m tall.", "I hope this helps!"]
    assert without_chatter(claims) == (["The tower is 330 m tall."], ["Sure!", "I hope this helps!"])
    assert without_chatter(["Sure!", "Thanks!"]) == (["Sure!", "Thanks!"], [])


@pytest.mark.parametrize(
    ("claim", "bare"),
    [
        ("According to the context, the tower is 330 m tall.", "The tower is 330 m tall."),
        ("Based on the provided documents, it opened in 1889.", "It opened in 1889."),
        ("The context states that Paris is the capital.", "Paris is the capital."),
        ("The document says the tower was completed in 1889.", "The tower was completed in 1889."),
        ("As mentioned in the passage above, sales fell.", "Sales fell."),
        ("Yes, the tower opened in 1889.", "The tower opened in 1889."),
        ("According to the context, yes, it opened in 1889.", "It opened in 1889."),
        ("In summary, sales fell by 5%.", "Sales fell by 5%."),
        ("Yesterday, sales fell.", "Yesterday, sales fell."),
        ("No one was hurt.", "No one was hurt."),
        ("According to police, the man was arrested.", "According to police, the man was arrested."),
        ("The report says sales fell.", "The report says sales fell."),
        ("The context states that.", "The context states that."),
    ],
)
def test_a_lead_in_crediting_the_context_or_framing_the_claim_comes_off(claim: str, bare: str) -> None:
    assert without_lead_in(claim) == bare
