"""The summing shortcut of `exactsum._chunk_parts` equals the limb columns, bit for bit;
`exactsum.weighted_means` is the correctly rounded weighted mean, in any order."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mycelium.core import exactsum

value = st.one_of(st.floats(-1.0, 1.0), st.floats(-1e-12, 1e-12), st.just(-0.0),
                  st.just(0.0), st.floats(allow_nan=True, allow_infinity=True))


@settings(max_examples=300, deadline=None)
@given(st.lists(value, max_size=40))
@example([math.inf, -math.inf])
def test_chunk_parts_equal_the_limb_columns(values):
    v = np.array(values, dtype=np.float64)
    got = exactsum._chunk_parts(v)
    h, m, low, residual, defined = exactsum.limb_arrays(v)
    want = exactsum.Parts(int(h.sum()), int(m.sum()), int(low.sum()), float(residual.sum()),
                          int(defined.sum()))
    assert (got.h, got.m, got.low, got.count) == (want.h, want.m, want.low, want.count)
    if math.isnan(want.residual):  # e.g. [inf, -inf]: both residuals are undefined alike
        assert math.isnan(got.residual)
        return
    assert got.residual == want.residual
    assert math.copysign(1.0, got.residual) == math.copysign(1.0, want.residual)


unit = st.one_of(st.floats(0.0, 1.0), st.just(-0.0), st.just(0.0), st.just(1.0),
                 st.floats(0.0, 1e-9), st.integers(0, 2**20).map(lambda k: k / 2**20))


@settings(max_examples=300, deadline=None)
@given(st.lists(unit, max_size=40))
@example([-0.0])
@example([-0.0, 0.0])
@example([1.0, 2.0**-31, 2.0**-32])
def test_chunk_parts_of_values_in_the_unit_interval_equal_the_limb_columns(values):
    """The integer steps taken for values in [0, 1] give the limbs, the residual and its
    sign that the limb columns give (small values fall back, with their residual)."""
    test_chunk_parts_equal_the_limb_columns.hypothesis.inner_test(values)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1.0, 1.0).filter(lambda x: x == 0 or abs(x) >= 2**-31),
                min_size=1, max_size=40))
def test_exact_mean_is_the_correctly_rounded_mean(values):
    """Exact for values of at least 2**-31 in magnitude (smaller ones keep a float
    residual: see the module docstring)."""
    want = float(sum(map(Fraction, values)) / len(values))
    assert exactsum.exact_mean(np.array(values)) == want


# Limb sums of up to 2**31 values in [-1, 1] (each limb below 2**28 in magnitude), and
# sums crafted to sit on or beside a rounding tie.
count = st.one_of(st.integers(0, 8), st.integers(1, 2**31 - 1), st.sampled_from([1, 2, 4, 3]))


@st.composite
def limb_sums(draw):
    k = draw(count)
    bound = max(k, 1) * 2**28
    limb = st.one_of(st.integers(-bound, bound), st.sampled_from([0, 1, -1, 2**27]))
    if draw(st.booleans()):  # N = (2**53 + 1 ± δ)·2**e: halfway cases of 54-bit quotients
        n = (((1 << 53) + 1) << draw(st.integers(0, 30))) + draw(st.sampled_from([-1, 0, 1]))
        n = -n if draw(st.booleans()) else n
        h, rest = divmod(n, 1 << 56)
        return h, rest >> 28, rest & ((1 << 28) - 1), 0.0, draw(st.sampled_from([1, 2, 4]))
    residual = draw(st.sampled_from([0.0, -0.0, 1e-30, -3e-40]))
    return draw(limb), draw(limb), draw(limb), residual, k


@settings(max_examples=200, deadline=None)
@given(st.lists(limb_sums(), max_size=30))
def test_means_of_sums_equal_parts_mean_bit_for_bit(sums):
    # the column-wise exact means of the grouped faces are `Parts.mean`, group by group
    h, m, low, residual, k = (list(c) for c in zip(*sums)) if sums else ([],) * 5
    got = exactsum.means_of_sums(np.array(h, dtype=np.int64), np.array(m, dtype=np.int64),
                                 np.array(low, dtype=np.int64), np.array(residual),
                                 np.array(k, dtype=np.int64))
    want = [exactsum.Parts(*s).mean() for s in sums]
    assert len(got) == len(want)
    for g, w in zip(got.tolist(), want):
        assert (math.isnan(g) and math.isnan(w)) or (
            g == w and math.copysign(1.0, g) == math.copysign(1.0, w)), (g, w)


def test_means_of_sums_beyond_int64_fall_back_to_python_integers():
    h = np.array([2**70, 3], dtype=object)
    got = exactsum.means_of_sums(h, np.array([0, 0]), np.array([1, 0]), np.zeros(2),
                                 np.array([2**43, 4]))
    assert got.tolist() == [exactsum.Parts(2**70, 0, 1, 0.0, 2**43).mean(),
                            exactsum.Parts(3, 0, 0, 0.0, 4).mean()]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.floats(0.0, 1.0), st.just(math.nan)),
                          st.integers(0, 6)), min_size=1, max_size=30),
       st.randoms(use_true_random=False))
def test_weighted_means_are_the_exact_weighted_mean_in_any_order(pairs, rng):
    """Σ w·v / Σ w over the defined values, correctly rounded (what Fraction gives) when no
    value is below 2**-31 (those keep a float residual, as in `Parts`), and the same
    double for any order of the values."""
    values = np.array([v for v, _ in pairs])
    weights = np.array([[w for _, w in pairs], [1] * len(pairs)], dtype=np.float64)
    got = exactsum.weighted_means(weights, values)
    tiny = bool(((values != 0) & (np.abs(values) < 2**-31)).any())
    for row, g in zip(weights, got if not tiny else []):
        num = sum(Fraction(int(w)) * Fraction(v) for w, v in zip(row, values) if v == v)
        den = sum(int(w) for w, v in zip(row, values) if v == v)
        assert (math.isnan(g) and den == 0) or g == float(num / den)
    order = list(range(len(pairs)))
    rng.shuffle(order)
    again = exactsum.weighted_means(weights[:, order], values[order])
    assert np.array_equal(got, again, equal_nan=True)
