"""One evaluation item, checked once where its row is read and typed from there to the store."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from troth.evals.eval_result import ItemError

ITEM_FIELDS = {"id", "input", "output", "context", "ground_truth", "metadata"}


@dataclass(frozen=True)
class Item:
    """An item to score: its id, what went in, the answer (None until a target makes one), the
    context as segments, the expected answer and metadata. ``error``: why its row could not be
    read (a broken trace span); such an item fails as data and the run goes on."""

    id: str
    input: Any = None
    output: Any = None
    context: list[str] | None = None
    ground_truth: Any = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    error: ItemError | None = None

    def but(self, **changes: Any) -> Item:
        """A copy with ``changes`` (the target's answer, an agent's metadata)."""
        return dataclasses.replace(self, **changes)
