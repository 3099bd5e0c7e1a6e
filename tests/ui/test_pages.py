"""The web UI as a person uses it: real HTTP to uvicorn on 127.0.0.1 (each page in headless
Chromium at 1280 and 390 px: tests/ui/test_screens.py)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.compare.conftest import REGRESSED
from tests.ui.conftest import get


def test_the_evaluations_newest_first_and_filtered(ui: str) -> None:
    page = get(ui, "/")
    assert page.status_code == 200
    listed = re.findall(r'<tr class="eval"><td><a href="/evals/([^"]+)"', page.text)
    assert listed == ["hostile-eval", "cand", "base"]
    row = page.text.split('href="/evals/cand"')[1].split("</tr>")[0]
    assert "31" in row and "0.8" in row and "m" in row  # items, mean, judge
    filtered = get(ui, "/", q="cand")
    assert re.findall(r'href="/evals/([^"]+)"', filtered.text) == ["cand"] and "1 evaluation(s)" in filtered.text


def test_one_evaluation_has_its_histogram_and_items_sorted_by_score(ui: str) -> None:
    page = get(ui, "/evals/cand")
    assert page.status_code == 200 and 'id="histogram"' in page.text
    scores = re.findall(r'<tr class="item" data-score="([^"]*)"', page.text)
    assert len(scores) == 31 and scores[:REGRESSED] == ["0.5"] * REGRESSED and set(scores[REGRESSED:]) == {"1.0"}
    descending = re.findall(r'data-score="([^"]*)"', get(ui, "/evals/cand", sort="-score").text)
    assert descending[0] == "1.0" and descending[-1] == "0.5"
    assert get(ui, "/evals/nope").status_code == 404


def test_one_item_shows_claims_by_verdict_and_evidence_in_context(ui: str) -> None:
    page = get(ui, "/evals/cand")
    run_id = re.findall(r'<tr class="item" data-score="0.5"><td><a href="/runs/([^"]+)"', page.text)[0]
    item = get(ui, f"/runs/{run_id}")
    assert item.status_code == 200
    assert re.findall(r'<details class="claim" data-verdict="(\w+)"', item.text) == ["yes", "no"]
    assert '<mark class="v-no" data-verdict="no">It is 134 m high (r).</mark>' in item.text
    assert "<mark>134 m high</mark>" in item.text  # the evidence, located in the context


def test_compare_and_live_pages(ui: str) -> None:
    compared = get(ui, "/compare", a="base", b="cand")
    assert compared.status_code == 200 and compared.text.count('class="item diff worse"') == REGRESSED
    assert "−" in compared.text or "-0.200" in compared.text
    assert "no evaluation" in get(ui, "/compare", a="base", b="nope").text
    live = get(ui, "/live", since="1h", threshold="0.6")
    hour = r'<tr class="hour"><td>[^<]+</td><td class="num">(\d+)</td><td class="num">([^<]+)</td>'
    rows = re.findall(hour, live.text)
    assert rows == [("4", "0.625")] and "50%" in live.text and "live reason 2" in live.text
    ever = get(ui, "/live", since="99999999999d", threshold="0.6")  # longer than the calendar: everything
    assert ever.status_code == 200 and re.findall(hour, ever.text) == [("4", "0.625")]
    assert get(ui, "/live", threshold="nan").status_code == 400


def test_stored_text_is_escaped_everywhere(ui: str) -> None:
    for path in ("/evals/hostile-eval", "/runs/hostile"):
        text = get(ui, path).text
        assert "<script>document.title" not in text and "<img src=x" not in text
        assert "&lt;script&gt;document.title" in text


def test_a_parquet_store_is_browsed_too(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    from troth.store import ParquetStore
    from troth.store.base import RunRecord, now

    store = ParquetStore(tmp_path / "runs.parquet")
    for i in range(3):
        store.save_run(
            RunRecord(
                run_id=f"r{i}",
                scorer_id="faithfulness",
                eval_id="pq",
                item_id=f"i{i}",
                score=i / 2,
                finished_at=now(),
                created_at=now(),
            )
        )
    store.close()
    from troth.ui.serve import serving

    with serving(tmp_path / "runs.parquet") as base:
        page = get(base, "/evals/pq")
    assert re.findall(r'data-score="([^"]*)"', page.text) == ["0.0", "0.5", "1.0"]


def test_troth_ui_serves_the_store_and_refuses_a_missing_or_corrupt_one(ui_store: Path, tmp_path: Path) -> None:
    import socket
    import sys
    import time

    import httpx

    missing = subprocess.run(
        [sys.executable, "-m", "troth", "ui", "--store", str(tmp_path / "none.db")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode == 2 and "no store at" in missing.stderr
    (tmp_path / "junk.db").write_text("not a database")
    junk = subprocess.run(
        [sys.executable, "-m", "troth", "ui", "--store", str(tmp_path / "junk.db")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert junk.returncode == 2
    assert junk.stderr.strip().endswith("it is corrupt (DatabaseError: file is not a database)")
    assert "Traceback" not in junk.stderr
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "troth", "ui", "--store", str(ui_store), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline, page = time.monotonic() + 30, None
        while page is None and time.monotonic() < deadline:
            try:
                page = httpx.get(f"http://127.0.0.1:{port}/", timeout=5)
            except httpx.TransportError:
                time.sleep(0.1)
        assert page is not None and page.status_code == 200 and 'href="/evals/cand"' in page.text
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_an_evaluation_written_while_the_ui_runs_is_listed(ui_store: Path, tmp_path: Path) -> None:
    import shutil

    from troth.store import SQLiteStore
    from troth.store.base import RunRecord, now
    from troth.ui.serve import serving

    db = tmp_path / "copy.db"
    shutil.copy(ui_store, db)
    with serving(db) as base:
        assert "later" not in get(base, "/").text
        store = SQLiteStore(db)
        store.save_run(
            RunRecord(
                run_id="later-1",
                scorer_id="faithfulness",
                eval_id="later",
                item_id="x",
                score=0.25,
                created_at=now(),
                finished_at=now(),
            )
        )
        store.close()
        listed = re.findall(r'<tr class="eval"><td><a href="/evals/([^"]+)"', get(base, "/").text)
        assert listed[0] == "later" and "cand" in listed


def test_compare_defaults_and_distinct_styles(ui: str) -> None:
    picker = get(ui, "/compare").text
    newest = re.findall(r"<option selected>([^<]+)</option>", picker)
    assert newest == ["cand", "hostile-eval"]  # A: the one before the newest; B: the newest
    page = get(ui, "/compare", a="base", b="cand").text
    assert page.count('class="score low"') == REGRESSED and 'class="score same"' not in page  # changed only
    assert f"Changed items, worst first ({REGRESSED} of 30)" in page
    every = get(ui, "/compare", a="base", b="cand", show="all").text
    assert "Items, worst first (30 of 30)" in every and every.count('class="score same"') == 30 - REGRESSED
    assert "v-None" not in page and "no claim<" not in page  # every changed claim has a verdict on both sides here
    items = get(ui, "/evals/base").text
    assert "Question 1?" in items and "&#34;Question 1?&#34;" not in items and ">null<" not in items


def test_a_claim_missing_on_one_side_is_no_claim_not_unsure() -> None:
    from troth.compare.diff import ClaimChange, ItemDiff
    from troth.compare.evals import Comparison
    from troth.ui.render import render_comparison

    change = ClaimChange("The bridge is red.", None, "no", reason_b="not in the context")
    diff = ItemDiff("q1", "faithfulness", 1.0, 0.5, changes=[change])
    page = render_comparison(Comparison("a", "b", {}, [diff]))
    assert '<mark class="v-none">no claim</mark>' in page and '<mark class="v-no">no</mark>' in page


def test_the_histogram_counts_and_keeps_a_perfect_score_in_its_own_bar(ui: str) -> None:
    from troth.report.page import histogram_html

    bars = re.findall(r'title="(\d+) item\(s\) scored ([^"]+)"', histogram_html([1.0, 1.0, 0.95, 0.5, 0.0]))
    assert bars[9] == ("1", "[0.9, 1)") and bars[10] == ("2", "1") and bars[0] == ("1", "[0, 0.1)")
    assert "items per score (5 scored)" in histogram_html([1.0, 1.0, 0.95, 0.5, 0.0])
    page = get(ui, "/evals/base").text
    assert re.search(r'title="30 item\(s\) scored 1"[^>]*><b>30</b><span>1</span>', page)
    listed = get(ui, "/").text
    when = re.search(r'<time datetime="([^"]+)" title="[^"]+">([^<]+)</time>', listed)
    assert when and when.group(1).startswith(when.group(2)[:10]) and when.group(2).endswith(" UTC")
    assert ".000+00:00<" not in listed  # no raw ISO string with milliseconds as the shown text


def test_the_evidence_is_marked_in_the_full_context_and_each_claim_jumps_to_it(ui: str) -> None:
    page = get(ui, "/evals/cand")
    run_id = re.findall(r'<tr class="item" data-score="0.5"><td><a href="/runs/([^"]+)"', page.text)[0]
    item = get(ui, f"/runs/{run_id}").text
    context = item.split("<h2>Context")[1]
    assert '<mark class="v-yes" id="ev-0">opened in 1932</mark>' in context
    assert '<mark class="v-no" id="ev-1">134 m high</mark>' in context
    assert 'href="#ev-0"' in item and 'href="#ev-1"' in item


def test_both_answers_side_by_side_with_the_words_that_differ_and_links_to_both_runs(ui: str) -> None:
    page = get(ui, "/compare", a="base", b="cand").text
    section = page.split('<section class="item diff worse"')[1].split("</section>")[0]
    same = "The bridge opened in 1932. It is 134 m high (r)."  # the same answer, judged differently
    assert f'<div class="output answer-a">{same}</div>' in section
    assert f'<div class="output answer-b">{same}</div>' in section
    from troth.report.page import word_diff

    assert word_diff("It opened in 1932 <b>.", "It opened in 1950 <b>.") == (
        "It opened in <del>1932</del> &lt;b&gt;.",
        "It opened in <ins>1950</ins> &lt;b&gt;.",
    )
    runs = re.findall(r'<a href="/runs/([^"]+)">run</a>', section)
    assert len(runs) == 2 and all(get(ui, f"/runs/{r}").status_code == 200 for r in runs)


def test_pick_two_evaluations_on_the_list_and_see_scores_in_colour(ui: str) -> None:
    listed = get(ui, "/").text
    assert '<form method="get" action="/compare" id="pick-two">' in listed and 'id="compare-two"' in listed
    checked = re.findall(r'<input type="radio" name="(a|b)" value="([^"]+)" checked', listed)
    assert checked == [("b", "hostile-eval"), ("a", "cand")]  # B the newest, A the one before it
    assert get(ui, "/compare", a="base", b="cand").status_code == 200  # what the form sends
    items = get(ui, "/evals/cand").text
    assert items.count('<td class="num mid">0.5</td>') == REGRESSED and '<td class="num good">1</td>' in items
