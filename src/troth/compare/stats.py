"""The statistics of a paired comparison, from scipy: the mean difference's 95% bootstrap
confidence interval (resampling items, so each keeps its pair) and the Wilcoxon signed-rank
test's p-value."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from troth.extras import load

RESAMPLES = 2000
SEED = 0  # the same two evaluations give the same interval


@dataclass(frozen=True)
class Paired:
    """Mean of A, of B, of B - A, its confidence interval, and the test's p-value (None: fewer
    than two pairs)."""

    n: int
    mean_a: float
    mean_b: float
    mean_diff: float
    ci_low: float | None
    ci_high: float | None
    p_value: float | None


def preload() -> None:
    """Import numpy and scipy.stats now (half a second), so that the first comparison a server
    answers is not the one that pays for them."""
    load("numpy", "compare")
    load("scipy.stats", "compare")


def paired(a: Sequence[float], b: Sequence[float], confidence: float = 0.95) -> Paired:
    """The paired comparison of scores ``a`` and ``b`` (same items, same order)."""
    np = load("numpy", "compare")
    stats = load("scipy.stats", "compare")
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    diff = y - x
    n = len(diff)
    if n == 0:
        raise ValueError("no item was scored in both evaluations")
    means = (float(x.mean()), float(y.mean()), float(diff.mean()))
    if n < 2:
        return Paired(n, *means, None, None, None)
    if not diff.any():  # identical scores: no spread to resample, nothing to test
        return Paired(n, *means, 0.0, 0.0, 1.0)
    found = stats.bootstrap(
        (diff,),
        np.mean,
        confidence_level=confidence,
        n_resamples=RESAMPLES,
        method="percentile",
        rng=np.random.default_rng(SEED),
        batch=200,
    )
    test = stats.wilcoxon(diff, zero_method="zsplit")
    low, high = float(found.confidence_interval.low), float(found.confidence_interval.high)
    return Paired(n, *means, low, high, float(test.pvalue))
