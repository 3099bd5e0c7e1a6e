"""The same-context edit benchmark: each edit does what it says, and a run counts drops over the
originals scored above 0, for the judge and the word counter alike."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bench.common import DATA_DIR
from bench.perturb import (
    cite,
    drop_intensifier,
    drops,
    edits_of,
    frame,
    main,
    negate,
    reorder,
    rewrite_number,
    signs,
    swap_name,
    swap_number,
    synonym,
)

CONTEXT = "Anna Berg founded the company in 1998 with 12 staff. In 2004 Tom Rask joined as chief engineer."
RNG = random.Random(0)


def test_fact_edits_draw_from_the_same_context() -> None:
    assert swap_number("It began in 1998 with 12 staff.", CONTEXT, random.Random(1)) in {
        "It began in 2004 with 12 staff.",
        "It began in 1998 with 2004 staff.",
    }
    assert swap_number("It has no figure.", CONTEXT, RNG) is None
    assert swap_name("The company of Anna Berg grew.", CONTEXT, RNG) == "The company of Tom Rask grew."
    assert swap_name("Nobody is named here.", CONTEXT, RNG) is None
    assert negate("Tom Rask was the chief engineer.", CONTEXT, RNG) == "Tom Rask was not the chief engineer."
    assert negate("Tom Rask was not the founder.", CONTEXT, RNG) == "Tom Rask was the founder."
    assert negate("Tom Rask joined in 2004.", CONTEXT, RNG) is None


def test_a_cited_or_framed_answer_says_the_same() -> None:
    assert cite("The tower is tall. It opened in 1889!", CONTEXT, random.Random(0)) in {
        f"The tower is tall [{a}]. It opened in 1889 [{b}]!" for a in (1, 2, 3) for b in (1, 2, 3)
    }
    framed = "According to the context, {} I hope this helps!"
    assert frame("The tower is tall.", CONTEXT, RNG) == framed.format("the tower is tall.")
    assert frame("Anna Berg founded it.", CONTEXT, RNG) == framed.format("Anna Berg founded it.")
    assert frame("it opened in 1998 ", CONTEXT, RNG) == framed.format("it opened in 1998.")


def test_a_citation_marker_is_no_number_of_the_alignment_signs() -> None:
    context = ["It was founded in 1898 by 12 players of the club.", "Years later it had two stadiums."]
    assert signs("The club was founded in 1898 [2].", context) == signs("The club was founded in 1898.", context) == 0
    assert signs("The club was founded in 1912.", [*context, "Its rival was founded in 1912."]) == 1


def test_a_rewritten_number_or_date_keeps_its_value() -> None:
    assert rewrite_number("She joined on 7 May 2018 in Oslo.", CONTEXT, RNG) == "She joined on May 7, 2018 in Oslo."
    assert rewrite_number("She joined on May 7, 2018.", CONTEXT, RNG) == "She joined on 7 May 2018."
    assert rewrite_number("Sales were 1,250,000,000.", CONTEXT, RNG) == "Sales were 1.25 billion."
    assert rewrite_number("It cost 2.5 million dollars.", CONTEXT, RNG) == "It cost 2,500,000 dollars."
    assert rewrite_number("It had 12 staff in 1998.", CONTEXT, RNG) is None


def test_edits_that_keep_the_meaning() -> None:
    assert reorder("Anna founded it. Tom joined later.", CONTEXT, RNG) == "Tom joined later. Anna founded it."
    assert reorder("One sentence only.", CONTEXT, RNG) is None
    assert synonym("She said it began in 1998.", CONTEXT, random.Random(0)) in {
        "She stated it began in 1998.",
        "She said it started in 1998.",
    }
    assert drop_intensifier("It was also very small.", CONTEXT, random.Random(0)) in {
        "It was very small.",
        "It was also small.",
    }


def test_edits_of_a_row_are_seeded_and_skip_what_does_not_apply() -> None:
    row = {"id": "r1", "output": "In 1998 Anna Berg founded the company.", "context": [CONTEXT]}
    first, again = edits_of(row, 0), edits_of(row, 0)
    # no auxiliary, one sentence
    assert first == again and set(first) == {"number swap", "name swap", "cited", "framed"}


def test_drops_count_over_the_originals_scored_above_zero() -> None:
    items = [
        {"scores": {"original": {"judge": 1.0, "counter": 1.0}, "negation": {"judge": 0.5, "counter": 1.0}}},
        {"scores": {"original": {"judge": 0.0, "counter": 0.8}, "negation": {"judge": 0.0, "counter": 0.6}}},
        {"scores": {"original": {"judge": 0.6, "counter": 0.9}}},  # no negation made
    ]
    assert drops(items, "negation", "judge") == {"edits": 1, "lowered": 1, "share": 1.0}
    assert drops(items, "negation", "counter") == {"edits": 2, "lowered": 1, "share": 0.5}
    assert drops(items, "synonym", "judge") == {"edits": 0, "lowered": 0, "share": None}


@pytest.mark.skipif(not (DATA_DIR / "cliff-val.jsonl").is_file(), reason="labeled data not available")
def test_quick_run_scores_every_edit_with_the_verifier(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    assert main(["--quick", "--out", str(tmp_path / "p")]) == 0
    report = json.loads((tmp_path / "p.json").read_text())
    items = report["files"]["cliff-val"]["items"]
    assert items and all(set(i["scores"]) == {"original", *i["edits"]} for i in items)
    assert all(0.0 <= s["judge"] <= 1.0 for i in items for s in i["scores"].values())
    assert "| cliff-val | number swap | fact changed |" in (tmp_path / "p.md").read_text()
