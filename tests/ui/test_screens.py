"""Every page of ``troth ui`` in headless Chromium at 1280 px and at 390 px: the DOM after scripts
and a screenshot of each are kept (in ``$TROTH_SCREENSHOTS`` when set, else the test's folder),
and checked: no page wider than its viewport, no script run from stored text, and on the compare
page the headline, the changed items only, and both answers with the words that differ."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.compare.conftest import CONTEXT, GOOD, WORSE, items, run
from tests.report.test_page import FLAGS, need_chromium
from tests.ui.conftest import add_hostile_and_live, get, need_ui

EDITED = 5  # answers that changed a fact in B
WIDTHS = (1280, 390)


@pytest.fixture(scope="module")
def screens(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A store where evaluation B changed five answers ("1932" became "1950"), served by uvicorn."""
    need_ui()
    from troth.ui.serve import serving

    db = tmp_path_factory.mktemp("screens") / "s.db"
    base = items(0)
    edited = [
        {**it, "output": str(it["output"]).replace("1932", "1950")} if i < EDITED else it for i, it in enumerate(base)
    ]
    run(GOOD, db, "base", base)
    run(WORSE, db, "edited", edited)
    add_hostile_and_live(db, (0.5,), context=CONTEXT)
    with serving(db) as served:
        yield served


def shoot(url: str, html: str, width: int, name: str, out: Path) -> str:
    """The page's HTML laid out ``width`` px wide, its DOM after scripts and a screenshot in a
    window that wide, kept under ``out``; the DOM. Headless Chromium lays out ``--dump-dom`` in
    500 px at the least, so for the DOM the page is set ``width`` px wide and a script appended to
    it writes the page's scroll width into the title."""
    chromium = need_chromium()
    page, measured = out / f"{name}-{width}.html", out / f"{name}-{width}.measured.html"
    page.write_text(html, encoding="utf-8")
    probe = (
        f"<style>html{{width:{width}px}}</style><script>document.title = 'width ' + "
        "document.body.scrollWidth;</script></body>"
    )
    measured.write_text(html.replace("</body>", probe), encoding="utf-8")
    size = f"--window-size={width},{900 if width > 500 else 844}"
    dom = subprocess.run(
        [chromium, *FLAGS, size, "--dump-dom", measured.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    (out / f"{name}-{width}.dom.html").write_text(dom, encoding="utf-8")
    shot = out / f"{name}-{width}.png"
    subprocess.run(
        [chromium, *FLAGS, size, f"--screenshot={shot}", page.as_uri()], capture_output=True, timeout=120, check=True
    )
    assert shot.stat().st_size > 5_000, url
    return dom


def kept(tmp_path: Path) -> Path:
    where = os.environ.get("TROTH_SCREENSHOTS")
    if not where:
        return tmp_path
    Path(where).mkdir(parents=True, exist_ok=True)
    return Path(where)


def pages(base: str) -> dict[str, str]:
    run_id = re.findall(r'<a href="/runs/([^"]+)"', get(base, "/evals/edited").text)[0]
    return {
        "list": "/",
        "eval": "/evals/edited",
        "run": f"/runs/{run_id}",
        "hostile": "/runs/hostile",
        "compare": "/compare?a=base&b=edited",
        "live": "/live",
    }


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_fits_its_viewport_and_runs_no_stored_script(screens: str, width: int, tmp_path: Path) -> None:
    out = kept(tmp_path)
    shown = pages(screens)
    assert "/compare?" in shown["compare"]
    for name, path in shown.items():
        response = httpx.get(screens + path, timeout=10)  # the query as written
        assert response.status_code == 200, path
        dom = shoot(path, response.text, width, name, out)
        assert "<main>" in dom and "<nav>" in dom, path
        assert '<img src="x"' not in dom and '<script>document.title="owned"' not in dom  # stored text stays text
        found = re.search(r"<title>width (\d+)</title>", dom)
        assert found is not None and int(found.group(1)) <= width, (path, width, found and found.group(1))


@pytest.mark.parametrize("width", WIDTHS)
def test_the_compare_page_shows_the_headline_changed_items_and_both_answers(
    screens: str, width: int, tmp_path: Path
) -> None:
    html = get(screens, "/compare", a="base", b="edited").text
    dom = shoot("/compare", html, width, "compare-check", kept(tmp_path))
    assert re.search(r'<p class="headline (worse|no-change|better)">faithfulness: ', dom)
    sections = re.findall(r'<section class="item diff ([a-z-]+)"', dom)
    assert sections and "same" not in sections and len(sections) == EDITED  # the changed items only
    assert f"Changed items, worst first ({EDITED} of 30)" in dom
    first = dom.split('<section class="item diff')[1]
    assert '<div class="output answer-a">' in first and '<div class="output answer-b">' in first
    assert "<del>1932.</del>" in first or "<del>1932</del>" in first
    assert "<ins>1950.</ins>" in first or "<ins>1950</ins>" in first
    assert 'class="reason-a"' in first and 'class="reason-b"' in first  # each side's reason
    assert '<td class="evidence-a">opened in 1932</td>' in first  # and each side's evidence
