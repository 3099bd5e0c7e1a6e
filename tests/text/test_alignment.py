"""Alignment on crafted pairs: a swapped number or name, or a negation, is flagged against the
claim's aligned window; a paraphrase is not."""

from __future__ import annotations

from troth.text.alignment import ContextAlignment, align, negated_terms, windows
from troth.text.names import names
from troth.text.numerals import number_scales, numbers, resolved, spelled_values, value, written_numbers

CONTEXT = [
    "Anna Berg founded the company in 1998 with 12 staff. It lost 4-2 to the rival bid in 2001.",
    "In 2004 Tom Rask joined as chief engineer. The firm does not sell abroad.",
]


def test_a_number_swapped_from_elsewhere_in_the_context_is_flagged() -> None:
    found = align("Anna Berg founded the company in 2004.", CONTEXT)
    assert found.swapped_numbers == ("2004",) and not found.swapped_names
    assert found.window.startswith("Anna Berg founded the company in 1998")
    score = ["It lost 4-2 to the rival bid. Sales grew 5%."]
    assert align("It lost 4-5 to the rival bid.", score).swapped_numbers == ("5",)


def test_a_name_swapped_from_elsewhere_in_the_context_is_flagged() -> None:
    found = align("The company was founded by Tom Rask in 1998.", CONTEXT)
    assert found.swapped_names == ("Tom Rask",) and not found.swapped_numbers and found.swapped


def test_a_negation_against_the_aligned_sentence_is_flagged_both_ways() -> None:
    assert align("Anna Berg did not found the company in 1998.", CONTEXT).negation_mismatch
    assert align("The firm sells abroad.", CONTEXT).negation_mismatch
    assert not align("The firm doesn't sell abroad.", CONTEXT).negation_mismatch


def test_a_number_swapped_within_its_own_window_is_flagged_by_the_word_that_leads_it() -> None:
    school = ["The school has 850 pupils and 64 teachers."]
    assert align("The school has 64 pupils.", school).swapped_numbers == ("64",)  # "has" leads 850 there
    assert not align("The school has 850 pupils.", school).swapped
    prices = ["Prices fell 3% in March, after rising 5% in February."]
    assert align("Prices fell 5% in March.", prices).swapped_numbers == ("5",)
    assert not align("The team won 11 games.", ["The team won 11 of its 16 games."]).swapped


def test_a_name_from_elsewhere_is_a_swap_only_where_it_takes_another_names_place() -> None:
    context = [
        "Liverpool beat Blackburn 1-0 in the cup replay on Wednesday. Lucas challenged Olsson early on. "
        "Fans sang all night. The police praised them. The replay was played at Ewood Park."
    ]
    assert not align("Liverpool beat Blackburn 1-0 in the cup replay at Ewood Park.", context).swapped
    assert align("Liverpool beat Olsson 1-0 in the cup replay.", context).swapped_names == ("Olsson",)


def test_a_negation_counts_only_for_the_words_it_negates() -> None:
    match = ["United have never lost five straight matches to City, and Young wants to end their run."]
    assert not align("Young wants to end City's run.", match).negation_mismatch  # "never" negates "lost five"
    assert align("United have lost five straight matches to City.", match).negation_mismatch
    quote = ["She said: 'I'm still on cloud nine, I can't believe it happened.'"]
    assert not align("She said she can't believe it happened.", quote).negation_mismatch
    assert negated_terms("It did not win the cup, but it scored twice.") == {"win", "cup"}


def test_a_negation_is_read_where_the_claim_aligns_with_no_window() -> None:
    context = ["Johnny McGurk, 49, appeared in court in County Londonderry accused of theft from a quarry firm."]
    found = align("A former footballer has not appeared in court charged with stealing from a quarry company.", context)
    assert found.negation_mismatch and not found.swapped


def test_a_paraphrase_is_not_flagged() -> None:
    for claim in (
        "The company was set up by Anna Berg in 1998, with 12 employees.",
        "Tom Rask became chief engineer in 2004.",
        "Anna Berg founded the company, and Tom Rask joined in 2004.",
    ):
        found = align(claim, CONTEXT)
        assert not found.swapped and not found.negation_mismatch, (claim, found)


def test_a_name_found_nowhere_is_not_a_swap() -> None:
    found = align("Anna Berg founded the company with Lena Holt.", CONTEXT)
    assert not found.swapped  # absent from the whole context: unsupported, not swapped


