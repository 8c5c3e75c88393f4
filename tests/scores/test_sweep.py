"""`mycelium.sweep` and `mycelium.tune_threshold` (SPEC section 9): a sweep at t equals
`evaluate` at t, bit for bit, for both score forms, every metric, groups and averages;
tuning on one half and scoring the other."""

import math
import random

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from mycelium.scores.plan import Tuned

SCORES = [0.0, 0.2, 0.5, 0.5, 0.7, 1.0]


def _batch(rng, n, token, in_order=True):
    text, refs, kw = [], [], {"soft_predictions": [], "token_offsets": [], "token_scores": []}
    for _ in range(n):
        L = rng.randint(0, 25)
        text.append("x" * L)
        refs.append([sorted([rng.randint(0, L), rng.randint(0, L)]) for _ in
                     range(rng.randint(0, 2))])
        if token:
            cuts = sorted(rng.randint(0, L) for _ in range(rng.randint(0, 6)))
            offs = [[a, max(a, b - rng.randint(0, 1))] for a, b in zip([0] + cuts, cuts + [L])]
            if rng.random() < 0.3 and offs:  # overlapping neighbours (byte-level tokenizers)
                offs[0][1] = min(L, offs[0][1] + 1)
            if not in_order:
                rng.shuffle(offs)
            kw["token_offsets"].append(offs)
            kw["token_scores"].append([rng.choice(SCORES) for _ in offs])
        else:
            kw["soft_predictions"].append([
                {"start": a, "end": b, "prob": rng.choice(SCORES)} for a, b in
                (sorted([rng.randint(0, L), rng.randint(0, L)]) for _ in range(rng.randint(0, 3)))])
    kw = {k: v for k, v in kw.items() if (k == "soft_predictions") != token}
    return text, refs, kw


METRICS = ["iou", "character", "response_level", "exact_span", "deteval_1d"]


def _check_against_evaluate(text, refs, kw, average, by=None):
    try:
        frame = mycelium.sweep(refs, text=text, metrics=METRICS, average=average, by=by,
                               **kw)
    except mycelium.SpanValidationError as exc:
        _check_refused_alike(text, refs, kw, average, exc)
        return
    groups = [((), np.ones(len(refs), bool))] if by is None else [
        ((g,), np.array([b == g for b in by])) for g in sorted(set(by))]
    for key, sel in groups:
        part = frame if by is None else frame[frame["by"] == key[0]]
        sub = lambda xs: [x for x, s in zip(xs, sel) if s]
        for t in sorted(set(part["threshold"])):
            want = mycelium.evaluate(sub(refs), text=sub(text), threshold=t, metrics=METRICS,
                                     average=average, **{k: sub(v) for k, v in kw.items()})
            rows = part[part["threshold"] == t]
            for m, measure, value in zip(rows["metric"], rows["measure"], rows["value"]):
                got, expected = value, want[m][measure]
                assert got == expected or (math.isnan(got) and math.isnan(expected)), \
                    (t, m, measure)


def _check_refused_alike(text, refs, kw, average, exc):
    """Tokens out of order whose run ends before it starts have no span at that
    threshold (SPEC section 9): `evaluate` refuses the lowest such threshold of the
    sweep's grid with the same message."""
    assert "ends before it starts" in str(exc)
    for t in sorted({0.0, *(p for row in kw["token_scores"] for p in row)}):
        try:
            mycelium.evaluate(refs, text=text, threshold=t, metrics=METRICS,
                              average=average, **kw)
        except mycelium.SpanValidationError as first:
            assert str(first) == str(exc)
            return
    raise AssertionError("sweep refused scores that evaluate takes at every threshold")


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.booleans(), st.sampled_from(["macro", "micro"]),
       st.booleans())
def test_sweep_at_t_equals_evaluate_at_t(seed, token, average, in_order):
    rng = random.Random(seed)
    text, refs, kw = _batch(rng, rng.randint(1, 6), token, in_order)
    _check_against_evaluate(text, refs, kw, average)


def test_sweep_by_group_equals_evaluate_on_each_group():
    rng = random.Random(7)
    text, refs, kw = _batch(rng, 12, True)
    by = [rng.choice("ab") for _ in refs]
    _check_against_evaluate(text, refs, kw, "macro", by=by)


