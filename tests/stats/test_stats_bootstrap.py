"""Bootstrap intervals: keyed Poisson weights, reproducibility, chunking, and equality
with a brute-force bootstrap that materialises every resample and calls `evaluate`."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mycelium
import mycelium.stats.bootstrap as boot
from mycelium import parse_signature
from mycelium.stats.bootstrap import (example_keys, percentile_interval, poisson_weights,
                                resampled_values)

from _stats_data import detector_batch, flat, noisy_copy, random_batch

SPAN_METRICS = ["exact_span", "iou", "character", "deteval_1d", "cleval_1d", "span_coverage"]


def _ci(refs, preds, **kw):
    kw.setdefault("ci", 0.95)
    kw.setdefault("n_resamples", 300)
    kw.setdefault("seed", 0)
    kw.setdefault("progress", False)
    return mycelium.evaluate(refs, preds, **kw)


def _widths(report) -> dict[tuple[str, str], float]:
    return {(m, k): iv["high"] - iv["low"] for m, meas in report["ci"].items()
            for k, iv in meas.items()}


# --------------------------------------------------------------------------- weights


def test_weights_of_a_resample_range_are_rows_of_the_full_range():
    keys = example_keys(257)
    full = poisson_weights(keys, 7, range(0, 150))
    for a, b in [(0, 1), (1, 2), (3, 64), (63, 65), (100, 150), (149, 150)]:
        np.testing.assert_array_equal(poisson_weights(keys, 7, range(a, b)), full[a:b])


def test_weights_of_an_example_do_not_depend_on_the_other_examples():
    keys = example_keys(0, [f"id{i}" for i in range(50)])
    full = poisson_weights(keys, 3, range(40))
    np.testing.assert_array_equal(poisson_weights(keys[10:20], 3, range(40)), full[:, 10:20])
    np.testing.assert_array_equal(poisson_weights(keys[::-1], 3, range(40)), full[:, ::-1])


def test_weight_distribution_is_poisson_1():
    w = poisson_weights(example_keys(1000), 0, range(1000))  # 1e6 draws
    assert w.shape == (1000, 1000)
    assert np.all(w == np.round(w)) and w.min() == 0
    assert w.mean() == pytest.approx(1.0, abs=0.005)          # sd of the mean: 0.001
    assert w.var() == pytest.approx(1.0, abs=0.01)            # sd: ~0.0017
    for k in range(5):
        expected = math.exp(-1) / math.factorial(k)
        assert (w == k).mean() == pytest.approx(expected, abs=0.002), k
    assert w.max() <= 12  # P(W > 12) ~ 1e-10 per draw


def test_weights_are_uncorrelated_across_resamples_examples_and_seeds():
    keys = example_keys(2000)
    w0 = poisson_weights(keys, 0, range(200))
    w1 = poisson_weights(keys, 1, range(200))
    assert abs(np.corrcoef(w0[:-1].ravel(), w0[1:].ravel())[0, 1]) < 0.01     # r, r+1
    assert abs(np.corrcoef(w0[:, :-1].ravel(), w0[:, 1:].ravel())[0, 1]) < 0.01  # i, i+1
    assert abs(np.corrcoef(w0.ravel(), w1.ravel())[0, 1]) < 0.01                 # seeds


def test_example_keys_are_positions_or_stable_id_hashes():
    np.testing.assert_array_equal(example_keys(4), np.arange(4, dtype=np.uint64))
    a = example_keys(3, ["x", "y", "z"])
    np.testing.assert_array_equal(a, example_keys(3, ["x", "y", "z"]))
    assert len(set(a.tolist())) == 3
    assert example_keys(1, ["y"])[0] == a[1]


# --------------------------------------------------------------------------- intervals


def test_intervals_contain_the_estimate_on_stable_data():
    refs, preds = detector_batch(400, seed=1)
    for average in ("macro", "micro"):
        r = _ci(refs, preds, average=average, n_resamples=500)
        for (m, k), value in flat(r).items():
            iv = r["ci"][m][k]
            assert iv["low"] <= value <= iv["high"], (average, m, k, value, iv)
            assert iv["low"] < iv["high"], (average, m, k)


def test_intervals_shrink_with_four_times_the_examples():
    refs, preds = detector_batch(150, seed=2)
    for average in ("macro", "micro"):
        small = _widths(_ci(refs, preds, average=average))
        large = _widths(_ci(refs * 4, preds * 4, average=average))
        for key, w in small.items():
            assert w > 0, key
            # The standard error halves with 4x the examples; allow bootstrap noise.
            assert 0.35 * w < large[key] < 0.7 * w, (average, key, w, large[key])


def test_intervals_are_reproducible_by_seed():
    refs, preds = detector_batch(120, seed=3)
    a = _ci(refs, preds, seed=5)
    b = _ci(refs, preds, seed=5)
    c = _ci(refs, preds, seed=6)
    assert a["ci"] == b["ci"]
    assert flat(a) == flat(c)  # the estimates never depend on the seed
    differ = [key for key in _widths(a) if a["ci"][key[0]][key[1]] != c["ci"][key[0]][key[1]]]
    assert len(differ) == len(_widths(a))


@pytest.mark.parametrize("chunk", [1, 7, 64, 1000])
def test_micro_intervals_do_not_depend_on_chunking(monkeypatch, chunk):
    refs, preds = detector_batch(200, seed=4)
    expected = _ci(refs, preds, average="micro", n_resamples=130)["ci"]
    monkeypatch.setattr(boot, "CHUNK", chunk)
    assert _ci(refs, preds, average="micro", n_resamples=130)["ci"] == expected


@pytest.mark.parametrize("chunk", [1, 7, 64, 1000])
def test_macro_intervals_do_not_depend_on_chunking_beyond_rounding(monkeypatch, chunk):
    refs, preds = detector_batch(200, seed=4)
    expected = _ci(refs, preds, n_resamples=130)["ci"]
    monkeypatch.setattr(boot, "CHUNK", chunk)
    got = _ci(refs, preds, n_resamples=130)["ci"]
    for m, meas in expected.items():
        for k, iv in meas.items():
            assert got[m][k]["low"] == pytest.approx(iv["low"], abs=1e-12)
            assert got[m][k]["high"] == pytest.approx(iv["high"], abs=1e-12)


def test_macro_intervals_are_bit_identical_across_chunkings(monkeypatch):
    refs, preds = random_batch(300, seed=0)
    expected = _ci(refs, preds, n_resamples=200, seed=3)["ci"]
    monkeypatch.setattr(boot, "CHUNK", 1)
    assert _ci(refs, preds, n_resamples=200, seed=3)["ci"] == expected


def test_resampled_values_of_later_resamples_do_not_depend_on_earlier_ones():
    refs, preds = random_batch(80, seed=5)
    st = mycelium.statistics(refs, preds)
    keys = example_keys(80)
    kw = dict(keys=keys, average="micro", zero_division=0.0, params=None, seed=9)
    short = resampled_values(st, n_resamples=40, **kw)
    long = resampled_values(st, n_resamples=100, **kw)
    for m, meas in short.items():
        for k, v in meas.items():
            np.testing.assert_array_equal(v, long[m][k][:40])


# ----------------------------------------------------- brute-force reference bootstrap


def _materialise(refs, preds, weights):
    """The resample itself: example i repeated ``weights[i]`` times, in input order."""
    r, p = [], []
    for ex_r, ex_p, w in zip(refs, preds, weights.astype(int)):
        r.extend([ex_r] * w)
        p.extend([ex_p] * w)
    return r, p


def _same(a: float, b: float, tol: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


@pytest.mark.parametrize("average", ["macro", "micro"])
@pytest.mark.parametrize("zero_division", [0.0, 1.0, "nan"])
def test_resampled_values_equal_evaluate_on_the_materialised_resample(average, zero_division):
    refs, preds = random_batch(25, seed=6, p_span=0.6)
    n, seed, R = len(refs), 11, 6
    st = mycelium.statistics(refs, preds)
    keys = example_keys(n)
    values = resampled_values(st, keys=keys, average=average, zero_division=zero_division,
                              params=None, seed=seed, n_resamples=R)
    weights = poisson_weights(keys, seed, range(R))
    checked = 0
    for r in range(R):
        mr, mp = _materialise(refs, preds, weights[r])
        assert mr, "a resample without examples (probability e^-25)"
        want = flat(mycelium.evaluate(mr, mp, average=average, zero_division=zero_division))
        for (m, k), v in want.items():
            got = float(values[m][k][r])
            assert _same(got, v, 1e-12), (r, m, k, got, v)
            checked += 1
    assert checked == R * 16


def test_interval_is_the_percentile_of_the_materialised_resamples():
    refs, preds = random_batch(30, seed=7)
    R, seed, ci = 40, 2, 0.9
    report = mycelium.evaluate(refs, preds, metrics=["iou", "character"], average="micro",
                               ci=ci, n_resamples=R, seed=seed, progress=False)
    weights = poisson_weights(example_keys(30), seed, range(R))
    per = {("iou", "score"): [], ("character", "f1"): []}
    for r in range(R):
        mr, mp = _materialise(refs, preds, weights[r])
        out = mycelium.evaluate(mr, mp, metrics=["iou", "character"], average="micro")
        for m, k in per:
            per[m, k].append(out[m][k])
    for (m, k), vals in per.items():
        low, high = np.quantile(vals, [0.05, 0.95])
        assert report["ci"][m][k]["low"] == pytest.approx(low, abs=1e-12)
        assert report["ci"][m][k]["high"] == pytest.approx(high, abs=1e-12)


def test_percentile_interval_leaves_out_undefined_resamples():
    values = np.array([np.nan, 0.0, 1.0, 2.0, 3.0, 4.0, np.nan])
    assert percentile_interval(values, 0.5) == (1.0, 3.0)
    low, high = percentile_interval(np.array([np.nan, np.nan]), 0.95)
    assert math.isnan(low) and math.isnan(high)


def test_zero_division_nan_leaves_undefined_examples_out():
    # Example 1 has no spans at all: its exact_span precision and recall are 0/0.
    refs = [[[0, 5]], [], [[2, 4]], [[0, 3]]] * 5
    preds = [[[0, 5]], [], [[2, 4]], [[0, 2]]] * 5
    r = _ci(refs, preds, metrics=["exact_span"], zero_division="nan", n_resamples=200)
    assert r["exact_span"] == {"precision": 2 / 3, "recall": 2 / 3, "f1": 2 / 3}
    for k in ("precision", "recall", "f1"):
        iv = r["ci"]["exact_span"][k]
        assert 0.0 < iv["low"] <= 2 / 3 <= iv["high"] < 1.0
    # With 0.0 the empty example counts as a 0 and pulls everything down.
    r0 = _ci(refs, preds, metrics=["exact_span"], zero_division=0.0, n_resamples=200)
    assert r0["exact_span"]["recall"] == 0.5
    assert r0["ci"]["exact_span"]["recall"]["high"] < r["ci"]["exact_span"]["recall"]["high"]


def test_zero_division_nan_with_only_undefined_examples_gives_nan_interval():
    r = _ci([[], []], [[], []], metrics=["exact_span"], zero_division="nan", n_resamples=20)
    assert math.isnan(r["exact_span"]["recall"])
    assert math.isnan(r["ci"]["exact_span"]["recall"]["low"])
    assert math.isnan(r["ci"]["exact_span"]["recall"]["high"])


def test_dropped_examples_keep_the_keys_of_their_positions():
    refs, preds = random_batch(40, seed=8)
    with_null = list(refs)
    with_null[5] = None
    kept = [i for i in range(40) if i != 5]
    r = _ci(with_null, preds, missing="drop", n_resamples=100, metrics=["iou"], average="micro")
    st = mycelium.statistics([refs[i] for i in kept], [preds[i] for i in kept],
                             metrics=["iou"])
    vals = resampled_values(st, keys=np.array(kept, dtype=np.uint64), average="micro",
                            zero_division=0.0, params=None, seed=0, n_resamples=100)
    assert (r["ci"]["iou"]["score"]["low"], r["ci"]["iou"]["score"]["high"]) == \
        percentile_interval(vals["iou"]["score"], 0.95)


def test_identical_predictions_give_a_degenerate_interval_at_one():
    refs, _ = random_batch(50, seed=9)
    r = _ci(refs, refs, metrics=["iou", "character", "exact_span"], n_resamples=100,
            zero_division=1.0)
    for m, meas in r["ci"].items():
        for k, iv in meas.items():
            assert iv == {"low": 1.0, "high": 1.0}, (m, k)


# ----------------------------------------------------------------- meta and signature


def test_signature_records_the_bootstrap_and_parses_back():
    refs, preds = random_batch(10, seed=10)
    r = _ci(refs, preds, ci=0.8, n_resamples=37, seed=11, metrics="iou")
    sig = r["meta"]["signature"]
    assert "|ci:0.8|resamples:37|seed:11|bootstrap:poisson-percentile" in sig
    parsed = parse_signature(sig)
    assert (parsed["ci"], parsed["n_resamples"], parsed["seed"]) == (0.8, 37, 11)
    assert r["meta"]["ci"]["level"] == 0.8 and r["meta"]["ci"]["n_resamples"] == 37
    again = mycelium.evaluate(refs, preds, metrics=parsed["metrics"],
                              average=parsed["average"], ci=parsed["ci"],
                              n_resamples=parsed["n_resamples"], seed=parsed["seed"],
                              progress=False)
    assert again["ci"] == r["ci"] and again["meta"]["signature"] == sig


def test_no_ci_means_no_interval_and_no_bootstrap_fields():
    refs, preds = random_batch(10, seed=10)
    r = mycelium.evaluate(refs, preds, metrics="iou", seed=5, n_resamples=10)
    assert "ci" not in r and "ci" not in r["meta"]
    assert "resamples" not in r["meta"]["signature"]


# ------------------------------------------------------------------ progress, options


def test_progress_true_writes_a_bar_to_stderr(capsys):
    refs, preds = random_batch(20, seed=12)
    _ci(refs, preds, metrics="iou", n_resamples=130, progress=True)
    out, err = capsys.readouterr()
    assert out == ""
    # tqdm's bar where installed, else the plain one; both redraw one line in place
    assert err.startswith("\rbootstrap") and "130/130" in err and err.endswith("\n")
    assert err.count("\n") == 1


def test_progress_false_and_automatic_off_a_terminal_write_nothing(capsys):
    refs, preds = random_batch(20, seed=12)
    _ci(refs, preds, metrics="iou", n_resamples=100, progress=False)
    _ci(refs, preds, metrics="iou", n_resamples=100, progress=None)
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("kw", [
    {"ci": 1.5}, {"ci": 0.0}, {"ci": 1}, {"ci": -0.5}, {"ci": "0.95"}, {"ci": True},
    {"n_resamples": 1}, {"n_resamples": 0}, {"n_resamples": 10.0}, {"n_resamples": True},
    {"seed": -1}, {"seed": 1.5}, {"seed": "0"}, {"seed": None},
])
def test_bad_bootstrap_options_raise_value_error(kw):
    args = {"ci": 0.95, "n_resamples": 10, "seed": 0, **kw}
    with pytest.raises(ValueError):
        mycelium.evaluate([[[0, 3]]], [[[0, 2]]], metrics="iou", **args)


def test_huge_seed_is_rejected_with_value_error():
    with pytest.raises(ValueError):
        mycelium.evaluate([[[0, 3]]], [[[0, 2]]], metrics="iou", ci=0.9, n_resamples=10,
                          seed=2**64)


def test_example_keys_do_not_depend_on_the_integer_type_of_ids():
    np.testing.assert_array_equal(example_keys(3, [1, 2, 3]),
                                  example_keys(3, np.array([1, 2, 3])))


def test_soft_spearman_interval_is_consistent_with_a_nan_estimate():
    soft_r = [[{"start": 0, "end": 3, "prob": 0.8}], []]
    soft_p = [[{"start": 0, "end": 2, "prob": 0.6}], []]
    r = mycelium.evaluate([[[0, 3]], []], [[[0, 2]], []], text=["abcdef", ""],
                          soft_references=soft_r, soft_predictions=soft_p, ci=0.9,
                          n_resamples=50, metrics=["iou", "soft_spearman"], progress=False)
    assert math.isnan(r["soft_spearman"]["score"])
    assert math.isnan(r["ci"]["soft_spearman"]["score"]["low"])


def test_micro_interval_of_a_strong_detector_lies_above_a_weak_one():
    refs, _ = random_batch(200, seed=13)
    good = noisy_copy(refs, 1, p_keep=0.9)
    weak = noisy_copy(refs, 2, p_keep=0.3)
    a = _ci(refs, good, metrics=["character"], average="micro")["ci"]["character"]["recall"]
    b = _ci(refs, weak, metrics=["character"], average="micro")["ci"]["character"]["recall"]
    assert b["high"] < a["low"]


# ------------------------------------------------------------ resamples without examples

def _empty_resamples(n: int, seed: int, R: int) -> np.ndarray:
    return poisson_weights(example_keys(n), seed, range(R)).sum(axis=1) == 0


@pytest.mark.parametrize("average", ["micro", "macro"])
def test_resamples_that_draw_no_example_are_left_out_and_counted(average):
    # One example: about e^-1 of the resamples draw it 0 times. Those have no value;
    # micro used to score them 1.0 (IoU of nothing) or zero_division (precision).
    R, seed = 400, 1
    empty = _empty_resamples(1, seed, R)
    assert 100 < empty.sum() < 200
    r = mycelium.evaluate([[[0, 10]]], [[[0, 6]]], metrics=["iou", "character"],
                          average=average, ci=0.95, n_resamples=R, seed=seed,
                          zero_division=1.0, progress=False)
    assert r["meta"]["ci"]["empty_resamples"] == int(empty.sum())
    assert r["ci"]["iou"]["score"] == {"low": 0.6, "high": 0.6}
    assert r["ci"]["character"]["recall"] == {"low": 0.6, "high": 0.6}
    st = mycelium.statistics([[[0, 10]]], [[[0, 6]]], metrics=["iou"])
    values = resampled_values(st, keys=example_keys(1), average=average, zero_division=0.0,
                              params=None, seed=seed, n_resamples=R)
    assert values.n_empty == int(empty.sum())
    np.testing.assert_array_equal(np.isnan(values["iou"]["score"]), empty)
    assert (values["iou"]["score"][~empty] == 0.6).all()


def test_frame_intervals_leave_out_empty_resamples_of_small_groups():
    pd = pytest.importorskip("pandas")
    refs = [[[0, 10]], [[0, 4]], [[0, 4]], [[2, 8]]]
    preds = [[[0, 6]], [[0, 4]], [[0, 2]], [[2, 8]]]
    df = pd.DataFrame({"ref": refs, "pred": preds, "g": ["a", "b", "b", "b"]})
    out = df.mycelium.evaluate("ref", "pred", by="g", metrics="iou", average="micro",
                               ci=0.95, n_resamples=300, seed=2)
    a = out[out.g == "a"].iloc[0]
    assert (a.value, a.ci_low, a.ci_high) == (0.6, 0.6, 0.6)


@pytest.mark.parametrize("ci", [math.inf, -math.inf, math.nan])
def test_non_finite_confidence_level_is_rejected(ci):
    with pytest.raises(ValueError, match="not a confidence level"):
        mycelium.evaluate([[[0, 3]]], [[[0, 2]]], metrics="iou", ci=ci, n_resamples=10)