def test_numbers_split_by_tokenised_text_are_the_same_numbers() -> None:
    assert not align("It has more than 13,000 pupils.", ["It has more than 13, 000 pupils and 64 teachers."]).swapped
    won = ["The couple scooped $ 53, 193, 914 on the draw on Tuesday."]
    assert align("The couple scooped $53,193,914 on the draw.", won).absent_names_numbers == ()
    assert numbers("in 2014, 150 people and 1,000, 200 more") == {"2014", "150", "1000200"}  # a year leads no group


def test_a_number_the_context_writes_in_words_is_found_there() -> None:
    albums = ["The duo has earned two platinum and five gold albums since 2001. It played 3 tours in 2 years."]
    found = align("They have earned 2 platinum and 5 gold albums.", albums)
    assert found.absent_names_numbers == () and not found.swapped
    assert align("They have earned 3 platinum albums.", albums).swapped_numbers == ("3",)
    spelled = spelled_values("a twelve-bar blues, twenty-five, Ninety nine, forty, one of them")
    assert spelled == {"12", "25", "99", "40"}


def test_a_name_written_out_for_the_context_acronym_is_found_there() -> None:
    context = ["Team GB won gold. The PCC and the U.S. team met TO BE sure."]
    assert align("Great Britain won gold.", context).absent_names_numbers == ()
    assert align("The United States team met the Police and Crime Commissioner.", context).absent_names_numbers == ()
    assert align("Team Germany won gold.", context).absent_names_numbers == ("Germany",)


def test_a_month_abbreviated_before_a_date_is_the_month() -> None:
    context = ["WATKINS GLEN, N.Y. -- On Aug. 10, 2014, Smith was hired to replace Tony Stewart."]
    assert align("On August 10, Smith was hired to replace Stewart.", context).absent_names_numbers == ()
    assert align("On Sept. 10, Smith was hired.", ["On September 10, Smith was hired."]).absent_names_numbers == ()
    assert align("On October 10, Smith was hired.", context).absent_names_numbers == ("October",)


def test_parts() -> None:
    assert numbers("More than 20,000 acres in 2019, 4.5 m deep, its 20th year, 7. 8 per cent") == {
        "20000",
        "2019",
        "4.5",
        "20",
        "7.8",
    }
    assert names("Anna met Tom Rask in Oslo. Then they left.") == {"Tom Rask", "Oslo"}
    assert windows(["a.", "b.", "c."], 2) == ["a.", "b.", "c.", "a. b.", "b. c."]
    assert align("Anything.", []).window == ""


def test_an_alignment_names_the_sentences_of_its_window() -> None:
    from troth.text.alignment import ContextAlignment
    from troth.text.windows import context_sentences

    sentences = context_sentences(CONTEXT, 700)
    assert [s.text for s in sentences][2] == "In 2004 Tom Rask joined as chief engineer."
    for aligned in (ContextAlignment(CONTEXT), ContextAlignment(CONTEXT, sentences)):
        found = aligned.align("Tom Rask joined in 2004 as chief engineer.")
        assert found.span == (2, 1) and found.window == "In 2004 Tom Rask joined as chief engineer."
    claim = "Anna Berg founded the company with 12 staff and lost 4-2 in 2001."
    both = ContextAlignment(CONTEXT, sentences).align(claim)
    assert both.span == (0, 2) and [s.text for s in sentences[0:2]][1].startswith("It lost 4-2")


def test_an_alignment_names_the_claims_words_found_nowhere_in_the_context() -> None:
    found = align("Tom Rask joined in 2004 as chief engineer.", CONTEXT)
    assert found.absent_names_numbers == found.absent_words == ()
    apart = align("Anna Berg founded the company and Tom Rask joined as chief engineer.", CONTEXT)
    assert apart.absent_names_numbers == apart.absent_words == ()  # two sentences' words, all there
    found = align("Later, in 2007 Tom Rask of Oslo joined as chief violinist of the orchestra.", CONTEXT)
    assert found.absent_names_numbers == ("2007", "Oslo")
    assert found.absent_words == ("Later", "violinist", "orchestra")  # "Later" starts the sentence: no name


def test_in_a_list_of_like_sentences_a_claim_aligns_with_its_own() -> None:
    context = [" ".join(f"Item {i} costs {i * 3} dollars." for i in range(8))]
    own = align("Item 5 costs 15 dollars.", context)
    assert own.window == "Item 5 costs 15 dollars." and not own.swapped
    assert align("Item 5 costs 12 dollars.", context).swapped  # 12 is item 4's price


