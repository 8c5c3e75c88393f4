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


def test_two_metrics_of_one_detector_hand_checked():
    # per example (REFS, A): iou 1, 1, 4/5, 0 (no reference, one predicted char), 7/9;
    # character f1 (zero_division 0): 1, 1, 8/9, 0, 14/16
    out = mycelium.explain(REFS, A, metric="iou", metric_b="character", n=None)
    assert out.attrs["quantity"] == "iou score - character f1 (macro)"
    assert out.attrs["method"] == "share"
    iou = [1.0, 1.0, 0.8, 0.0, 7 / 9]
    f1 = [1.0, 1.0, 8 / 9, 0.0, 14 / 16]
    by_example = out.set_index("example").sort_index()
    assert list(by_example.value_a) == pytest.approx(iou, abs=1e-12)
    assert list(by_example.value_b) == pytest.approx(f1, abs=1e-12)
    assert list(by_example.contribution) == pytest.approx(
        [(a - b) / 5 for a, b in zip(iou, f1)], abs=1e-12)
    measured = (value(REFS, A, "iou", "score", "macro")
                - value(REFS, A, "character", "f1", "macro"))
    assert out.attrs["difference"] == pytest.approx(measured, abs=1e-12)
    assert out.contribution.sum() == pytest.approx(measured, abs=1e-12)
    assert out.example.tolist()[:2] == [4, 2]  # 7/9 - 7/8 = -0.0972 first, then -0.0889


def test_two_measures_of_one_metric_micro_is_leave_one_out():
    out = mycelium.explain(REFS, B, metric="character", measure="precision",
                           measure_b="recall", average="micro", n=None)
    assert out.attrs["quantity"] == "character precision - character recall (micro)"
    assert out.attrs["method"] == "leave-one-out"
    full = (value(REFS, B, "character", "precision", "micro")
            - value(REFS, B, "character", "recall", "micro"))
    assert out.attrs["difference"] == pytest.approx(full, abs=1e-12)
    for i, c in zip(out.example, out.contribution):
        r, b = left_out(REFS, i), left_out(B, i)
        without = (value(r, b, "character", "precision", "micro")
                   - value(r, b, "character", "recall", "micro"))
        assert c == pytest.approx(full - without, abs=1e-12), i


def test_two_measures_errors_say_how_to_fix():
    with pytest.raises(ValueError, match="Expected either other .* got both"):
        mycelium.explain(REFS, A, B, metric_b="character")
    with pytest.raises(ValueError, match="Expected two different measures, got iou score "
                                         "twice"):
        mycelium.explain(REFS, A, metric_b="iou")


def test_explain_view_shows_the_top_examples_with_their_contributions():
    texts = ["abcdefghij", "abcdefg", "abcdef", "ab", "abcdefghijklmn"]
    out = mycelium.explain(REFS, A, B, text=texts, metric="iou", n=2)
    view = mycelium.explain_view(out, texts, REFS, A, B, labels=["A", "B"])
    assert [ex.title for ex in view.examples] == [
        f"example {int(e)} · contribution {c:+.4f} · A {va:.3f}, B {vb:.3f}"
        for e, c, va, vb in zip(out.example, out.contribution, out.value_a, out.value_b)]
    assert [ex.text for ex in view.examples] == [texts[i] for i in out.example]
    assert [name for name, _ in view.examples[0].rows] == ["A", "B"]
    assert view.examples[0].metrics[0] == {"iou": {"score": out.value_a[0]}}
    assert view.note == f"iou score (macro): A - B: {out.attrs['difference']:+.4f} over " \
                        "every example"
    two = mycelium.explain(REFS, A, text=texts, metric="iou", metric_b="character", n=1)
    shown = mycelium.explain_view(two, texts, REFS, A)
    assert shown.examples[0].title == ("example 4 · contribution -0.0194 · iou score 0.778, "
                                       "character f1 0.875")
    assert mycelium.explain_view(two, texts, REFS, A, labels=["A"]).examples[0].title == \
        shown.examples[0].title  # two measures of one detector: named by the measures
    macro = mycelium.explain(REFS, A, text=texts, metric="iou", n=1)
    assert " · a " in mycelium.explain_view(macro, texts, REFS, A).examples[0].title
    assert set(shown.examples[0].metrics[0]) == {"iou", "character"}