def test_sweep_frame_shape_and_thresholds():
    text, refs = ["abcdefgh"], [[[2, 6]]]
    kw = {"token_offsets": [[(0, 2), (2, 4), (4, 6), (6, 8)]],
          "token_scores": [[0.1, 0.9, 0.6, 0.2]]}
    f = mycelium.sweep(refs, text=text, by={"lang": ["en"]}, **kw)
    assert list(f.columns) == ["lang", "threshold", "metric", "measure", "value",
                               "examples", "average", "profile"]
    assert sorted(set(f["threshold"])) == [0.0, 0.1, 0.2, 0.6, 0.9]  # the exact curve
    q = mycelium.sweep(refs, text=text, thresholds=3, metrics="iou", **kw)
    assert q["threshold"].tolist() == [0.1, 0.4, 0.9]  # quantiles 0, 0.5, 1 of the scores
    s = mycelium.sweep(refs, text=text, thresholds=[0.5, 0.15], metrics="iou", **kw)
    assert s[["threshold", "value"]].values.tolist() == [[0.15, 4 / 6], [0.5, 1.0]]
    assert "|scores:token|thresholds:2" in s.attrs["signature"]


def test_tune_on_one_half_score_the_other():
    rng = random.Random(3)
    text, refs, kw = _batch(rng, 40, False)
    dev = slice(0, 20)
    test = slice(20, 40)
    best = mycelium.tune_threshold(refs[dev], text=text[dev], metric="iou",
                                   soft_predictions=kw["soft_predictions"][dev])
    curve = mycelium.sweep(refs[dev], text=text[dev], metrics="iou",
                           soft_predictions=kw["soft_predictions"][dev])
    top = curve["value"].max()
    assert best["value"] == top
    assert float(best["threshold"]) == curve[curve["value"] == top]["threshold"].min()
    assert isinstance(best["threshold"], Tuned) and best["signature"].endswith("tuned:iou.score")
    applied = mycelium.evaluate(refs[test], text=text[test], threshold=best["threshold"],
                                metrics="iou", soft_predictions=kw["soft_predictions"][test])
    plain = mycelium.evaluate(refs[test], text=text[test], threshold=float(best["threshold"]),
                              metrics="iou", soft_predictions=kw["soft_predictions"][test])
    assert applied["iou"] == plain["iou"]
    assert applied["meta"]["signature"].endswith(
        f"|threshold:{float(best['threshold'])!r}|tuned:iou")
    assert applied["meta"]["tuned"] == "iou"


def test_tune_ties_go_to_the_lower_threshold_and_groups_tune_apart():
    text = ["abcd", "abcd"]
    refs = [[[0, 2]], [[2, 4]]]
    soft = [[{"start": 0, "end": 2, "prob": 0.9}, {"start": 2, "end": 4, "prob": 0.3}],
            [{"start": 2, "end": 4, "prob": 0.3}]]
    # 0.3, 0.5 and 0.8 all give [0, 2) on the first example (IoU 1.0): the lowest wins.
    one = mycelium.tune_threshold(refs[:1], text=text[:1], soft_predictions=soft[:1],
                                  thresholds=[0.8, 0.5, 0.3, 0.95])
    assert float(one["threshold"]) == 0.3 and one["value"] == 1.0
    per = mycelium.tune_threshold(refs, text=text, soft_predictions=soft,
                                  by=pd.Series(["en", "fi"], name="lang"))
    assert per["lang"].tolist() == ["en", "fi"]
    assert per["threshold"].tolist() == [0.3, 0.0] and per["value"].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="Expected a measure of iou, got 'f1'"):
        mycelium.tune_threshold(refs, text=text, soft_predictions=soft, measure="f1")


@pytest.mark.parametrize("thresholds", ["0.5", b"0.5", 0.5])
def test_sweep_refuses_thresholds_that_are_not_a_grid(thresholds):
    # a string would be read character by character, a float is one threshold misplaced
    kw = dict(text=["abcd"], soft_predictions=[[{"start": 0, "end": 2, "prob": 0.7}]])
    with pytest.raises(TypeError, match=r"Expected thresholds= as None, .* fix by passing "
                                        r"e.g. \[0.5\]"):
        mycelium.sweep([[[0, 2]]], thresholds=thresholds, **kw)
    with pytest.raises(TypeError, match="Expected thresholds= as None"):
        mycelium.tune_threshold([[[0, 2]]], thresholds=thresholds, **kw)


def test_sweep_names_the_input_example_of_a_reversed_run_after_dropping_others():
    # example 1 is dropped (no references); example 2's tokens run backwards past 0.5
    text = ["abcdef"] * 3
    offs = [[[0, 3], [3, 6]], [[0, 3], [3, 6]], [[3, 6], [0, 2]]]
    scores = [[0.9, 0.1], [0.9, 0.1], [0.9, 0.9]]
    refs = [[[0, 3]], None, [[0, 3]]]
    with pytest.raises(mycelium.SpanValidationError) as caught:
        mycelium.sweep(refs, text=text, token_offsets=offs, token_scores=scores,
                       missing="drop")
    with pytest.raises(mycelium.SpanValidationError) as want:
        mycelium.evaluate(refs, text=text, token_offsets=offs, token_scores=scores,
                          threshold=0.0, missing="drop")
    assert caught.value.example == 2
    assert str(caught.value) == str(want.value)
