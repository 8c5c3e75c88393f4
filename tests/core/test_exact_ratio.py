"""F1 of wide counts without Python integers: equal to the exact rational rounded once."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mycelium.core import aggregate
from mycelium.core.exactratio import f1_ratio
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
    got = aggregate._measures("cleval_1d", st_, {}, zd)
    ratios = {k: (np.asarray(n).astype(object), np.asarray(dd).astype(object))
              for k, (n, dd) in metric.ratios(st_, {}).items()}
    want = aggregate._finalize(metric, ratios, zd, exact=True)
    for key in want:
        assert got[key].tolist() == want[key].tolist(), key