def test_a_number_given_another_scale_is_flagged_and_a_written_out_percent_is_not() -> None:
    context = ["Acme Corp reported revenue of $5.2 billion in 2023, up 8% from 2022. Its CEO is Jane Doe."]
    assert align("Acme reported revenue of $5.2 million in 2023.", context).swapped_numbers == ("5200000",)
    assert not align("Acme reported revenue of $5.2 billion in 2023.", context).swapped
    assert not align("Acme's revenue was up 8 percent in 2023.", context).swapped
    assert number_scales("4bn, 3 per cent and 2,000 thousand") == {
        "4": {"billion"},
        "3": {"percent"},
        "2000": {"thousand"},
    }


def test_a_number_written_another_way_is_one_number() -> None:
    assert value("1,500,000") == value("1.5", "million") == "1500000"
    assert value("2", "bn") == "2000000000" and value("8", "percent") == "8"
    context = ["Revenue reached 1,500,000 dollars in 2021, up from 900,000 in 2020."]
    written = align("Revenue reached 1.5 million dollars in 2021.", context)
    assert not written.swapped and written.absent_names_numbers == ()
    assert align("Revenue reached 900,000 dollars in 2021.", context).swapped_numbers == ("900000",)
    assert ContextAlignment(["It cost 2.5 million."]).absent("It cost 2.5 billion.")[0] == (
        "2.5 billion",
    )  # the number with its scale word


def test_a_currency_abbreviation_is_its_scale_and_a_bare_m_is_not() -> None:
    bid = ["Barcelona will make a £50 million bid for Paul Pogba."]
    assert not align("Barcelona will make a £50m bid for Paul Pogba.", bid).swapped
    assert ContextAlignment(bid).absent("Barcelona will make a £50m bid.") == ((), ())
    assert align("Barcelona will make a £50bn bid for Paul Pogba.", bid).swapped_numbers == ("50000000000",)
    assert value("85", "k") == "85000"
    assert not align("Her salary was $85k a year.", ["Her salary was $85,000 a year."]).swapped
    race = ["He won the 100m final in 9.58 seconds."]
    assert align("He won the 100m final in 9.58 seconds.", race).absent_names_numbers == ()
    assert align("He won the 100 metres final in 9.58 seconds.", race).swapped_numbers == ()


def test_a_date_in_either_order_is_one_date_and_a_changed_day_is_swapped() -> None:
    context = ["The company was founded on 7 May 2018 in Berlin. Its first office opened on 9 June 2018."]
    assert not align("The company was founded on May 7, 2018.", context).swapped
    assert align("The company was founded on May 9, 2018.", context).swapped_numbers == ("9",)


def test_a_parenthesis_ends_what_a_negation_negates() -> None:
    window = "Fifteen men were arrested (not pictured) Italian Red Cross operators give first aid to migrants."
    assert negated_terms(window) == {"pictured"}
    assert not align("Italian Red Cross operators give first aid to migrants.", [window]).negation_mismatch
    assert align("Italian Red Cross operators do not give first aid to migrants.", [window]).negation_mismatch


def test_not_only_adds_and_does_not_negate() -> None:
    context = ["She is a singer and an actor, and has released three albums."]
    assert negated_terms("She is not only a singer but also an actor.") == set()
    assert not align("She is not only a singer but also an actor.", context).negation_mismatch
    assert align("She is not a singer.", context).negation_mismatch


def test_an_acronym_of_the_context_is_not_a_name_found_nowhere() -> None:
    states = ContextAlignment(["The United States and China signed the deal."])
    assert states.absent("The US and China signed it.") == ((), ())
    assert states.absent("The U.S. and China signed it.") == ((), ())
    assert states.absent("The UK and China signed it.") == (("UK",), ())


def test_accents_and_attached_units_are_read_as_the_context_writes_them() -> None:
    assert ContextAlignment(["The summit was held in Zurich."]).absent("The summit was in Zürich.") == ((), ())
    weather = ContextAlignment(["Temperatures reached 40C on Tuesday and 35C on Wednesday."])
    assert weather.absent("Temperatures reached 40 °C on Tuesday.") == ((), ())
    assert ContextAlignment(["The meeting is at 9 a.m. on Monday."]).absent("It is at 9am on Monday.") == ((), ())
    run = ["The race was over 5km. The walk was over 8km."]
    assert align("The race was over 8km.", run).swapped_numbers == ("8",)
    assert not align("The race was over 5 km.", run).swapped


