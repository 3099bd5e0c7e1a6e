"""A training pair of the claim verifier, and its targets (no troth import: the GPU machine's
training run reads pairs without the package's dependencies)."""

from __future__ import annotations

from dataclasses import dataclass

SUPPORTED, CONTRADICTED, UNVERIFIABLE, NOT_SUPPORTED = 0, 1, 2, 3
"""Targets; NOT_SUPPORTED is for sources that merge contradicted and unverifiable (trained with a
binary loss on P(supported))."""


@dataclass(frozen=True)
class Pair:
    passage: str
    claim: str
    target: int
    source: str
