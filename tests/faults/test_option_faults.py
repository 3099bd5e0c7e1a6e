"""Numeric options: a NaN, an infinity or a value out of range is one line naming the option and
exit status 2, before anything runs; never a check switched off."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import pytest

from tests.commands import troth as command
from troth.bounds import check


def troth(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return command(*args, cwd=cwd, columns=200)


def test_check_refuses_what_is_not_finite_or_in_range() -> None:
    check("--x", None, low=1)
    check("--x", 0.5, low=0, high=1, strict=True)
    for value in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError, match="--x must be a finite number"):
            check("--x", value)
    with pytest.raises(ValueError, match="--rpm must be > 0, not 0"):
        check("--rpm", 0.0, low=0, strict=True)
    with pytest.raises(ValueError, match="--port must be <= 65535, not 99999"):
        check("--port", 99999, low=1, high=65535)
    with pytest.raises(ValueError, match="--alpha must be < 1, not 1"):
        check("--alpha", 1.0, low=0, high=1, strict=True)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["eval", "DATA", "--threshold", "nan"], "--threshold must be a finite number, not nan"),
        (["eval", "DATA", "--rpm", "0"], "--rpm must be > 0, not 0"),
        (["eval", "DATA", "--tpm", "inf"], "--tpm must be a finite number, not inf"),
        (["eval", "DATA", "--concurrency", "0"], "--concurrency must be >= 1, not 0"),
        (["eval", "DATA", "--max-wait", "-1"], "--max-wait must be >= 0, not -1"),
        (["eval", "DATA", "--scale", "nan"], "--scale must be a finite number, not nan"),
        (["score", "--example", "--scale", "0"], "--scale must be > 0, not 0"),
        (["ui", "--port", "99999"], "--port must be <= 65535, not 99999"),
        (["live", "--limit", "0"], "--limit must be >= 1, not 0"),
        (["live", "--threshold", "nan"], "--threshold must be a finite number, not nan"),
        (["runs", "list", "--limit", "0"], "--limit must be >= 1, not 0"),
    ],
)
def test_each_numeric_option_is_checked_in_one_line(args: list[str], message: str, tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"id": "a", "output": "The sky is blue.", "context": ["The sky is blue."]}) + "\n")
    out = troth(*[str(data) if a == "DATA" else a for a in args], cwd=tmp_path)
    assert out.returncode == 2 and out.stderr.strip() == f"error: {message}", out.stderr
    assert not (tmp_path / ".troth").exists()  # nothing ran, nothing was stored


def test_a_since_longer_than_the_calendar_means_everything(tmp_path: Path) -> None:
    from troth.text.times import since_time

    assert since_time("99999999999d") == "0001-01-01T00:00:00.000+00:00"
    out = troth("runs", "list", "--since", "99999999999d", "--store", str(tmp_path / "none.db"), cwd=tmp_path)
    assert out.returncode == 2 and out.stderr.strip().startswith("error: no store at")  # no OverflowError
