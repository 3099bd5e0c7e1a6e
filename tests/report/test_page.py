"""The HTML report, rendered in headless Chromium: the DOM after its script ran, and a screenshot."""

from __future__ import annotations

import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from troth import Judge, create_faithfulness_scorer, run_evals
from troth.report import write_html
from troth.testing import FakeOpenAIServer, ScriptedJudge

CONTEXT = ["The museum opens at 10:00 and entry costs 12 euros. It has 3 floors."]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def need_chromium() -> str:
    if CHROMIUM is None:
        if os.environ.get("TROTH_REQUIRE_CHROMIUM") == "1":
            pytest.fail("chromium is required (TROTH_REQUIRE_CHROMIUM=1) but not installed")
        pytest.skip("chromium not installed")
    return CHROMIUM


class Dom(HTMLParser):
    """Collects item sections (in order) and marks from a DOM dump."""

    def __init__(self) -> None:
        super().__init__()
        self.items: list[dict[str, str]] = []
        self.marks: list[str] = []
        self.sort_value: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "section" and "item" in a.get("class", ""):
            self.items.append(a)
        if tag == "mark" and "data-verdict" in a:
            self.marks.append(a["data-verdict"])
        if tag == "option" and "selected" in a:
            self.sort_value = a.get("value")


@pytest.fixture
def report(server: FakeOpenAIServer, judge: Judge, tmp_path: Path) -> Path:
    server.responder = ScriptedJudge(
        verdicts={
            "10:00": ("yes", "opens at 10:00"),
            "free": ("no", "entry costs 12 euros"),
            "floors": ("yes", "3 floors"),
            "cafe": ("unsure", ""),
        },
    )
    data = [
        {"id": "all-good", "input": "q", "context": CONTEXT, "output": "The museum opens at 10:00. It has 3 floors."},
        {"id": "contradicted", "input": "q", "context": CONTEXT, "output": "Entry is free."},
        {"id": "mixed", "input": "q", "context": CONTEXT, "output": "It opens at 10:00. There is a cafe."},
        {"id": "broken", "input": "q"},
    ]

    def target(question: str) -> str:
        raise RuntimeError("agent unavailable")

    result = run_evals(
        data, [create_faithfulness_scorer(judge, reason="template")], target=target, store=None, quiet=True
    )
    return write_html(result, tmp_path / "report.html")


def test_report_dom_after_script(report: Path) -> None:
    chromium = need_chromium()
    dump = subprocess.run(
        [chromium, *FLAGS, "--dump-dom", report.as_uri()], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    dom = Dom()
    dom.feed(dump)
    # the page's script sorted the items by score, lowest first; the failed item (no score) comes first
    assert [i["id"] for i in dom.items] == ["item-broken", "item-contradicted", "item-mixed", "item-all-good"]
    assert [i["data-score"] for i in dom.items] == ["", "0.0", "0.5", "1.0"]
    # claims highlighted in the output by verdict
    assert {"yes", "no", "unsure"} <= set(dom.marks)
    assert 'id="failures"' in dump and "agent unavailable" in dump
    assert "context 0, characters" in dump  # evidence located in the context
    assert "entry costs 12 euros" in dump


def test_report_screenshot(report: Path, tmp_path: Path) -> None:
    chromium = need_chromium()
    shot = tmp_path / "shot.png"
    subprocess.run(
        [chromium, *FLAGS, f"--screenshot={shot}", "--window-size=1200,1600", report.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 20_000  # a rendered page, not a blank image
