"""Metric agreement: Kendall tau-b and Spearman rho between detector rankings."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium  # noqa: F401  (registers df.mycelium)
from mycelium.stats.agreement import kendall_tau_b, metric_agreement, spearman_rho

from _stats_data import noisy_copy, random_batch


def _tidy(values: dict[tuple[str, str], list[float]], detectors, **extra) -> pd.DataFrame:
    rows = []
    for (metric, measure), vals in values.items():
        for d, v in zip(detectors, vals):
            rows.append({"detector": d, "metric": metric, "measure": measure, "value": v,
                         **extra})
    return pd.DataFrame(rows)


DETS = ["d1", "d2", "d3", "d4", "d5"]


def test_a_metric_agrees_perfectly_with_a_copy_of_itself():
    vals = [0.31, 0.72, 0.55, 0.12, 0.9]
    res = _tidy({("iou", "score"): vals, ("iou_copy", "score"): vals}, DETS)
    out = metric_agreement(res, "detector")
    assert len(out) == 1
    row = out.iloc[0]
    assert (row.metric_a, row.metric_b) == ("iou", "iou_copy")
    assert row.kendall_tau == 1.0 and row.spearman_rho == pytest.approx(1.0, abs=1e-15)
    assert row.detectors == 5


def test_reversed_values_give_minus_one():
    vals = [0.31, 0.72, 0.55, 0.12, 0.9]
    res = _tidy({("iou", "score"): vals, ("character", "f1"): [1 - v for v in vals]}, DETS)
    row = metric_agreement(res, "detector").iloc[0]
    assert row.kendall_tau == -1.0 and row.spearman_rho == pytest.approx(-1.0, abs=1e-15)


def test_kendall_tau_b_with_ties_by_hand():
    # Pairs (i<j) of x=[1,2,2,3], y=[1,1,2,2]: (0,1) tie in y, (0,2) C, (0,3) C,
    # (1,2) tie in x, (1,3) C, (2,3) tie in y. C - D = 3; untied in x: 5, in y: 4.
    assert kendall_tau_b([1, 2, 2, 3], [1, 1, 2, 2]) == pytest.approx(3 / math.sqrt(20),
                                                                      abs=1e-15)
    # Ranks x=[1, 2.5, 2.5, 4], y=[1.5, 1.5, 3.5, 3.5], centred: [-1.5, 0, 0, 1.5] and
    # [-1, -1, 1, 1]; rho = 3 / sqrt(4.5 * 4).
    assert spearman_rho([1, 2, 2, 3], [1, 1, 2, 2]) == pytest.approx(3 / math.sqrt(18),
                                                                     abs=1e-15)
    assert math.isnan(kendall_tau_b([1, 1, 1], [1, 2, 3]))
    assert math.isnan(spearman_rho([1, 2, 3], [5, 5, 5]))


def test_against_scipy_on_hand_picked_tied_vectors():
    stats = pytest.importorskip("scipy.stats")
    cases = [([1, 2, 2, 3], [1, 1, 2, 2]),
             ([0.5, 0.5, 0.7, 0.1, 0.9, 0.9], [0.2, 0.3, 0.3, 0.1, 0.8, 0.2]),
             ([3, 1, 4, 1, 5, 9, 2, 6], [2, 7, 1, 8, 2, 8, 1, 8])]
    for x, y in cases:
        assert kendall_tau_b(x, y) == pytest.approx(stats.kendalltau(x, y)[0], abs=1e-12)
        assert spearman_rho(x, y) == pytest.approx(stats.spearmanr(x, y)[0], abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=15))
def test_against_scipy_on_random_tied_vectors(pairs):
    stats = pytest.importorskip("scipy.stats")
    x = [a for a, _ in pairs]
    y = [b for _, b in pairs]
    tau, rho = kendall_tau_b(x, y), spearman_rho(x, y)
    if len(set(x)) == 1 or len(set(y)) == 1:
        assert math.isnan(tau) and math.isnan(rho)
        return
    assert tau == pytest.approx(stats.kendalltau(x, y)[0], abs=1e-12)
    assert rho == pytest.approx(stats.spearmanr(x, y)[0], abs=1e-12)


def test_per_group_agreement_with_by():
    en = _tidy({("iou", "score"): [0.9, 0.5, 0.1], ("character", "f1"): [0.8, 0.6, 0.7]},
               ["a", "b", "c"], lang="en")
    de = _tidy({("iou", "score"): [0.9, 0.5, 0.1], ("character", "f1"): [0.1, 0.5, 0.9]},
               ["a", "b", "c"], lang="de")
    res = pd.concat([en, de], ignore_index=True)
    for by in ("lang", ["lang"], None):  # None: every other column is a group key
        out = metric_agreement(res, "detector", by=by).set_index("lang")
        assert list(out.index) == ["de", "en"]
        # en: a>b>c versus a>c>b -> C=2, D=1, tau=1/3; ranks (3,2,1) vs (3,1,2): rho=1/2
        assert out.loc["en", "kendall_tau"] == pytest.approx(1 / 3, abs=1e-15)
        assert out.loc["en", "spearman_rho"] == pytest.approx(0.5, abs=1e-15)
        assert out.loc["de", "kendall_tau"] == -1.0
        assert out.loc["de", "spearman_rho"] == pytest.approx(-1.0, abs=1e-15)
    with pytest.raises(ValueError, match="several rows"):
        metric_agreement(res, "detector", by=[])


def test_three_measures_give_three_pairs_and_missing_values_give_nan():
    res = _tidy({("iou", "score"): [0.1, 0.2, 0.3], ("character", "f1"): [0.3, 0.2, 0.1],
                 ("exact_span", "f1"): [0.5, math.nan, 0.6]}, ["a", "b", "c"])
    out = metric_agreement(res, "detector").set_index(["metric_a", "metric_b"])
    assert len(out) == 3
    assert out.loc[("iou", "character"), "kendall_tau"] == -1.0
    assert math.isnan(out.loc[("iou", "exact_span"), "kendall_tau"])
    assert out.loc[("iou", "exact_span"), "detectors"] == 2


def test_missing_column_raises_key_error():
    res = _tidy({("iou", "score"): [0.1, 0.2]}, ["a", "b"])
    with pytest.raises(KeyError, match="model"):
        metric_agreement(res, "model")


def test_agreement_from_a_real_tidy_frame():
    refs, _ = random_batch(60, seed=1, p_span=1.0)
    rows = []
    for name, keep in [("strong", 0.9), ("mid", 0.6), ("weak", 0.3), ("none", 0.0)]:
        for r, p in zip(refs, noisy_copy(refs, int(keep * 10), p_keep=keep)):
            rows.append({"detector": name, "ref": r, "pred": p})
    df = pd.DataFrame(rows)
    tidy = df.mycelium.evaluate("ref", "pred", by="detector",
                                metrics=["iou", "character", "exact_span"], average="micro")
    out = metric_agreement(tidy, "detector")
    # Every recall-side measure orders strong > mid > weak > none.
    recall_side = out[out["measure_a"].isin(["score", "recall", "f1"])
                      & out["measure_b"].isin(["score", "recall", "f1"])]
    assert len(recall_side) == 10  # 5 measures, 10 pairs
    assert (recall_side["kendall_tau"] == 1.0).all()
