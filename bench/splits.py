"""The fixed split of each labeled dev file into a training half and a held-out half.

Items are split by a hash of their context, so every output about one document (qags-all and
qags-sentences share documents) falls in the same half. Training may use the "train" half;
benchmarks report on the "held" half only.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

Half = Literal["train", "held"]
Fold = tuple[int, int]
"""(k, n): fold k of n, a further split of the training half (for cross-fitting: an encoder
trained without fold k scores fold k's items as items it never saw)."""


def _digest(row: dict[str, Any]) -> bytes:
    return hashlib.sha256("\n".join(row["context"]).encode("utf-8")).digest()


def half_of(row: dict[str, Any]) -> Half:
    """Which half ``row`` belongs to (a stable function of its context)."""
    return "train" if _digest(row)[0] % 2 == 0 else "held"


def fold_of(row: dict[str, Any], folds: int) -> int:
    """Which of ``folds`` folds ``row`` falls in (by another byte of the same hash: a document's
    outputs stay together)."""
    return _digest(row)[1] % folds


def read_half(path: Path, half: Half, leave: Fold | None = None) -> list[dict[str, Any]]:
    """The rows of one JSONL dev file that fall in ``half``; with ``leave`` (k, n), less fold k."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [row for row in rows if half_of(row) == half and (leave is None or fold_of(row, leave[1]) != leave[0])]
