"""bench.pair_batches: the verifier's pairs in a batch are coupled; alone they are not."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench.pair_batches import alone, batched
from troth.judges.backends.verifier import VerifierBackend, find_verifier

CONTEXT = (
    "The Tesla Model 3 is a battery-electric sedan made by Tesla. Deliveries began in July 2017. "
    "The car is built at the Fremont factory in California and at Gigafactory Shanghai."
)
PAIRS = [
    (CONTEXT, "The car is built in Fremont and in Shanghai."),
    (" ".join(["The valley was mild and dry that season."] * 12), "It rained."),
    (CONTEXT[:60], "Tesla makes cars."),
]


def test_a_batch_moves_a_pairs_probability_and_a_batch_of_one_is_the_pair_alone() -> None:
    model = find_verifier(None)
    backend = VerifierBackend(replace(model, card={**model.card, "head": None}))
    by_itself = alone(backend, PAIRS)
    assert by_itself[0] == alone(backend, PAIRS[:1])[0]
    assert batched(backend, PAIRS[:1]) == pytest.approx(by_itself[:1], abs=1e-12)
    assert abs(batched(backend, PAIRS)[0] - by_itself[0]) > 1e-4
