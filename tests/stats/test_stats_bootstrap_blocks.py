"""The bootstrap's weights are generated and reduced in blocks of examples: the same
sums and intervals as one product over every example, in bounded memory."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import mycelium
from mycelium.evaluate import statistics
from mycelium.stats import bootstrap
from mycelium.stats.bootstrap import (blocked_sums, example_keys, poisson_weights,
                                      resampled_values, reweight)


def _batch(n: int, seed: int = 3):
    rng = np.random.default_rng(seed)
    refs, preds = [], []
    for _ in range(n):
        s = int(rng.integers(0, 30))
        refs.append([[s, s + int(rng.integers(1, 20))]] if rng.random() < 0.8 else [])
        t = max(0, s + int(rng.integers(-4, 5)))
        preds.append([[t, t + int(rng.integers(1, 20))]] if rng.random() < 0.7 else [])
    return refs, preds


@pytest.mark.parametrize("block", [1, 7, 64, 10**9])
def test_blocked_sums_equal_one_product_over_every_example(block):
    rng = np.random.default_rng(0)
    n = 301
    ints = rng.integers(0, 2**28, (n, 3)).astype(np.float64)
    matrix = np.hstack([np.ones((n, 1)), ints, ints[:, :1], np.zeros((n, 1))])
    keys = example_keys(n)
    unblocked = reweight(poisson_weights(keys, 5, range(130)), matrix)
    got = blocked_sums(matrix, keys, 5, 130, example_block=block)
    assert got.dtype == np.int64 and np.array_equal(got, unblocked)
    # a float residual column: summed as reweight sums it (bit for bit)
    residual = np.hstack([matrix, rng.random((n, 1)) * 1e-30])
    assert np.array_equal(blocked_sums(residual, keys, 5, 130, example_block=block),
                          reweight(poisson_weights(keys, 5, range(130)), residual))


@pytest.mark.parametrize("average", ["macro", "micro"])
def test_blocked_and_unblocked_resamples_give_identical_intervals(monkeypatch, average):
    refs, preds = _batch(257)
    stats = statistics(refs, preds, metrics=["iou", "character", "deteval_1d"])
    keys = example_keys(len(refs))
    kwargs = dict(keys=keys, average=average, zero_division=0.0, params=None, seed=11,
                  n_resamples=150)
    monkeypatch.setattr(bootstrap, "EXAMPLE_BLOCK", 10**9)
    whole = resampled_values(stats, **kwargs)
    report_whole = mycelium.evaluate(refs, preds, metrics=["iou", "character"],
                                     average=average, ci=0.9, n_resamples=150, seed=11)
    monkeypatch.setattr(bootstrap, "EXAMPLE_BLOCK", 10)
    blocked = resampled_values(stats, **kwargs)
    report_blocked = mycelium.evaluate(refs, preds, metrics=["iou", "character"],
                                       average=average, ci=0.9, n_resamples=150, seed=11)
    assert whole.n_empty == blocked.n_empty
    for metric, measures in whole.items():
        for measure, values in measures.items():
            assert np.array_equal(values, blocked[metric][measure], equal_nan=True)
    assert report_blocked == report_whole
    assert report_whole["meta"]["ci"]


def test_weights_are_held_a_block_at_a_time():
    n, resamples = 150_000, 64
    matrix = np.hstack([np.ones((n, 1)), np.arange(n, dtype=np.float64)[:, None] % 97])
    keys = example_keys(n)
    tracemalloc.start()
    try:
        blocked_sums(matrix, keys, 0, resamples)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # one product over every example holds 64 x 150,000 float64 weights (77 MB) and the
    # uint64 hashes beside them; blocks of EXAMPLE_BLOCK examples hold a few MB
    assert peak < 40e6, peak


def test_resampled_values_hold_the_distinct_columns_not_the_whole_layout():
    refs, preds = _batch(100_000, seed=5)
    stats = statistics(refs, preds, metrics=["iou", "character", "deteval_1d"])
    tracemalloc.start()
    try:
        out = resampled_values(stats, keys=example_keys(100_000), average="macro",
                               zero_division=0.0, params=None, seed=0, n_resamples=64)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # the layout (weight, 5 limb columns and a NaN flag per measure: 43 columns of
    # 100,000 float64) stacked whole was 34 MB, its blocks as much again, and the
    # 64 x 100,000 weights 51 MB each (with their hashes); now a fraction of that
    assert peak < 60e6, peak
    assert out["iou"]["score"].shape == (64,)
