"""Confidence intervals that scale (issue 33): the bootstrap up to BOOTSTRAP_MAX values, the normal interval beyond."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from orchestrator.reports import summary
from orchestrator.reports.summary import BOOTSTRAP_MAX, mean_interval, mean_intervals, normal_interval

TOLERANCE = 0.10  # of the bootstrap interval's width, for each bound


def bootstrap(values: np.ndarray) -> tuple[float, float]:
    found = stats.bootstrap((values,), np.mean, confidence_level=0.95, n_resamples=2_000, method="percentile",
                            random_state=0, vectorized=True)
    return float(found.confidence_interval.low), float(found.confidence_interval.high)


@pytest.mark.parametrize("size", [1_000, 2_000, 5_000])
@pytest.mark.parametrize("kind", ["node counts", "times", "moves"])
def test_the_normal_interval_agrees_with_the_bootstrap_where_both_apply(size, kind):
    rng = np.random.default_rng(size)
    values = {"node counts": rng.lognormal(8, 1.5, size).round(), "times": rng.exponential(0.2, size),
              "moves": rng.integers(20, 60, size).astype(float)}[kind]
    low, high = bootstrap(values)
    normal_low, normal_high = normal_interval(values)
    assert abs(normal_low - low) <= TOLERANCE * (high - low) and abs(normal_high - high) <= TOLERANCE * (high - low)


def test_small_samples_keep_the_bootstrap_and_large_ones_take_the_normal_interval():
    rng = np.random.default_rng(1)
    small, large = rng.exponential(1.0, BOOTSTRAP_MAX), rng.exponential(1.0, BOOTSTRAP_MAX + 1)
    np.testing.assert_allclose(mean_intervals([small, large]), [bootstrap(small), normal_interval(large)], rtol=1e-12)
    np.testing.assert_allclose(mean_interval(pd.Series([*small[:10], None])), bootstrap(small[:10]), rtol=1e-12)


def test_a_normal_interval_stays_within_the_values():
    values = np.array([0.0] * 5_000 + [1e9])  # one huge value: mean - z·σ/√n is below zero
    low, high = normal_interval(values)
    assert low == 0.0 and high > low


def test_many_samples_of_a_size_are_resampled_in_batches_with_the_same_bounds(monkeypatch):
    rng = np.random.default_rng(2)
    samples = [rng.exponential(1.0, 50) for _ in range(5)]
    together = mean_intervals(samples)
    monkeypatch.setattr(summary, "BATCH_VALUES", 2 * 2_000 * 50)  # two samples a batch
    np.testing.assert_allclose(mean_intervals(samples), together, rtol=1e-12)  # the same resamples, summed in
    np.testing.assert_allclose(together, [bootstrap(values) for values in samples], rtol=1e-12)  # another order
