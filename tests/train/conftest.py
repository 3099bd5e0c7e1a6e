"""Fixtures of the training tests."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.common import DATA_DIR
from train.data import DEV_FILES
from troth.judges.backends.verifier import find_verifier


@pytest.fixture
def fold_copies(tmp_path: Path) -> list[str]:
    """Two copies of the packaged verifier whose cards say they left out fold 0/2 and 1/2."""
    folds = []
    for k in (0, 1):
        folder = tmp_path / f"fold{k}"
        shutil.copytree(find_verifier(None).path, folder)
        card = json.loads((folder / "card.json").read_text())
        card["training"] = card["training"] | {"left_out_fold": f"{k}/2"}
        (folder / "card.json").write_text(json.dumps(card))
        folds.append(str(folder))
    return folds


def write_dev_files(folder: Path, count: int, answer: Callable[[int], tuple[list[str], str, int]]) -> None:
    """Each dev file with ``count`` rows; ``answer(i)`` gives row i's context, output and label."""
    folder.mkdir()
    for name in DEV_FILES:
        rows = []
        for i in range(count):
            context, output, label = answer(i)
            rows.append({"id": f"{name}-{i}", "context": context, "output": output, "label": label})
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture
def sample_data(tmp_path: Path) -> Path:
    """A data folder shaped like ``../shared/data`` holding the first 60 rows of each of its dev
    and training files: a smoke run reads these instead of every pair."""
    folder = tmp_path / "sample-data"
    for source in [*sorted(DATA_DIR.glob("*.jsonl")), *sorted((DATA_DIR / "train").glob("*.jsonl"))]:
        into = folder / source.relative_to(DATA_DIR)
        into.parent.mkdir(parents=True, exist_ok=True)
        with source.open(encoding="utf-8") as rows:
            into.write_text("".join(line for _, line in zip(range(60), rows, strict=False)), encoding="utf-8")
    return folder
