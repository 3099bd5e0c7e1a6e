"""The comparison's verdict at a glance: a headline (which way, by how much, how sure) first in
the CLI, in the JSON and as the page's banner; a coverage warning when few items are shared."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.compare.conftest import GOOD, items, run, two_evals  # noqa: F401  (the fixture)
from tests.compare.test_cli import troth
from troth.compare import compare_evals

WORSE_LINE = "faithfulness: B is significantly worse: mean 1.000 -> 0.800 (-0.200, 95% CI ["


def test_the_headline_is_the_first_line_and_says_which_way(two_evals: Path, tmp_path: Path) -> None:  # noqa: F811
    out = troth("compare", "base", "cand", "--store", str(two_evals), "--fail-if-worse", "0.1", cwd=tmp_path)
    lines = out.stdout.splitlines()
    assert lines[0].startswith(WORSE_LINE) and lines[0].endswith(", n 30)") and "p 0.00" in lines[0]
    assert lines[1] == "gate: failed" and out.returncode == 1
    same = troth("compare", "base", "base", "--store", str(two_evals), cwd=tmp_path).stdout.splitlines()[0]
    assert same.startswith("faithfulness: no significant change: mean 1.000 -> 1.000 (+0.000")


def test_the_json_and_the_page_carry_the_headline(two_evals: Path, tmp_path: Path) -> None:  # noqa: F811
    out = troth(
        "compare",
        "base",
        "cand",
        "--store",
        str(two_evals),
        "--json",
        "--fail-if-worse",
        "0.25",
        "--report",
        str(tmp_path / "c.html"),
        cwd=tmp_path,
    )
    found = json.loads(out.stdout.splitlines()[0])
    assert found["verdicts"] == {"faithfulness": "worse"} and found["headline"].startswith(WORSE_LINE)
    assert found["gate"] == {"passed": True, "failures": []} and found["coverage"] == {"a": 30, "b": 31, "both": 30}
    page = (tmp_path / "c.html").read_text(encoding="utf-8")
    assert '<p class="headline worse">faithfulness: B is significantly worse: mean 1.000 -&gt; 0.800' in page


def test_few_shared_items_are_warned_of_with_the_counts(tmp_path: Path) -> None:
    pytest.importorskip("scipy")
    db = tmp_path / "s.db"
    run(GOOD, db, "a", items(0)[:25])
    run(GOOD, db, "b", items(0)[15:])
    c = compare_evals("a", "b", store=str(db))
    assert c.coverage == {"a": 25, "b": 15, "both": 10}
    assert "only 10 item(s) are in both: 40% of A's 25 and 67% of B's 15; the rest is not compared" in c.notes
    assert c.to_dict()["notes"] == c.notes
