"""Exactness with lengths near 2**62 and beyond: sums of overlapping spans that leave
int64, exact threshold decisions, micro sums over examples, and bootstrap sums — against
the reference (`tests/reference.py`, Python integers and Fractions), with no warning."""

from __future__ import annotations

import pathlib
import sys
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import reference as ref  # noqa: E402

import mycelium  # noqa: E402

METRICS = list(ref.METRICS)
BIG = 2**62
TOP = 2**63 - 1  # the largest valid offset (int64)


def quiet(fn, *args, **kw):
    """Call ``fn`` with every warning an error (no RuntimeWarning may be emitted), but
    the EmptySpanWarning the generated zero-length spans are meant to raise."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", mycelium.EmptySpanWarning)
        return fn(*args, **kw)


def assert_stats_exact(got, expected, n):
    for m, cols in expected.items():
        for s, values in cols.items():
            arr = got[m][s]
            assert arr.shape == (n,), (m, s)
            for k, (g, e) in enumerate(zip(arr.tolist(), values)):
                if arr.dtype == np.float64:  # CLEval numerators with a fractional weight
                    assert (m, s) in ref.FLOAT_STATS
                    assert g == float(e), (m, s, k, g, e)  # correctly rounded
                else:
                    assert g == int(e) and float(g).is_integer(), (m, s, k, g, e)


def exact_report(refs, preds, average, params=None):
    """Reference report with micro in exact Fractions (one rounding per measure)."""
    return ref.aggregate(ref.batch_statistics(refs, preds, params), average=average,
                         params=params)


# ------------------------------------------------------------------ the reported cases

def test_overlapping_spans_near_2_62_score_as_small_ones():
    # One reference split over three predictions, all about 2**62 long: the sum of the
    # overlaps (3 * 2**62) leaves int64. DetEval must find the split, as at 1000.
    small = quiet(mycelium.evaluate, [[0, 1000]], [[0, 1000], [1, 1000], [2, 1000]],
                  metrics=["deteval_1d", "cleval_1d"])
    huge_refs, huge_preds = [[0, BIG]], [[0, BIG], [1, BIG], [2, BIG]]
    huge = quiet(mycelium.evaluate, huge_refs, huge_preds, metrics=["deteval_1d", "cleval_1d"])
    assert huge["deteval_1d"] == small["deteval_1d"] == {"precision": 0.8, "recall": 0.8,
                                                         "f1": 0.8}
    want = exact_report([huge_refs], [huge_preds], "macro")["cleval_1d"]
    assert huge["cleval_1d"] == want
    # precision = tp_chars / det_chars = 2**62 / (3 * 2**62 - 3), not -1
    assert huge["cleval_1d"]["precision"] == float(Fraction(BIG, 3 * BIG - 3))
    st_ = quiet(mycelium.statistics, [huge_refs], [huge_preds], metrics=["cleval_1d"])
    assert int(st_["cleval_1d"]["det_chars"][0]) == 3 * BIG - 3
    assert int(st_["cleval_1d"]["matched_det_chars"][0]) == 3 * BIG - 3


def test_threshold_ties_are_decided_exactly_at_huge_lengths():
    # overlap / length = 4/5 - 1/L: within 1e-9 of 0.8 but below it, so it must fail;
    # exactly 4/5 must pass.
    L = 5 * 2**58
    refs = [[[0, L]], [[0, L]]]
    preds = [[[0, 4 * L // 5 - 1]], [[0, 4 * L // 5]]]
    got = quiet(mycelium.statistics, refs, preds, metrics=["deteval_1d"])
    assert got["deteval_1d"]["n_one_to_one"].tolist() == [0, 1]
    assert ref.deteval_1d_stats(refs[0], preds[0])["n_one_to_one"] == 0
    # the same in a split sum: (2L/5) + (2L/5 - 1) < 4L/5
    refs = [[[0, L]]] * 2
    preds = [[[0, 2 * L // 5], [2 * L // 5, 4 * L // 5 - 1]],
             [[0, 2 * L // 5], [2 * L // 5, 4 * L // 5]]]
    got = quiet(mycelium.statistics, refs, preds, metrics=["deteval_1d"])
    assert got["deteval_1d"]["n_split_refs"].tolist() == [0, 1]


@pytest.mark.parametrize("average", ["micro", "macro"])
def test_micro_sums_of_many_huge_examples_are_exact(average):
    # Five examples of about 2**62 characters: the batch sums reach 5 * 2**62.
    refs = [[[0, BIG]], [[1, BIG]], [[0, TOP]], [[3, BIG + 7]], [[0, BIG], [5, TOP]]]
    preds = [[[0, BIG // 3]], [[0, BIG]], [[2, TOP]], [[0, 2**61 + 1]], [[1, TOP - 2]]]
    got = quiet(mycelium.evaluate, refs, preds, metrics=METRICS, average=average)
    want = exact_report(refs, preds, average)
    for m in METRICS:
        for k, v in want[m].items():
            if average == "micro":
                assert got[m][k] == v, (m, k, got[m][k], v)
            else:
                assert got[m][k] == pytest.approx(v, rel=1e-15, abs=0), (m, k)


# ------------------------------------------------------------------ property tests

@st.composite
def huge_sets(draw):
    """0-4 spans whose ends sit near 0, 2**62 or 2**63 - 1: long, overlapping spans."""
    anchors = [0, 2**61, BIG, TOP - 40]
    spans = []
    for _ in range(draw(st.integers(0, 4))):
        s = draw(st.sampled_from(anchors)) + draw(st.integers(0, 20))
        e = draw(st.sampled_from([a for a in anchors + [TOP - 20] if a >= s - 20]))
        e = min(TOP, max(s, e + draw(st.integers(0, 20))))
        spans.append([s, e])
    return spans


params_strategy = st.fixed_dictionaries({
    "deteval_1d": st.fixed_dictionaries({
        "recall_threshold": st.sampled_from([0.5, 0.8, 1.0]),
        "precision_threshold": st.sampled_from([0.25, 0.4, 1.0]),
    }),
    "cleval_1d": st.fixed_dictionaries({
        "area_precision_threshold": st.sampled_from([0.3, 0.5]),
        "granularity_penalty_weight": st.sampled_from([0.0, 0.5, 1.0, 3.0]),
    }),
})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(huge_sets(), huge_sets()), min_size=1, max_size=5), params_strategy)
def test_huge_overlapping_spans_match_exact_reference(exs, params):
    refs = [r for r, _ in exs]
    preds = [p for _, p in exs]
    got = quiet(mycelium.statistics, refs, preds, metrics=METRICS, params=params)
    assert_stats_exact(got, ref.batch_statistics(refs, preds, params), len(refs))
    for average in ("micro", "macro"):
        report = quiet(mycelium.evaluate, refs, preds, metrics=METRICS, params=params,
                       average=average)
        want = exact_report(refs, preds, average, params)
        for m in METRICS:
            for k, v in want[m].items():
                assert report[m][k] == pytest.approx(v, rel=1e-12, abs=1e-15), \
                    (average, m, k, report[m][k], v)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 2**63 - 1), min_size=1, max_size=30), st.integers(1, 50))
def test_exact_group_sums_beyond_int64(values, n_groups):
    from mycelium.metrics import intervals as iv

    rng = np.random.default_rng(len(values))
    groups = rng.integers(0, n_groups, size=len(values))
    got = quiet(iv.group_sum, groups, np.array(values, dtype=np.int64), n_groups)
    want = [0] * n_groups
    for g, v in zip(groups.tolist(), values):
        want[g] += v
    assert got.tolist() == want
    assert got.dtype == (np.int64 if max(want) < 2**63 else object)


def test_resampled_micro_sums_of_huge_statistics_are_exact():
    # 20 examples of 2**61 / 2**60 characters: weighted sums reach ~2**66.
    r = quiet(mycelium.evaluate, [[[0, 2**61]]] * 20, [[[0, 2**60]]] * 20,
              average="micro", metrics=["iou"], ci=0.95, progress=False)
    assert r["iou"] == {"score": 0.5}
    assert r["ci"]["iou"]["score"] == {"low": 0.5, "high": 0.5}
    # several overlapping 2**62 spans per example (statistics beyond int64)
    refs, preds = [[[0, BIG], [1, BIG]]] * 7, [[[0, BIG], [1, BIG], [2, BIG]]] * 7
    r = quiet(mycelium.evaluate, refs, preds, average="micro",
              metrics=["deteval_1d", "cleval_1d"], ci=0.9, n_resamples=50, progress=False)
    for m in ("deteval_1d", "cleval_1d"):
        for k, v in r[m].items():  # every resample of identical examples = the estimate
            assert r["ci"][m][k] == {"low": v, "high": v}, (m, k)
