"""`mycelium.metrics.order`: the packed sort is numpy's stable argsort, position for
position, and the hashed codes are the binary searches into the sorted distinct values."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mycelium.metrics import order


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 3 * order._PACK_FROM), st.sampled_from([1, 3, 40, 62, 63]),
       st.booleans(), st.integers(0, 2**32))
def test_stable_order_is_the_stable_argsort(n, bits, signed, seed):
    rng = np.random.default_rng(seed)
    high = 1 << min(bits, 62)
    key = rng.integers(-high if signed else 0, high, size=n)
    if n and bits == 63:  # the widest ranges: the merge sort decides
        key[0], key[-1] = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    got = order.stable_order(key)
    assert got.dtype == np.int64
    assert np.array_equal(got, np.argsort(key, kind="stable"))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.uint8, np.uint16,
                                   np.uint32, np.uint64])
def test_stable_order_of_other_integer_types(dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(1)
    # the whole range of the type: differences overflow the type itself
    key = rng.integers(info.min, info.max, size=20_000, endpoint=True, dtype=dtype)
    key[:2] = info.min, info.max
    got = order.stable_order(key)
    assert got.dtype == np.int64
    assert np.array_equal(got, np.argsort(key, kind="stable"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 1e-300, 0.1, 1 / 3, 0.5, 0.5, 1.0, 2.5]),
                max_size=200))
def test_codes_are_the_positions_among_the_sorted_distinct_values(values):
    v = np.array(values, dtype=np.float64)
    codes, distinct = order.codes_in_order(v)
    want = np.unique(v)
    assert np.array_equal(distinct, want)
    assert np.array_equal(codes, np.searchsorted(want, v))
