"""Micro tie sums by hashing the scores (`mycelium.metrics.ranking.pooled_blocks`) equal
those of sorting the points (`rank` then `blocks`) bit for bit, and the values of the
curve metrics with them."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mycelium.metrics.ranking import auroc, average_precision, blocks, pooled_blocks, rank

SCORES = st.sampled_from([0.0, -0.0, 0.25, 0.5, 0.5, 0.75, 1.0, 1e-300, 0.1 + 0.2])


def sorted_blocks(score, weight, positive):
    r = rank(score)
    b = blocks(r, np.where(positive, weight, 0), np.where(positive, 0, weight))
    return b, score[r.order[r.first]]


def assert_same(score, weight, positive):
    got = pooled_blocks(score, weight, positive)
    assert got is not None
    (hb, hs), (sb, ss) = got, sorted_blocks(score, weight, positive)
    assert hb.ranking.first.size == sb.ranking.first.size
    assert np.array_equal(hb.ranking.group_first, sb.ranking.group_first)
    assert np.array_equal(hs, ss)  # the same blocks in the same (descending) order
    for a, b in zip(hb.sums, sb.sums):
        assert a.shape == b.shape and np.array_equal(a, b)
    for f in (auroc, average_precision):
        assert np.array_equal(f(hb), f(sb), equal_nan=True)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(SCORES, st.integers(0, 10**6), st.booleans()), min_size=1,
                max_size=80))
def test_hashed_equals_sorted(points):
    score = np.array([p[0] for p in points])
    weight = np.array([p[1] for p in points], dtype=np.int64)
    positive = np.array([p[2] for p in points])
    assert_same(score, weight, positive)


def test_many_tied_points():
    rng = np.random.default_rng(3)
    n = 200_000
    score = np.round(rng.random(n), 3)
    weight = rng.integers(1, 8, n)
    positive = rng.random(n) < 0.2
    assert_same(score, weight, positive)


def test_mostly_distinct_scores_are_left_to_the_sort():
    rng = np.random.default_rng(4)
    score = rng.random(100_000)
    assert pooled_blocks(score, np.ones(score.size, dtype=np.int64),
                         rng.random(score.size) < 0.5) is None


def test_no_points():
    assert pooled_blocks(np.empty(0), np.empty(0, dtype=np.int64), np.empty(0, bool)) is None
