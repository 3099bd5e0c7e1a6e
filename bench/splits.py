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


def half_of(row: dict[str, Any]) -> Half:
    """Which half ``row`` belongs to (a stable function of its context)."""
    digest = hashlib.sha256("\n".join(row["context"]).encode("utf-8")).digest()
    return "train" if digest[0] % 2 == 0 else "held"


def read_half(path: Path, half: Half) -> list[dict[str, Any]]:
    """The rows of one JSONL dev file that fall in ``half``."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [row for row in rows if half_of(row) == half]
