"""A JSON context segment (a tool's result) read as sentences: objects as named fields, long
text as prose, dates as people write them, and where each stands in the segment."""

from __future__ import annotations

import json

from troth.text.records import json_records, object_spans, readable_key, scalar
from troth.text.times import written_time
from troth.text.windows import context_sentences

WEATHER = '{"city": "Paris", "temperature_c": 21.0, "sunny": true, "rain": false, "note": null}'
PEOPLE = '[{"name": "Alice Smith", "role": "CEO"}, {"name": "Bob Jones", "role": "CTO"}]'


def test_an_object_is_one_sentence_of_fields_named_by_their_keys() -> None:
    (record,) = json_records(WEATHER, 700) or []
    assert record.text == "city: Paris; temperature: 21°C; sunny: yes; rain: no."  # null left out
    assert (record.start, record.end) == (0, len(WEATHER))


def test_each_object_of_a_list_is_a_sentence_quoted_as_written() -> None:
    sentences = context_sentences(["  " + PEOPLE], 700)
    assert [s.text for s in sentences] == ["name: Alice Smith; role: CEO.", "name: Bob Jones; role: CTO."]
    assert [s.quote for s in sentences] == [json.dumps(p) for p in json.loads(PEOPLE)]
    assert all(("  " + PEOPLE)[s.start : s.end] == s.quote for s in sentences)


def test_nested_objects_are_named_by_their_key_and_long_text_is_read_as_prose() -> None:
    segment = json.dumps(
        {
            "results": [{"title": "Eiffel Tower", "snippet": "It is 330 metres tall. It opened in 1889 for the fair."}],
            "rates": {"USD": 1.08},
            "tags": ["gift", "express"],
        }
    )
    texts = [s.text for s in context_sentences([segment], 700)]
    assert texts == [
        "tags: gift, express.",
        "results: title: Eiffel Tower.",
        "It is 330 metres tall.",
        "It opened in 1889 for the fair.",
        "rates: usd: 1.08.",
    ]
    prose = context_sentences([segment], 700)[2]
    assert prose.quote == "It is 330 metres tall." and segment[prose.start : prose.end] == prose.quote


def test_a_prose_sentence_with_escaped_characters_is_quoted_where_its_object_stands() -> None:
    segment = json.dumps({"text": 'She said "yes" to the offer after a long and careful review.'})
    (sentence,) = context_sentences([segment], 700)
    assert sentence.text == 'She said "yes" to the offer after a long and careful review.'
    assert (
        sentence.quote
        == segment[sentence.start : sentence.end]
        == 'She said \\"yes\\" to the offer after a long and careful review.'
    )


def test_dates_and_times_are_written_as_people_write_them() -> None:
    assert written_time("2026-12-09") == "9 December 2026"
    assert written_time("2026-12-07T14:30:00Z") == "7 December 2026 14:30"
    assert written_time("2026-13-45") == "2026-13-45" and written_time("A-1042") == "A-1042"
    assert scalar("2026-12-09") == "9 December 2026" and scalar(3.5) == "3.5" and scalar([1, {"a": 1}]) is None


def test_keys_read_as_words() -> None:
    assert [readable_key(k) for k in ("temperature_c", "orderId", "net-income", "ETA")] == [
        "temperature c",
        "order id",
        "net income",
        "eta",
    ]


def test_braces_inside_strings_are_no_objects_and_a_repeated_key_falls_back_to_the_whole_segment() -> None:
    text = '{"a": "x { y }", "b": {"c": 1}}'
    inner = text.index('{"c"')
    assert object_spans(text) == [(0, len(text)), (inner, inner + len('{"c": 1}'))]
    repeated = '{"k": {"x": 1}, "k": {"y": 2}}'
    assert [(r.text, r.start, r.end) for r in json_records(repeated, 700) or []] == [("k: y: 2.", 0, len(repeated))]


def test_many_fields_are_cut_into_sentences_that_fit() -> None:
    segment = json.dumps({f"field_{i}": "value" for i in range(40)})
    records = json_records(segment, 120) or []
    assert len(records) > 1 and all(len(r.text) <= 120 for r in records)
    assert sum(r.text.count("value") for r in records) == 40


def test_what_is_no_json_object_or_array_is_read_as_text() -> None:
    for segment in ("The tower is 330 m tall.", '"a string"', "42", "{broken", "[1, 2"):
        assert json_records(segment, 700) is None
    assert [s.text for s in context_sentences(["{not json} at all."], 700)] == ["{not json} at all."]


def test_a_unit_at_the_end_of_a_numeric_fields_key_is_read_onto_its_value() -> None:
    segment = (
        '{"temperature_c": 21, "wind_kph": 12, "revenue_musd": 812, "change_pct": -1.3, "price_usd": "n/a", "c": 3}'
    )
    ((record,),) = [json_records(segment, 700) or []]
    assert record.text == (
        "temperature: 21°C; wind: 12 km/h; revenue: 812 million US dollars; change: -1.3%; price usd: n/a; c: 3."
    )  # a text value, or a key that is only a unit, stays as it is
