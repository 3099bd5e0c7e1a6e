"""``troth compare`` as a subprocess: the table, --json, the HTML page in headless Chromium, and
the regression gate's exit codes (1 worse, 0 not, 2 bad input); the gate's failing closed is in
tests/faults/test_gate_faults.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.commands import troth
from tests.compare.conftest import REGRESSED
from tests.report.test_page import FLAGS, need_chromium


def test_the_table_names_the_worst_items_and_their_changed_claims(two_evals: Path, tmp_path: Path) -> None:
    out = troth("compare", "base", "cand", "--store", str(two_evals), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "-0.200" in out.stdout and "faithfulness" in out.stdout
    assert "It is 134 m high (r).: yes -> no" in out.stdout and "in B only: 1" in out.stdout


def test_fail_if_worse_exits_1_when_significantly_worse_and_0_otherwise(two_evals: Path, tmp_path: Path) -> None:
    worse = troth("compare", "base", "cand", "--store", str(two_evals), "--fail-if-worse", "0.1", cwd=tmp_path)
    assert worse.returncode == 1
    assert "gate failed: faithfulness: B's mean is lower by 0.2, more than 0.1 (p < 0.05)" in worse.stderr
    within = troth("compare", "base", "cand", "--store", str(two_evals), "--fail-if-worse", "0.25", cwd=tmp_path)
    assert within.returncode == 0, within.stderr
    strict = troth(
        "compare", "base", "cand", "--store", str(two_evals), "--fail-if-worse", "0.1", "--alpha", "1e-9", cwd=tmp_path
    )
    assert strict.returncode == 0


def test_bad_input_exits_2_in_one_line(two_evals: Path, tmp_path: Path) -> None:
    cases = [
        (["base", "nope"], "no evaluation 'nope'"),
        (["base", "cand", "--alpha", "2"], "--alpha must be < 1"),
        (["base", "cand", "--fail-if-worse", "-1"], "--fail-if-worse must be >= 0, not -1"),
        (["base", "cand", "--fail-if-worse", "nan"], "--fail-if-worse must be a finite number, not nan"),
        (["base", "cand", "--fail-if-worse", "0", "--alpha", "nan"], "--alpha must be a finite number"),
        (["base", "cand", "--failed-tolerance", "-2"], "--failed-tolerance must be >= 0"),
    ]
    for args, message in cases:
        out = troth("compare", *args, "--store", str(two_evals), cwd=tmp_path)
        assert out.returncode == 2 and message in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_json_holds_every_item(two_evals: Path, tmp_path: Path) -> None:
    out = troth("compare", "base", "cand", "--store", str(two_evals), "--json", cwd=tmp_path)
    found = json.loads(out.stdout)
    assert len(found["items"]) == 30 and found["items"][0]["status"] == "worse"
    assert found["scorers"]["faithfulness"]["stats"]["mean_diff"] == -0.2
    assert found["only_b"] == [["new", "faithfulness"]]


def test_the_report_renders_in_chromium(two_evals: Path, tmp_path: Path) -> None:
    chromium = need_chromium()
    page = tmp_path / "compare.html"
    out = troth("compare", "base", "cand", "--store", str(two_evals), "--report", str(page), cwd=tmp_path)
    assert out.returncode == 0 and page.is_file()
    html = page.read_text(encoding="utf-8")
    assert "http://" not in html and "https://" not in html  # self-contained
    dom = subprocess.run(
        [chromium, *FLAGS, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    assert dom.count('class="item diff worse"') == REGRESSED and dom.count('class="change"') == REGRESSED
    shot = tmp_path / "compare.png"
    subprocess.run(
        [chromium, *FLAGS, f"--screenshot={shot}", "--window-size=1200,1600", page.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert shot.stat().st_size > 10_000
