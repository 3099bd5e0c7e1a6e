"""Fixtures of the training tests."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

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
