"""The central table's statistics, the permutation tests, the logistic regression and the
mid-rank scores against slow, obvious references (no data needed)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
from hypothesis import given, settings, strategies as st

from mycelium.stats.agreement import kendall_tau_b

from validation import logistic, provenance_tests as pt, ranking, real_systems
from validation.token_baselines import midrank

scores = st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]), min_size=3, max_size=9)


@settings(max_examples=80, deadline=None)
@given(scores, st.randoms(use_true_random=False))
def test_change_stats_equal_a_slow_reference(a, rnd):
    b = [rnd.choice([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]) for _ in a]
    got = ranking.change_stats(np.array([a]), np.array([b]))
    sa, sb = pd.Series(a), pd.Series(b)
    if sa.nunique() > 1 and sb.nunique() > 1:
        assert math.isclose(got["tau"][0], kendall_tau_b(a, b), abs_tol=1e-12)
    winner = int(np.argmax(a))                  # the first of tied winners
    assert got["winner_changes"][0] == float(b[winner] < max(b))
    move = (sa.rank(ascending=False) - sb.rank(ascending=False)).abs().max()
    assert math.isclose(got["max_rank_move"][0], move)
    assert math.isclose(got["median_abs_delta"][0], float(np.median(np.abs(sb - sa))))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.integers(1, 40), st.randoms(use_true_random=False))
def test_noise_floor_counts_flips_as_a_loop_does(n, resamples, rnd):
    grid = [0.0, 0.2, 0.5, 0.7, 1.0, float("nan")]
    sa = np.array([[rnd.choice(grid) for _ in range(n)] for _ in range(resamples)])
    sb = np.array([[rnd.choice(grid) for _ in range(n)] for _ in range(resamples)])
    a, b = 0, n - 1
    got = ranking.noise_floor(sa, sb, a, b)
    flips_from = sum(1 for r in range(resamples) if not sa[r, a] > sa[r, b])
    flips_to = sum(1 for r in range(resamples) if not sb[r, b] > sb[r, a])
    assert got["flip_share_from"] == flips_from / resamples
    assert got["flip_share_to"] == flips_to / resamples
    assert got["p_value"] == (1 + max(flips_from, flips_to)) / (resamples + 1)


def test_winner_change_that_resampling_alone_makes_is_not_significant():
    """Two detectors a hair apart under both conventions: the order flips in about half
    the resamples, so the winner change does not clear its floor; far apart, it does."""
    rng = np.random.default_rng(0)
    noisy = rng.normal(0, 0.01, size=(10_000, 2))
    close_ = ranking.noise_floor(noisy + [0.001, 0], noisy + [0, 0.001], 0, 1)
    assert 0.3 < close_["flip_share_from"] < 0.7 and close_["p_value"] > 0.3
    far = ranking.noise_floor(noisy + [0.1, 0], noisy + [0, 0.1], 0, 1)
    assert far["flip_share_from"] == 0 and far["p_value"] == 1 / 10_001
    t = ranking.floor_table([{"detectors": "systems", "p_value": p} for p in
                             (close_["p_value"], far["p_value"])])
    assert t["significant"].tolist() == [False, True]
    assert t["p_holm"].tolist()[1] == 2 / 10_001


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=12))
def test_response_f1_of_summed_counts_equals_evaluate(flags):
    import mycelium
    from validation.conventions import response_f1

    refs = [[[0, 2]] if g else [] for g, _ in flags]
    preds = [[[1, 3]] if p else [] for _, p in flags]
    text = ["abcd"] * len(flags)
    direct = mycelium.evaluate(refs, preds, text=text, profile="mu_shroom",
                               metrics=["response_level"])["response_level"]["f1"]
    st_ = mycelium.statistics(refs, preds, text=text, metrics=["response_level"])
    sums = {f"response_level__{k}": np.array([float(v.sum())])
            for k, v in st_["response_level"].items()}
    zd = mycelium.get_profile("mu_shroom").zero_division
    assert math.isclose(float(response_f1(sums, zd)[0]), direct, abs_tol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=12))
def test_response_ba_of_summed_counts_equals_scikit_learn(flags):
    """FaithBench's measure on Mu-SHROOM's pooled counts is scikit-learn's balanced
    accuracy (a class absent from the reference is left out of the mean)."""
    import warnings

    from sklearn.metrics import balanced_accuracy_score
    from validation.conventions import response_ba

    g = np.array([a for a, _ in flags])
    p = np.array([b for _, b in flags])
    sums = {"response_level__tp": np.array([float((g & p).sum())]),
            "response_level__fp": np.array([float((~g & p).sum())]),
            "response_level__fn": np.array([float((g & ~p).sum())]),
            "response_level__tn": np.array([float((~g & ~p).sum())])}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one class only: scikit-learn warns, then averages
        direct = balanced_accuracy_score(g, p)
    assert math.isclose(float(response_ba(sums)[0]), direct, abs_tol=1e-12)


def test_central_weights_extend_the_shared_resamples():
    """The central table's 10,000 resamples begin with every other table's 1,000."""
    from validation.uncertainty import Resampler

    ids = [f"x-{k}" for k in range(7)]
    w = ranking.item_weights(ids)
    assert w.shape == (ranking.CENTRAL_RESAMPLES, 7)
    assert np.array_equal(w[:1000], Resampler(ids).weights)


def test_ranks_share_ties():
    assert ranking.ranks(np.array([0.5, 0.9, 0.5, 0.1])).tolist() == [[2.5, 1.0, 2.5, 4.0]]


def test_macro_resamples_are_weighted_means():
    items = np.array([3, 7, 9])
    w = np.array([[1.0, 0.0, 2.0, 0, 0, 0, 0, 3.0, 0, 1.0]])
    scored = pd.DataFrame({"item": [3, 7, 9, 3, 7], "detector": ["a", "a", "a", "b", "b"],
                           "v": [1.0, 0.0, 0.5, 0.2, np.nan]})
    est, star = ranking._macro(w[:, items], np.array([0, 1, 2, 0, 1]),
                               np.array([0, 0, 0, 1, 1]), scored["v"].to_numpy(), 3, 2)
    assert np.allclose(est, [0.5, 0.2])
    assert math.isclose(star[0, 0], (0 * 1.0 + 3 * 0.0 + 1 * 0.5) / 4)
    # b's only defined row is item 3, which this resample does not draw: no value
    assert math.isnan(star[0, 1])


def test_range_test_rejects_separated_models_and_not_identical_ones():
    model = np.array(["m1"] * 20 + ["m2"] * 20 + ["small"] * 3)
    y = np.concatenate([np.zeros(20), np.ones(20), [5.0, 5.0, 5.0]])
    r = pt.range_test(model, y, ("t",))
    assert r["models"] == 2 and r["range"] == 1.0            # "small" is not eligible
    assert math.isclose(r["p_value"], 1 / (pt.PERMUTATIONS + 1))
    flat = pt.range_test(model, np.ones(model.size), ("t",))
    assert flat["range"] == 0.0 and flat["p_value"] == 1.0


def test_group_means_equal_pandas():
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 4, size=(5, 30))
    labels[:, :4] = np.arange(4)                # every label present in every row
    y = rng.random(30)
    got = pt._group_means(labels, y, 4)
    for r in range(5):
        want = pd.Series(y).groupby(labels[r]).mean().to_numpy()
        assert np.allclose(got[r], want)


def test_residuals_are_orthogonal_to_the_covariates():
    rng = np.random.default_rng(1)
    x = rng.random((50, 2))
    y = 2 + x @ [1.0, -3.0] + rng.normal(0, 0.1, 50)
    e = pt._residuals(y, x)
    assert abs(e.sum()) < 1e-9 and np.abs(x.T @ e).max() < 1e-9


def test_newton_logistic_regression_equals_scikit_learn():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    x = rng.normal(size=(3000, 5)) * [1, 10, 0.1, 1, 1]
    x[:, 4] = 2.0                                # a constant feature
    z = 0.8 * x[:, 0] - 0.05 * x[:, 1] + 3 * x[:, 2] - 0.2
    y = (rng.random(3000) < 1 / (1 + np.exp(-z))).astype(float)
    for l2 in (0.1, 1.0, 25.0):
        m = logistic.fit(x, y, l2=l2)
        sk = LogisticRegression(C=1 / l2, tol=1e-12, max_iter=10_000).fit(
            (x - m.mean) / m.scale, y)
        assert np.abs(m.coef - sk.coef_[0]).max() < 1e-6
        assert abs(m.intercept - sk.intercept_[0]) < 1e-6
        assert np.allclose(m.predict(x), sk.predict_proba((x - m.mean) / m.scale)[:, 1],
                           atol=1e-7)
        assert m.coef[4] == 0.0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([-3.0, -1.0, 0.0, 0.0, 2.5, 7.0]), min_size=1, max_size=30))
def test_midrank_orders_as_the_logit_and_shares_ties(values):
    logits = np.array(values)
    s = midrank(logits)
    assert ((s > 0) & (s < 1)).all()
    for i in range(logits.size):
        for j in range(logits.size):
            # less confident (smaller logit) -> higher score; equal logits -> equal scores
            assert (logits[i] < logits[j]) == (s[i] > s[j])
            assert (logits[i] == logits[j]) == (s[i] == s[j])


def test_pandas_fast_parsing_collapses_near_equal_probabilities(tmp_path):
    """The official reader's float parser (the NCL-UoR files' case, SOURCE.md)."""
    rec = {"id": "x", "soft_labels": [{"start": 0, "end": 1, "prob": 0.8812335261248792},
                                      {"start": 1, "end": 2, "prob": 0.881233526124879}]}
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    exact = [s["prob"] for s in real_systems.read_records(path, "exact")[0]["soft_labels"]]
    fast = [s["prob"] for s in real_systems.read_records(path, "pandas-fast")[0]["soft_labels"]]
    assert exact[0] != exact[1] and fast[0] == fast[1]


def test_files_the_reader_rejects_are_read_by_the_same_rule(tmp_path):
    """[-1, -1] spans (9 MSA variants) fail the loader's checks: those files are read line
    by line with the library's float rule, and the study drops the spans itself."""
    rec = {"id": "x", "model_output_text": "abcdef", "hard_labels": [[0, 2], [-1, -1]],
           "soft_labels": [{"start": 0, "end": 2, "prob": 0.3}, {"start": -1, "end": -1}]}
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    fast = real_systems.read_records(path, "pandas-fast")[0]
    assert fast["soft_labels"][0]["prob"] == 0.30000000000000004
    assert real_systems.read_records(path, "exact")[0]["soft_labels"][0]["prob"] == 0.3
    spans, dropped = real_systems._hard(fast["hard_labels"], "x.jsonl", "x", 6)
    assert spans == [(0, 2)] and dropped == 1
    assert real_systems._soft(fast["soft_labels"]) == ([(0, 2, 0.30000000000000004)], 1)
