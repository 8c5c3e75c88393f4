"""The summing shortcut of `exactsum._chunk_parts` equals the limb columns, bit for bit."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mycelium.core import exactsum

value = st.one_of(st.floats(-1.0, 1.0), st.floats(-1e-12, 1e-12), st.just(-0.0),
                  st.just(0.0), st.floats(allow_nan=True, allow_infinity=True))


@settings(max_examples=300, deadline=None)
@given(st.lists(value, max_size=40))
def test_chunk_parts_equal_the_limb_columns(values):
    v = np.array(values, dtype=np.float64)
    got = exactsum._chunk_parts(v)
    h, m, low, residual, defined = exactsum.limb_arrays(v)
    want = exactsum.Parts(int(h.sum()), int(m.sum()), int(low.sum()), float(residual.sum()),
                          int(defined.sum()))
    assert (got.h, got.m, got.low, got.count) == (want.h, want.m, want.low, want.count)
    assert got.residual == want.residual
    assert math.copysign(1.0, got.residual) == math.copysign(1.0, want.residual)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1.0, 1.0).filter(lambda x: x == 0 or abs(x) >= 2**-31),
                min_size=1, max_size=40))
def test_exact_mean_is_the_correctly_rounded_mean(values):
    """Exact for values of at least 2**-31 in magnitude (smaller ones keep a float
    residual: see the module docstring)."""
    want = float(sum(map(Fraction, values)) / len(values))
    assert exactsum.exact_mean(np.array(values)) == want
