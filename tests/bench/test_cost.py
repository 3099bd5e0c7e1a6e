"""bench.cost: calls, tokens and dollars per 1,000 items pooled from bench.compare reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import cost


def report(path: Path, rows: dict[str, list[dict[str, object]]]) -> Path:
    path.write_text(json.dumps({"judge": "j", "limit": 2, "seed": 0, "files": rows}))
    return path


def row(tool: str, calls: float, prompt: float, completion: float, items: int = 2) -> dict[str, object]:
    return {
        "tool": tool,
        "items": items,
        "calls_per_item": calls,
        "prompt_tokens_per_item": prompt,
        "completion_tokens_per_item": completion,
    }


def test_rows_are_pooled_over_files_and_priced(tmp_path: Path) -> None:
    peers = report(
        tmp_path / "a.json",
        {
            "f1": [row("troth", 3, 1000, 100), row("ragas", 2, 2000, 200)],
            "f2": [row("troth", 3, 3000, 300), row("ragas", 2, 2000, 200)],
        },
    )
    single = report(tmp_path / "b.json", {"f1": [row("troth", 1, 500, 50, items=4)]})
    out = tmp_path / "cost"
    assert cost.main([f"{peers}#ragas=RAGAS", f"{single}#troth=troth single pass", "--out", str(out)]) == 0
    rows = {r["label"]: r for r in json.loads(Path(f"{out}.json").read_text())["rows"]}
    assert set(rows) == {"RAGAS", "troth single pass"}
    assert rows["RAGAS"]["calls"] == 2000 and rows["RAGAS"]["prompt_tokens"] == 2_000_000
    assert rows["RAGAS"]["usd"] == pytest.approx(2.0 * 0.15 + 0.2 * 0.60)  # gpt-4o-mini: $0.15 / $0.60 per M
    assert rows["troth single pass"]["items"] == 4 and rows["troth single pass"]["prompt_tokens"] == 500_000
    everything = cost.rows_of([str(peers)], "openai/gpt-4o-mini")[0]
    assert [r["label"] for r in everything] == ["troth", "ragas"] and everything[0]["prompt_tokens"] == 2_000_000
    assert "| RAGAS | 4 | 2,000 | 2,000,000 | 200,000 | 0.420 |" in Path(f"{out}.md").read_text()


def test_unknown_prices_and_tools_are_one_line_errors(tmp_path: Path) -> None:
    peers = report(tmp_path / "a.json", {"f1": [row("ragas", 2, 2000, 200)]})
    with pytest.raises(SystemExit, match="no list price for 'nobody/model'"):
        cost.main([str(peers), "--model", "nobody/model"])
    with pytest.raises(SystemExit, match="no rows of 'deepeval'"):
        cost.main([f"{peers}#deepeval"])
