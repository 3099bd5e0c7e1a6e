"""A local Ray cluster for the engine tests (2 CPUs, no dashboard), started once per module.

Skipped without ``troth[ray]`` unless TROTH_REQUIRE_RAY=1 (as in CI), where it fails instead.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    try:
        import ray
    except ImportError:
        if os.environ.get("TROTH_REQUIRE_RAY") == "1":
            pytest.fail('ray is required (TROTH_REQUIRE_RAY=1) but not installed: pip install "troth[ray]"')
        pytest.skip("needs troth[ray]")
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING)
    yield ray
    ray.shutdown()
