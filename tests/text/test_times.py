from troth.text.times import Clock, clock_times, spelled_months


def test_a_clock_time_is_read_by_its_24_hour_value_whichever_way_it_is_written() -> None:
    assert [c.value for c in clock_times("at 2:45 pm, 2.45pm, 2 PM, 9 a.m., 14:45, 14:45:00 and 12 am")] == [
        "14:45",
        "14:45",
        "14:00",
        "09:00",
        "14:45",
        "14:45",
        "00:00",
    ]
    assert clock_times("departs at 2:45 pm") == [Clock("14:45", 11, 18, "02:45")]  # as a text may write it bare


def test_a_bare_time_may_be_after_noon_and_a_score_or_a_bare_hour_is_no_time() -> None:
    (bare,) = clock_times("It starts at 3:30.")
    assert bare.value == "03:30" and bare.admits("15:30") and not bare.admits("16:30")
    assert [c.twin for c in clock_times("03:30 and 15:30 and 12:15 pm")] == ["", "", ""]
    assert clock_times("They won 2:1 at 3, paid $5 pm and rose 2.45 points.") == []


def test_an_abbreviated_month_before_a_day_or_year_is_spelled_out() -> None:
    assert spelled_months("On Aug. 10, 2014 and Sept 2019, not in the Dec. issue") == (
        "On August 10, 2014 and September 2019, not in the Dec. issue"
    )
