"""F1 of wide counts without Python integers: equal to the exact rational rounded once."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mycelium.core import aggregate
from mycelium.core.exactsum import f1_of_counts, f1_ratio
from mycelium.metrics import METRICS

magnitude = st.sampled_from([2**10, 2**26, 2**30, 2**40, 2**52, 2**53 - 1])
ratio = magnitude.flatmap(lambda m: st.integers(1, m).flatmap(
    lambda den: st.tuples(st.integers(0, den), st.just(den))))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(ratio, ratio), min_size=1, max_size=20))
def test_f1_ratio_is_the_correctly_rounded_quotient(rows):
    a, b, c, d = (np.array([float(r[i][j]) for r in rows]) for i, j in
                  ((0, 0), (0, 1), (1, 0), (1, 1)))
    f1, unsure = f1_ratio(a, b, c, d)
    for k, ((pa, pb), (rc, rd)) in enumerate(rows):
        den = pa * rd + pb * rc
        want = 0.0 if den == 0 else float(Fraction(2 * pa * rc, den))
        if not unsure[k]:
            assert f1[k] == want


def test_f1_ratio_reports_exact_midpoints():
    # 2ac / (ad + bc) = 1 - 2**-54 exactly: a midpoint between two float64 values.
    a, b, c, d = 2.0**53 - 1, 2.0**53, 1.0, 1.0
    val = Fraction(int(2 * a * c), int(a * d + b * c))
    f1, unsure = f1_ratio(np.array([a]), np.array([b]), np.array([c]), np.array([d]))
    assert unsure[0] or f1[0] == float(val)


wide = st.integers(0, 2**62)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(wide, wide, wide, wide), min_size=1, max_size=30),
       st.sampled_from([0.0, 1.0]))
def test_measures_of_wide_counts_equal_the_exact_path(rows, zd):
    """CLEval statistics of any size: the row-by-row bounds give the Python-integer values."""
    tp = np.array([min(r[0], r[1], r[2]) for r in rows], dtype=np.int64)
    st_ = {"precision_num": tp, "det_chars": np.array([r[1] for r in rows], dtype=np.int64),
           "recall_num": tp, "gt_chars": np.array([r[2] for r in rows], dtype=np.int64)}
    metric = METRICS["cleval_1d"]
    got = aggregate.metric_measures("cleval_1d", st_, {}, zd)
    ratios = {k: (np.asarray(n).astype(object), np.asarray(dd).astype(object))
              for k, (n, dd) in metric.ratios(st_, {}).items()}
    want = aggregate.finalize_ratios(metric, ratios, zd, exact=True)
    for key in want:
        assert got[key].tolist() == want[key].tolist(), key


# Counts on both sides of the bounds the shortcuts use: products past 2**53 once counts
# pass 2**26, sums b + d on both sides of 2**53, and zero (undefined ratios).
edge = st.sampled_from([0, 1, 2, 3, 2**26 - 1, 2**26, 2**26 + 1, 2**52 - 1, 2**52,
                        2**52 + 1, 2**53 - 2, 2**53 - 1])
count = st.one_of(edge, st.integers(0, 2**53 - 1), st.integers(2**25, 2**27),
                  st.integers(2**51, 2**53 - 1))


@st.composite
def counts_row(draw):
    """(a, b, c, d): a shared numerator half the time, as every count metric but CLEval."""
    b, d = draw(count), draw(count)
    a = draw(st.one_of(st.just(b), st.integers(0, b), count))
    c = a if draw(st.booleans()) else draw(st.one_of(st.just(d), st.integers(0, d), count))
    return a, b, c, d


def _exact_f1(a, b, c, d):
    den = a * d + b * c
    return 0.0 if den == 0 else float(Fraction(2 * a * c, den))


@settings(max_examples=400, deadline=None)
@given(st.lists(counts_row(), min_size=1, max_size=40))
def test_f1_of_counts_equals_the_exact_rational(rows):
    """Decided rows are the exact rational rounded once; a shared numerator with an exact
    sum b + d is always decided (no products); an undefined ratio never is."""
    a, b, c, d = (np.array([float(r[i]) for r in rows]) for i in range(4))
    f1, decided = f1_of_counts(a, b, c, d)
    for k, (ra, rb, rc, rd) in enumerate(rows):
        if rb == 0 or rd == 0:
            assert not decided[k]
            continue
        if ra == rc and rb + rd < 2**53:
            assert decided[k]
        if decided[k]:
            assert f1[k] == _exact_f1(ra, rb, rc, rd), (ra, rb, rc, rd)


def test_f1_of_counts_shared_numerator_at_the_sum_bound():
    # b + d = 2**53 - 1 is exact (one division); 2**53 + 1 rounds, so the products decide.
    a = b = np.array([2.0**52, 2.0**52])
    d = np.array([2.0**52 - 1, 2.0**52 + 1])
    f1, decided = f1_of_counts(a, b, a, d)
    want = [_exact_f1(2**52, 2**52, 2**52, 2**52 - 1), _exact_f1(2**52, 2**52, 2**52, 2**52 + 1)]
    assert decided[0] and f1[0] == want[0] == float(Fraction(2**53, 2**53 - 1))
    assert not decided[1] or f1[1] == want[1]


@settings(max_examples=300, deadline=None)
@given(st.lists(counts_row(), min_size=1, max_size=30),
       st.sampled_from(["character", "cleval_1d"]), st.sampled_from([0.0, 1.0, float("nan")]),
       st.booleans())
def test_measures_of_counts_below_2_53_equal_the_exact_path(rows, name, zd, all_wide):
    """Every measure, undefined ratios included, equals the Python-number path."""
    if all_wide:  # every row past 2**26, as with long spans (the no-gather branch)
        rows = [(a, max(b, 2**26), c, d) for a, b, c, d in rows]
    a, b, c, d = (np.array([r[i] for r in rows], dtype=np.int64) for i in range(4))
    if name == "character":  # tp / (tp + fp), tp / (tp + fn): one numerator
        a = np.minimum(a, np.minimum(b, d))
        st_ = {"tp": a, "fp": b - a, "fn": d - a}
    else:
        st_ = {"precision_num": np.minimum(a, b), "det_chars": b,
               "recall_num": np.minimum(c, d), "gt_chars": d}
    metric = METRICS[name]
    got = aggregate.metric_measures(name, st_, {}, zd)
    ratios = {k: (np.asarray(n).astype(object), np.asarray(dd).astype(object))
              for k, (n, dd) in metric.ratios(st_, {}).items()}
    want = aggregate.finalize_ratios(metric, ratios, zd, exact=True)
    for key in want:
        assert np.array_equal(got[key], want[key], equal_nan=True), key
        assert np.signbit(got[key]).tolist() == np.signbit(want[key]).tolist(), key
