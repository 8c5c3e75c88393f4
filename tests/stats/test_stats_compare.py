"""Paired comparison of detectors: self-comparison, a clearly better detector, Holm,
baseline mode, errors, and independence from the order of the examples given ids."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from mycelium.stats.bootstrap import example_keys, percentile_interval, resampled_values
from mycelium.stats.comparison import compare, holm

from _stats_data import detector_batch, noisy_copy, random_batch

NUMERIC = ["value_a", "value_b", "difference", "ci_low", "ci_high", "p_value", "p_holm"]
TESTS = ["paired_bootstrap", "permutation"]


@pytest.mark.parametrize("test", TESTS)
@pytest.mark.parametrize("average", ["macro", "micro"])
def test_a_detector_compared_with_itself(test, average):
    refs, preds = detector_batch(60, seed=1)
    out = compare(refs, {"a": preds, "b": preds}, test=test, average=average,
                  n_resamples=200)
    assert len(out) == 16  # one pair x 16 measures
    assert (out["difference"] == 0).all()
    assert (out["ci_low"] == 0).all() and (out["ci_high"] == 0).all()
    assert (out["p_value"] == 1).all() and (out["p_holm"] == 1).all()
    assert (out["value_a"] == out["value_b"]).all()


@pytest.mark.parametrize("test", TESTS)
@pytest.mark.parametrize("average", ["macro", "micro"])
def test_a_strongly_better_detector_gets_a_small_p_value(test, average):
    refs, _ = random_batch(80, seed=2, p_span=1.0)
    good = noisy_copy(refs, 1, p_keep=0.95)
    poor = noisy_copy(refs, 2, p_keep=0.2)
    metrics = ["exact_span", "iou", "character"]
    out = compare(refs, {"good": good, "poor": poor}, test=test, average=average,
                  metrics=metrics, n_resamples=1000, zero_division=1.0)
    rows = out.set_index(["metric", "measure"])
    for key in [("exact_span", "recall"), ("exact_span", "f1"), ("iou", "score"),
                ("character", "recall"), ("character", "f1")]:
        row = rows.loc[key]
        assert row["difference"] > 0.4, key
        assert row["p_value"] < 0.01 and row["p_holm"] < 0.01, key
        assert 0 < row["ci_low"] <= row["difference"] <= row["ci_high"], key
    # Both keep only true spans: precision is 1 for both, no difference at all.
    for key in [("exact_span", "precision"), ("character", "precision")]:
        assert rows.loc[key, "difference"] == 0 and rows.loc[key, "p_value"] == 1


def test_values_equal_evaluate_and_interval_is_the_paired_bootstrap():
    refs, a = detector_batch(50, seed=3)
    _, b = detector_batch(50, seed=4)
    out = compare(refs, {"a": a, "b": b}, metrics=["iou", "character"], average="micro",
                  n_resamples=150, seed=7, ci=0.9)
    ra = mycelium.evaluate(refs, a, metrics=["iou", "character"], average="micro")
    rb = mycelium.evaluate(refs, b, metrics=["iou", "character"], average="micro")
    keys = example_keys(50)
    kw = dict(keys=keys, average="micro", zero_division=0.0, params=None, seed=7,
              n_resamples=150)
    sa = resampled_values(mycelium.statistics(refs, a, metrics=["iou", "character"]), **kw)
    sb = resampled_values(mycelium.statistics(refs, b, metrics=["iou", "character"]), **kw)
    for row in out.itertuples():
        assert row.value_a == ra[row.metric][row.measure]
        assert row.value_b == rb[row.metric][row.measure]
        assert row.difference == row.value_a - row.value_b
        star = sa[row.metric][row.measure] - sb[row.metric][row.measure]
        assert (row.ci_low, row.ci_high) == percentile_interval(star, 0.9)
        far = min((star <= 0).sum(), (star >= 0).sum())
        assert row.p_value == min(1.0, 2 * (1 + far) / 151)
        assert row.examples == 50 and row.n_resamples == 150 and row.average == "micro"


# ------------------------------------------------------------------------------ Holm


def test_holm_hand_checked():
    # sorted: 0.005 (x4 = 0.02), 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 -> 0.06)
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02],
                               rtol=0, atol=1e-15)
    # Capped at 1; NaN stays NaN and is not counted among the hypotheses (m = 3).
    got = holm([0.2, math.nan, 0.5, 0.45])
    assert math.isnan(got[1])
    np.testing.assert_allclose(got[[0, 2, 3]], [0.6, 0.9, 0.9], rtol=0, atol=1e-15)
    np.testing.assert_array_equal(holm([0.6, 0.7]), [1.0, 1.0])
    assert holm([]).size == 0


def _holm_reference(p):
    p = list(p)
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    for rank, i in enumerate(order):
        out[i] = min(1.0, max((m - j) * p[order[j]] for j in range(rank + 1)))
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=12))
def test_holm_properties(p):
    adj = holm(p)
    raw = np.asarray(p)
    assert np.all(adj >= raw) and np.all(adj <= 1)
    for i in range(len(p)):
        for j in range(len(p)):
            if raw[i] <= raw[j]:
                assert adj[i] <= adj[j]           # order of the raw p-values is kept
    np.testing.assert_allclose(adj, _holm_reference(p), rtol=0, atol=1e-12)


def test_p_holm_is_holm_within_each_metric_and_measure():
    refs, a = detector_batch(40, seed=5)
    dets = {"a": a, "b": detector_batch(40, seed=6)[1], "c": detector_batch(40, seed=7)[1],
            "d": noisy_copy(refs, 3, p_keep=0.5)}
    out = compare(refs, dets, metrics=["iou", "exact_span"], n_resamples=200)
    assert len(out) == 6 * 4  # 6 pairs x 4 measures
    for _, part in out.groupby(["metric", "measure"]):
        assert len(part) == 6
        np.testing.assert_array_equal(part["p_holm"].to_numpy(),
                                      holm(part["p_value"].to_numpy()))


# --------------------------------------------------------------------- pairs, errors


def test_baseline_mode_gives_k_minus_1_pairs():
    refs, a = detector_batch(30, seed=8)
    dets = {"a": a, "b": detector_batch(30, seed=9)[1], "c": detector_batch(30, seed=10)[1],
            "base": noisy_copy(refs, 4, p_keep=0.5)}
    out = compare(refs, dets, baseline="base", metrics="iou", n_resamples=50)
    assert list(zip(out["detector_a"], out["detector_b"])) == [
        ("a", "base"), ("b", "base"), ("c", "base")]
    every = compare(refs, dets, metrics="iou", n_resamples=50)
    assert list(zip(every["detector_a"], every["detector_b"])) == [
        ("a", "b"), ("a", "c"), ("a", "base"), ("b", "c"), ("b", "base"), ("c", "base")]
    # The baseline rows are the same numbers as the matching rows of the full comparison.
    same = every[every["detector_b"] == "base"].reset_index(drop=True)
    assert out[["value_a", "value_b", "difference", "ci_low", "ci_high", "p_value"]].equals(
        same[["value_a", "value_b", "difference", "ci_low", "ci_high", "p_value"]])


def test_mismatched_lengths_raise():
    refs, a = detector_batch(20, seed=11)
    with pytest.raises(ValueError, match="20 examples.*19"):
        compare(refs, {"a": a, "b": a[:-1]}, metrics="iou", n_resamples=10)
    with pytest.raises(ValueError, match="ids has 5 entries but there are 20"):
        compare(refs, {"a": a, "b": a}, metrics="iou", n_resamples=10, ids=list(range(5)))


def test_unknown_test_and_bad_detectors_raise():
    refs, a = detector_batch(10, seed=12)
    with pytest.raises(ValueError, match="test='t'"):
        compare(refs, {"a": a, "b": a}, test="t", n_resamples=10)
    with pytest.raises(TypeError):
        compare(refs, {"a": a}, n_resamples=10)
    with pytest.raises(KeyError, match="zzz"):
        compare(refs, {"a": a, "b": a}, baseline="zzz", n_resamples=10)
    with pytest.raises(ValueError):
        compare(refs, {"a": a, "b": a}, n_resamples=1)


def test_duplicate_ids_raise():
    refs, a = detector_batch(3, seed=13)
    with pytest.raises(ValueError):
        compare(refs, {"a": a, "b": refs}, ids=["x", "x", "y"], n_resamples=10)


# ----------------------------------------------------------------------- ids and order


def _shuffled(refs, dets, ids, seed):
    perm = np.random.default_rng(seed).permutation(len(refs))
    return ([refs[i] for i in perm], {k: [v[i] for i in perm] for k, v in dets.items()},
            [ids[i] for i in perm])


@pytest.mark.parametrize("test", TESTS)
def test_ids_make_micro_results_independent_of_example_order(test):
    refs, a = detector_batch(120, seed=14)
    dets = {"a": a, "b": detector_batch(120, seed=15)[1]}
    ids = [f"doc-{i}" for i in range(120)]
    base = compare(refs, dets, ids=ids, test=test, average="micro", n_resamples=200)
    for seed in (1, 2):
        r2, d2, i2 = _shuffled(refs, dets, ids, seed)
        other = compare(r2, d2, ids=i2, test=test, average="micro", n_resamples=200)
        assert base.equals(other)
    # Without ids the keys are positions: shuffling changes the intervals.
    r2, d2, _ = _shuffled(refs, dets, ids, 1)
    pos = compare(r2, d2, test=test, average="micro", n_resamples=200)
    assert not np.array_equal(pos["ci_low"].to_numpy(), base["ci_low"].to_numpy())


@pytest.mark.parametrize("test", TESTS)
def test_ids_make_macro_results_independent_of_example_order(test):
    # Macro means and every resampled sum (bootstrap and permutation) are exact sums,
    # so the order of the examples does not change a bit.
    refs, a = detector_batch(120, seed=14)
    dets = {"a": a, "b": detector_batch(120, seed=15)[1]}
    ids = [f"doc-{i}" for i in range(120)]
    base = compare(refs, dets, ids=ids, test=test, n_resamples=200)
    r2, d2, i2 = _shuffled(refs, dets, ids, 3)
    other = compare(r2, d2, ids=i2, test=test, n_resamples=200)
    assert base.equals(other)


def test_permutation_p_value_matches_a_hand_computed_null():
    # Two examples; detector a is right on the first, b on neither. Swapping on example 0
    # flips the sign of the iou difference, swapping on example 1 changes nothing, so the
    # null distribution is {+d, -d}: every |d*| >= |d| and p = 1.
    refs = [[[0, 4]], [[0, 4]]]
    out = compare(refs, {"a": [[[0, 4]], []], "b": [[], []]}, test="permutation",
                  metrics="iou", n_resamples=99)
    assert out.loc[0, "difference"] == 0.5
    assert out.loc[0, "p_value"] == 1.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_micro_iou_and_micro_character_f1_are_one_measure(seed):
    # README: F1 = 2·IoU / (1 + IoU) on the pooled tp, fp, fn, so the paired bootstrap
    # gives both the same p-value and intervals equal up to percentile interpolation.
    refs, preds = random_batch(60, seed)
    other = noisy_copy(refs, seed + 10, p_keep=0.7)
    out = compare(refs, {"a": preds, "b": other}, metrics=["iou", "character"],
                  average="micro", n_resamples=400, seed=seed)
    iou = out[out.metric == "iou"].iloc[0]
    f1 = out[(out.metric == "character") & (out.measure == "f1")].iloc[0]
    assert iou.p_value == f1.p_value
    for detector, column in ((preds, "value_a"), (other, "value_b")):
        x = iou[column]
        assert f1[column] == pytest.approx(2 * x / (1 + x), rel=1e-15, abs=0)
        r = mycelium.evaluate(refs, detector, metrics=["iou", "character"],
                              average="micro", ci=0.95, n_resamples=400, seed=seed)
        for bound in ("low", "high"):
            lo = r["ci"]["iou"]["score"][bound]
            assert r["ci"]["character"]["f1"][bound] == pytest.approx(2 * lo / (1 + lo),
                                                                      abs=1e-5)
