"""`round8` (the constant rule's rounding, vectorised) against Python's ``round(x, 8)``,
bit for bit, on random values and on the hard ones: next to a half of 1e-8, exact
8-decimal values and their neighbours, sums of annotator shares, signed zeros, huge and
non-finite values."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mycelium.metrics.soft_runs import round8


def _same(x: np.ndarray) -> None:
    got = round8(x)
    want = np.array([round(v, 8) for v in x.tolist()])
    assert got.view(np.int64).tolist() == want.view(np.int64).tolist() or \
        all(a == b or (math.isnan(a) and math.isnan(b))
            for a, b in zip(got.tolist(), want.tolist()))
    # signed zeros too
    assert np.signbit(got).tolist() == np.signbit(want).tolist()


def test_random_values():
    rng = np.random.default_rng(0)
    _same(rng.random(200_000))
    _same(rng.random(100_000) * 20 - 10)
    _same(np.round(rng.random(100_000), 6))  # probabilities of 6 decimals
    bits = rng.integers(np.float64(1e-12).view(np.int64), np.float64(1e7).view(np.int64),
                        200_000)
    _same(bits.view(np.float64))


def test_halves_and_their_neighbours():
    rng = np.random.default_rng(1)
    half = (rng.integers(0, 10**9, 50_000) + 0.5) / 1e8
    steps = [half]
    for direction in (0.0, 20.0):
        near = half
        for _ in range(3):
            near = np.nextafter(near, direction)
            steps.append(near)
    _same(np.concatenate(steps + [-h for h in steps]))
    exact = rng.integers(0, 10**9, 50_000) / 1e8
    _same(np.concatenate([exact, np.nextafter(exact, 0), np.nextafter(exact, 20)]))


def test_sums_of_shares():
    rng = np.random.default_rng(2)
    shares = np.array([1 / 3, 2 / 3, 0.25, 0.5, 0.75, 1.0, 0.3333333333, 0.6666666667,
                       0.1, 0.2, 0.3])
    _same(np.cumsum(rng.choice(shares, (50_000, 5)), axis=1).ravel())


def test_special_values():
    _same(np.array([0.0, -0.0, 5e-324, 5e-9, -5e-9, 4.9999999999e-9, 5.0000001e-9, 1.5e-8,
                    2.5e-8, 2.675e-9, 1e7, 1e8, 2.0**44 + 0.5, 1e20, 1e308, -1e308,
                    math.inf, -math.inf, math.nan]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=50))
def test_any_floats(values):
    _same(np.array(values, dtype=np.float64))