def test_a_claim_aligned_with_a_json_record_counts_only_its_names_and_numbers_as_found_nowhere() -> None:
    order = '{"order_id": "A-1042", "status": "shipped", "carrier": "UPS", "eta": "2026-12-09"}'
    found = align("Your order A-1042 has shipped with UPS and arrives on December 9, 2026.", [order])
    assert found.absent_names_numbers == found.absent_words == ()  # the date read as written, no key words asked
    other = align("Your order A-1042 has shipped with FedEx and arrives on December 10, 2026.", [order])
    assert other.absent_names_numbers == ("FedEx", "10") and other.absent_words == ()
    prose = align("The parcel has shipped.", ["The order has shipped."])
    assert prose.absent_words == ("parcel",)  # in prose, a word found nowhere still counts


def test_a_number_written_roughly_stands_for_the_context_number_within_its_precision() -> None:
    context = ["The city had 2,148,271 residents in 2020. The tower is 330 metres tall."]
    for claim in (
        "The city has about 2.1 million residents.",
        "The city has roughly 2.15 million residents.",
        "The city has over 2 million residents.",
        "The tower is over 300 metres tall.",
        "The tower is nearly 340 metres tall.",
        "The tower is ~330 metres tall.",
    ):
        found = align(claim, context)
        assert found.absent_names_numbers == () and not found.swapped, claim
    for claim, said in (
        ("The city has about 3 million residents.", "about 3 million"),  # 2,148,271 is not about 3 million
        ("The tower is more than 400 metres tall.", "more than 400"),  # nor 330 more than 400
        ("The tower is over 200 metres tall.", "over 200"),  # within one unit: 200 to 300
        ("The tower is 300 metres tall.", "300"),  # no hedge: exact
    ):
        assert align(claim, context).absent_names_numbers == (said,), claim


def test_the_classifier_reads_a_rough_number_as_the_one_context_number_it_stands_for() -> None:
    written = written_numbers(
        "The city had 2,148,271 residents in 2020 and 2,161,000 in 2011. The tower is 330 metres tall."
    )
    assert resolved("The city has about 2.1 million residents.", written) == "The city has 2,148,271 residents."
    assert resolved("The tower is over 300 m tall; the city has over 2 million people.", written) == (
        "The tower is 330 m tall; the city has over 2 million people."  # over 2 million: both censuses
    )
    assert resolved("The tower is 330 metres tall.", written) == "The tower is 330 metres tall."
    assert resolved("It cost about $5 million.", written) == "It cost about $5 million."  # no such number
    assert resolved("It has an impressive 000 million.", written) == "It has an impressive 000 million."


def test_a_decade_stands_for_any_year_of_it() -> None:
    context = ["She moved to Paris in 1889 and opened her studio there in 1902."]
    for claim in ("She moved to Paris in the late 1880s.", "She moved to Paris in the 1880's."):
        found = align(claim, context)
        assert found.absent_names_numbers == () and not found.swapped, claim
    assert align("She moved to Paris in the 1870s.", context).absent_names_numbers == ("the 1870s",)
    assert align("She moved to Paris in 1880.", context).absent_names_numbers == ("1880",)  # a year is exact
    written = written_numbers(context[0])
    assert resolved("She moved to Paris in the late 1880s.", written) == "She moved to Paris in 1889."
    assert resolved("She opened it in the 1900s.", written) == "She opened it in 1902."


def test_a_clock_time_matches_the_same_time_written_the_other_way() -> None:
    context = ["The meeting starts at 14:00 and ends at 15:30."]
    for claim in ("The meeting starts at 2 pm.", "The meeting ends at 3:30 pm.", "It ends at 3:30."):
        found = align(claim, context)
        assert found.absent_names_numbers == () and not found.swapped and found.absent_words == (), claim
    assert align("The meeting starts at 3 pm.", context).swapped_numbers == ("15:00",)
    assert resolved("Flight BA117 departs at 2:45 pm.", written_numbers("departure: 9 December 2026 14:45")) == (
        "Flight BA117 departs at 14:45."  # the classifier reads the time as the context writes it
    )
    assert resolved("It starts at 3:30.", written_numbers("It starts at 3:30 pm.")) == "It starts at 3:30 pm."
