"""`mycelium.explain`: each contribution is the difference minus the difference with the
example left out, checked against re-scoring without it with `mycelium.evaluate`."""

from __future__ import annotations

import numpy as np
import pytest

import mycelium

REFS = [[[0, 10]], [[4, 7]], [[0, 5]], [], [[2, 9], [12, 14]]]
A = [[[0, 10]], [[4, 7]], [[0, 4]], [[1, 2]], [[2, 9]]]
B = [[[0, 8]], [], [[0, 5]], [], [[3, 14]]]


def value(refs, preds, metric, measure, average):
    return mycelium.evaluate(refs, preds, metrics=[metric], average=average)[metric][measure]


def left_out(seq, i):
    return [x for k, x in enumerate(seq) if k != i]


@pytest.mark.parametrize("metric,measure", [("iou", "score"), ("character", "f1"),
                                            ("deteval_1d", "recall")])
@pytest.mark.parametrize("average", ["macro", "micro"])
def test_two_detectors_contributions(metric, measure, average):
    out = mycelium.explain(REFS, A, B, metric=metric, measure=measure, average=average,
                           n=None)
    full = value(REFS, A, metric, measure, average) - value(REFS, B, metric, measure, average)
    assert out.attrs["difference"] == pytest.approx(full, abs=1e-12)
    assert list(np.abs(out.contribution)) == sorted(np.abs(out.contribution), reverse=True)
    if average == "macro":  # shares of the difference: they add up to it
        assert out.attrs["method"] == "share"
        assert out.contribution.sum() == pytest.approx(full, abs=1e-12)
        assert list(out.contribution) == pytest.approx(
            list((out.value_a - out.value_b) / len(REFS)), abs=1e-12)
        return
    assert out.attrs["method"] == "leave-one-out"
    for i, c in zip(out.example, out.contribution):
        without = (value(left_out(REFS, i), left_out(A, i), metric, measure, average)
                   - value(left_out(REFS, i), left_out(B, i), metric, measure, average))
        assert c == pytest.approx(full - without, abs=1e-12), i


def test_macro_minus_micro_of_one_detector():
    out = mycelium.explain(REFS, B, metric="character", n=2)
    macro, micro = (value(REFS, B, "character", "f1", avg) for avg in ("macro", "micro"))
    assert out.attrs["quantity"] == "character f1: macro - micro"
    assert out.attrs["difference"] == pytest.approx(macro - micro, abs=1e-12)
    i = int(out.example[0])
    without = (value(left_out(REFS, i), left_out(B, i), "character", "f1", "macro")
               - value(left_out(REFS, i), left_out(B, i), "character", "f1", "micro"))
    assert out.contribution[0] == pytest.approx(macro - micro - without, abs=1e-12)
    assert len(out) == 2 and out.value_b.isna().all()


def test_bad_measure_names_the_valid_ones():
    with pytest.raises(ValueError, match=r"Expected a measure of 'iou' \(score\), got 'f1'"):
        mycelium.explain(REFS, A, B, metric="iou", measure="f1")
