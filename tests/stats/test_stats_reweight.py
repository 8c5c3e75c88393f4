"""The blocked, single-threaded reweighting equals the plain product ``w @ matrix``."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium.core.exactsum as products
import mycelium.stats.bootstrap as boot


def _plain(keys, seed, chunk, matrix):
    """The obvious form: every weight at once, one matrix product, exact in Python ints."""
    w = boot.poisson_weights(keys, seed, chunk).astype(np.int64).astype(object)
    return (w @ matrix.astype(np.int64).astype(object)).astype(np.int64)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 300), cols=st.integers(1, 9), seed=st.integers(0, 2**32),
       size=st.integers(1, 70), key_block=st.sampled_from([7, 64]),
       inner=st.sampled_from([1, 3, 32]))
def test_reweighted_equals_plain_product(n, cols, seed, size, key_block, inner):
    rng = np.random.default_rng(seed)
    matrix = rng.integers(-2**28, 2**28, (n, cols)).astype(np.float64)
    keys = boot.example_keys(n)
    chunk = range(0, size)
    saved = products._INNER
    products._INNER = inner  # tiny blocks exercise every seam
    try:
        got = boot.blocked_sums(matrix, keys, seed, size, example_block=key_block)
    finally:
        products._INNER = saved
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, _plain(keys, seed, chunk, matrix))
    w = boot.poisson_weights(keys, seed, chunk)
    np.testing.assert_array_equal(boot.reweight(w, matrix), got)


def test_reweight_keeps_residual_columns_apart():
    """A non-integer column is summed as floats; the integer ones stay exact int sums."""
    matrix = np.array([[1.0, 0.25], [2.0**28, 0.5], [3.0, 0.125]])
    w = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]])
    out = boot.reweight(w, matrix)
    assert out.tolist() == [[1 + 2 * 2**28 + 9, 0.25 + 1.0 + 0.375], [2**28, 0.5]]
