"""Bad inputs raise the documented exception with a precise message (SPEC sections 2, 3
and 8); accepted input forms score exactly like the canonical list form."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mycelium
from mycelium import SpanValidationError

OK = [[[0, 1]], [[2, 4]]]  # a valid batch of two examples


def _batch_with(bad_span, k=1, j=0):
    """A batch of two examples whose example ``k`` has ``bad_span`` at position ``j``."""
    batch = [[[0, 1]], [[0, 1], [2, 3]]]
    batch[k] = [list(s) for s in batch[k]]
    batch[k][j] = bad_span
    return batch


# (id, references, predictions, keyword arguments, exception, message fragments)
BAD = [
    # --- bad spans: SpanValidationError naming side, example, span and the values ---
    ("negative-start", _batch_with([-1, 3]), OK, {}, SpanValidationError,
     ["references", "example 1", "span 0", "-1"]),
    ("start-after-end", OK, _batch_with([5, 3], j=1), {}, SpanValidationError,
     ["predictions", "example 1", "span 1", "5", "3"]),
    ("end-past-text", _batch_with([0, 6]), OK, {"text": ["ab", "abcde"]},
     SpanValidationError, ["references", "example 1", "span 0", "6", "5"]),
    ("non-integral-float", _batch_with([1.5, 3]), OK, {}, SpanValidationError,
     ["references", "example 1", "span 0", "1.5"]),
    ("nan", OK, _batch_with([0, math.nan]), {}, SpanValidationError,
     ["predictions", "example 1", "span 0", "nan"]),
    ("inf", OK, _batch_with([0, math.inf]), {}, SpanValidationError,
     ["predictions", "example 1", "span 0", "inf"]),
    ("bool", _batch_with([True, 3]), OK, {}, SpanValidationError,
     ["references", "example 1", "span 0", "True", "bool"]),
    ("string-offset", _batch_with(["0", 3]), OK, {}, SpanValidationError,
     ["references", "example 1", "span 0", "'0'"]),
    ("none-offset", _batch_with([None, 3]), OK, {}, SpanValidationError,
     ["references", "example 1", "span 0", "None"]),
    ("arity-3", _batch_with([1, 2, 3]), OK, {}, SpanValidationError,
     ["references", "example 1", "span 0", "[1, 2, 3]"]),
    ("arity-1", OK, _batch_with([1], j=1), {}, SpanValidationError,
     ["predictions", "example 1", "span 1", "[1]"]),
    ("dict-without-end", _batch_with({"start": 1}), OK, {}, SpanValidationError,
     ["references", "example 1", "span 0", "end"]),
    ("beyond-int64", _batch_with([0, 2**63]), OK, {}, SpanValidationError,
     ["references", "example 1", "span 0", str(2**63), "int64"]),
    ("below-int64", _batch_with([-(2**63) - 1, 0]), OK, {}, SpanValidationError,
     ["references", "example 1", "span 0", str(-(2**63) - 1)]),
    ("single-example-negative", [[-1, 3]], [[0, 1]], {}, SpanValidationError,
     ["references", "example 0", "span 0", "-1"]),
    ("single-example-past-text", [[0, 3]], [[0, 11]], {"text": "0123456789"},
     SpanValidationError, ["predictions", "example 0", "span 0", "11", "10"]),
    ("null-span-list-references", [[[0, 1]], None], OK, {}, SpanValidationError,
     ["references", "example 1", "missing"]),
    ("null-span-list-predictions", OK, [[[0, 1]], None], {"missing": "error"},
     SpanValidationError, ["predictions", "example 1", "missing"]),
    # --- shapes and lengths ---
    ("batch-lengths", [[[0, 1]], [[2, 3]]], [[[0, 1]], [[2, 3]], [[4, 5]]], {}, ValueError,
     ["2", "3", "references", "predictions"]),
    ("single-vs-batch", [[0, 1], [2, 3]], [[[0, 1]], [[2, 3]], [[4, 5]]], {}, ValueError,
     ["references", "predictions"]),
    ("text-length", OK, OK, {"text": ["ab"]}, ValueError, ["text", "1", "2"]),
    ("text-str-for-batch", OK, OK, {"text": "abcd"}, TypeError, ["text"]),
    ("text-wrong-type", [[0, 1]], [[0, 1]], {"text": 5}, TypeError, ["text", "int"]),
    # --- wrong top-level types ---
    ("int-references", 5, [[0, 1]], {}, TypeError, ["references", "int"]),
    ("int-predictions", [[0, 1]], 5, {}, TypeError, ["predictions", "int"]),
    ("none-references", None, [[0, 1]], {}, TypeError, ["references", "None"]),
    ("dict-references", {"start": 0, "end": 1}, [[0, 1]], {}, TypeError,
     ["references", "dict"]),
    ("str-predictions", [[0, 1]], "[[0, 1]]", {}, TypeError, ["predictions", "str"]),
    # --- bad option values ---
    ("metric-near-miss", [[0, 1]], [[0, 1]], {"metrics": ["iuo"]}, ValueError,
     ["'iuo'", "id you mean 'iou'", "exact_span", "iou", "character", "deteval_1d",
      "cleval_1d", "span_coverage"]),
    ("metric-unknown", [[0, 1]], [[0, 1]], {"metrics": ["bleu"]}, ValueError,
     ["'bleu'", "exact_span", "iou", "character", "deteval_1d", "cleval_1d",
      "span_coverage"]),
    ("metric-str-unknown", [[0, 1]], [[0, 1]], {"metrics": "charcter"}, ValueError,
     ["'charcter'", "id you mean 'character'"]),
    ("soft-metric-without-soft-labels", [[0, 1]], [[0, 1]],
     {"metrics": ["soft_spearman"]}, ValueError, ["soft_spearman", "soft_references"]),
    ("profile-unknown", [[0, 1]], [[0, 1]], {"profile": "mushroom"}, ValueError,
     ["'mushroom'", "mu_shroom", "ragtruth"]),
    ("profile-wrong-type", [[0, 1]], [[0, 1]], {"profile": 3}, TypeError, ["profile"]),
    ("average", [[0, 1]], [[0, 1]], {"average": "mean"}, ValueError,
     ["'mean'", "macro", "micro"]),
    ("zero-division-0.5", [[0, 1]], [[0, 1]], {"zero_division": 0.5}, ValueError,
     ["zero_division", "0.5"]),
    ("zero-division-word", [[0, 1]], [[0, 1]], {"zero_division": "loud"}, ValueError,
     ["zero_division", "'loud'"]),
    ("missing-option", [[0, 1]], [[0, 1]], {"missing": "skip"}, ValueError,
     ["missing", "'skip'", "error", "empty", "drop"]),
    ("params-unknown-key", [[0, 1]], [[0, 1]],
     {"params": {"deteval_1d": {"recall_thresh": 0.5}}}, ValueError,
     ["recall_thresh", "recall_threshold"]),
    ("params-unknown-metric", [[0, 1]], [[0, 1]], {"params": {"deteval": {}}}, ValueError,
     ["'deteval'", "deteval_1d"]),
    ("params-recall-threshold-0", [[0, 1]], [[0, 1]],
     {"params": {"deteval_1d": {"recall_threshold": 0.0}}}, ValueError,
     ["recall_threshold", "0.0"]),
    ("params-recall-threshold-1.5", [[0, 1]], [[0, 1]],
     {"params": {"deteval_1d": {"recall_threshold": 1.5}}}, ValueError,
     ["recall_threshold", "1.5"]),
    ("params-precision-threshold-neg", [[0, 1]], [[0, 1]],
     {"params": {"deteval_1d": {"precision_threshold": -0.1}}}, ValueError,
     ["precision_threshold", "-0.1"]),
    ("params-credit-1.5", [[0, 1]], [[0, 1]],
     {"params": {"deteval_1d": {"split_merge_credit": 1.5}}}, ValueError,
     ["split_merge_credit", "1.5"]),
    ("params-merge-credit-neg", [[0, 1]], [[0, 1]],
     {"params": {"deteval_1d": {"merge_credit": -1.0}}}, ValueError,
     ["merge_credit", "-1.0"]),
    ("params-area-threshold-0", [[0, 1]], [[0, 1]],
     {"params": {"cleval_1d": {"area_precision_threshold": 0.0}}}, ValueError,
     ["area_precision_threshold", "0.0"]),
    ("params-penalty-neg", [[0, 1]], [[0, 1]],
     {"params": {"cleval_1d": {"granularity_penalty_weight": -1.0}}}, ValueError,
     ["granularity_penalty_weight", "-1.0"]),
    ("params-nan", [[0, 1]], [[0, 1]],
     {"params": {"deteval_1d": {"recall_threshold": math.nan}}}, ValueError,
     ["recall_threshold", "nan"]),
    ("soft-references-alone", [[0, 1]], [[0, 1]],
     {"soft_references": [{"start": 0, "end": 1, "prob": 1.0}]}, ValueError,
     ["soft_references", "soft_predictions"]),
    ("soft-predictions-alone", [[0, 1]], [[0, 1]],
     {"soft_predictions": [{"start": 0, "end": 1, "prob": 1.0}]}, ValueError,
     ["soft_references", "soft_predictions"]),
]


@pytest.mark.parametrize("refs, preds, kwargs, exc, fragments",
                         [case[1:] for case in BAD], ids=[case[0] for case in BAD])
def test_bad_input_raises(refs, preds, kwargs, exc, fragments):
    with pytest.raises(exc) as info:
        mycelium.evaluate(refs, preds, **kwargs)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


SPAN_ERRORS = [case for case in BAD if case[4] is SpanValidationError]


@pytest.mark.parametrize("refs, preds, kwargs, exc, fragments",
                         [case[1:] for case in SPAN_ERRORS],
                         ids=[case[0] for case in SPAN_ERRORS])
def test_span_errors_from_statistics_too(refs, preds, kwargs, exc, fragments):
    kwargs = {k: v for k, v in kwargs.items() if k in ("text", "missing")}
    with pytest.raises(SpanValidationError) as info:
        mycelium.statistics(refs, preds, **kwargs)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_span_validation_error_is_a_value_error_and_has_location():
    assert issubclass(SpanValidationError, ValueError)
    assert issubclass(SpanValidationError, mycelium.MyceliumError)
    with pytest.raises(SpanValidationError) as info:
        mycelium.evaluate(OK, _batch_with([5, 3], j=1))
    err = info.value
    assert (err.side, err.example, err.span) == ("predictions", 1, 1)


def test_first_bad_span_is_reported():
    refs = [[[0, 1]], [[0, 1], [-2, 1], [4, 3]]]
    with pytest.raises(SpanValidationError) as info:
        mycelium.evaluate(refs, OK)
    assert "example 1, span 1" in str(info.value)


def test_options_are_keyword_only():
    with pytest.raises(TypeError):
        mycelium.evaluate([[0, 1]], [[0, 1]], "0")


def test_validation_happens_before_scoring_and_never_clips():
    # A span past the text must not be clipped to the text.
    with pytest.raises(SpanValidationError):
        mycelium.evaluate([[0, 3]], [[0, 4]], text="abc")
    # The same span without a text is fine.
    assert mycelium.evaluate([[0, 3]], [[0, 4]], metrics=["iou"])["iou"]["score"] == 0.75


# --------------------------------------------------------------------------------------
# Accepted forms
# --------------------------------------------------------------------------------------


def _scores(report):
    return {k: v for k, v in report.items() if k not in ("meta", "per_example")}


def _base():
    return mycelium.evaluate([[0, 10], [12, 15]], [[2, 8], [12, 15]])


@pytest.mark.parametrize("refs, preds", [
    (((0, 10), (12, 15)), ((2, 8), (12, 15))),  # tuples
    ([(0, 10), (12, 15)], [(2, 8), (12, 15)]),  # list of tuples
    ([{"start": 0, "end": 10, "label_type": "Evident Conflict"},
      {"end": 15, "start": 12, "note": None}],
     [{"start": 2, "end": 8}, {"start": 12, "end": 15, "prob": 0.9}]),  # dicts, extra keys
    ([[np.int64(0), np.int32(10)], [np.uint8(12), np.int16(15)]],
     [[np.int64(2), np.int64(8)], [np.int64(12), np.int64(15)]]),  # numpy scalars
    ([[0.0, 10.0], [12, 15.0]], [[2.0, 8], [np.float64(12.0), np.float32(15.0)]]),
    (np.array([[0, 10], [12, 15]]), np.array([[2, 8], [12, 15]])),  # (n, 2) = one example
    (np.array([[0, 10], [12, 15]], dtype=np.int32), [[2, 8], [12, 15]]),
    ([[12, 15], [0, 10], [0, 10], [5, 5]], [[12, 15], [2, 8]]),  # set semantics
], ids=["tuples", "list-of-tuples", "dicts", "numpy-scalars", "integral-floats",
        "numpy-2d", "numpy-int32", "duplicates-zero-length-order"])
def test_accepted_forms_score_like_lists(refs, preds):
    report = mycelium.evaluate(refs, preds)
    assert report["meta"]["examples"] == 1
    assert _scores(report) == _scores(_base())


def test_base_values():
    base = _base()
    # character: TP = 6 + 3, FP = 0, FN = 4; iou 9/13
    assert base["character"] == {"precision": 1.0, "recall": 9 / 13, "f1": 9 / 11}
    assert base["iou"] == {"score": 9 / 13}
    assert base["exact_span"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5}


def test_empty_forms():
    # [] is one example with no spans; [[]] a batch of one; [[], []] a batch of two.
    for refs, n in (([], 1), ([[]], 1), ([[], []], 2)):
        report = mycelium.evaluate(refs, refs, include_per_example=True)
        assert report["meta"]["examples"] == n
        assert len(report["per_example"]) == n
        assert report["iou"] == {"score": 1.0}
        assert report["character"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    report = mycelium.evaluate([], [], zero_division=1.0)
    assert report["character"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    # numpy (0, 2): one example with no spans
    report = mycelium.evaluate(np.empty((0, 2), dtype=np.int64), [[0, 3]], metrics=["iou"])
    assert report["meta"]["examples"] == 1 and report["iou"] == {"score": 0.0}


def test_empty_example_in_a_batch_is_a_span_set():
    report = mycelium.evaluate([[], [[0, 4]]], [[[0, 2]], [[0, 4]]], metrics=["character"],
                               include_per_example=True, average="micro")
    assert report["meta"]["examples"] == 2
    assert [e["character"]["precision"] for e in report["per_example"]] == [0.0, 1.0]
    assert report["character"] == {"precision": 4 / 6, "recall": 1.0, "f1": 0.8}


def test_text_accepts_longer_text_and_none_entries():
    report = mycelium.evaluate([[[0, 3]], [[0, 50]]], [[[0, 3]], [[1, 2]]],
                               text=["abcdef", None], metrics=["iou"])
    assert report["iou"]["score"] == pytest.approx((1.0 + 1 / 50) / 2, abs=1e-15)


MISSING_REFS = [[[0, 10]], None, [[4, 7]]]
MISSING_PREDS = [[[2, 8]], [[1, 2]], [[4, 7]]]


def test_missing_empty():
    got = mycelium.evaluate(MISSING_REFS, MISSING_PREDS, missing="empty",
                            include_per_example=True)
    expected = mycelium.evaluate([[[0, 10]], [], [[4, 7]]], MISSING_PREDS,
                                 include_per_example=True)
    assert _scores(got) == _scores(expected)
    assert got["per_example"] == expected["per_example"]
    assert got["meta"]["examples"] == 3
    assert got["per_example"][1]["character"] == {"precision": 0.0, "recall": 0.0,
                                                  "f1": 0.0}


def test_missing_drop():
    got = mycelium.evaluate(MISSING_REFS, MISSING_PREDS, missing="drop",
                            include_per_example=True)
    kept = mycelium.evaluate([[[0, 10]], [[4, 7]]], [[[2, 8]], [[4, 7]]],
                             include_per_example=True)
    assert _scores(got) == _scores(kept)
    assert got["meta"]["dropped"] == 1
    assert got["meta"]["examples"] == 2  # examples scored
    assert got["per_example"] == [kept["per_example"][0], None, kept["per_example"][1]]
    stats = mycelium.statistics(MISSING_REFS, MISSING_PREDS, missing="drop", metrics=["iou"])
    assert stats["iou"]["inter"].tolist() == [6, 3]
    assert stats["iou"]["union"].tolist() == [10, 3]


def test_missing_drop_prediction_side_and_both():
    refs = [[[0, 10]], [[1, 2]], None]
    preds = [None, [[1, 2]], None]
    got = mycelium.evaluate(refs, preds, missing="drop", include_per_example=True,
                            metrics=["iou"])
    assert got["meta"]["dropped"] == 2
    assert got["per_example"] == [None, {"iou": {"score": 1.0}}, None]
    assert got["iou"] == {"score": 1.0}


def test_missing_is_an_error_by_default_and_in_statistics():
    with pytest.raises(SpanValidationError):
        mycelium.statistics(MISSING_REFS, MISSING_PREDS)


def _all_params():
    from mycelium.metrics import METRICS

    return [(m.name, p) for m in METRICS.values() for p in m.params]


@pytest.mark.parametrize("metric,param", _all_params(), ids=lambda x: getattr(x, "name", x))
@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, 10**400],
                         ids=["inf", "-inf", "nan", "10**400"])
def test_every_parameter_must_be_finite(metric, param, value):
    # granularity_penalty_weight=inf used to pass validation and give NaN scores.
    with pytest.raises(ValueError) as err:
        mycelium.evaluate([[[0, 10]]], [[[0, 5], [5, 10]]], metrics=metric,
                          params={metric: {param.name: value}})
    msg = str(err.value)
    assert msg.startswith(f"Expected {param.expected}, got ")
    assert f"at params['{metric}']['{param.name}']; fix by" in msg


def test_numpy_parameter_values_are_accepted():
    a = mycelium.evaluate([[0, 10]], [[0, 5], [5, 10]], metrics="cleval_1d",
                          params={"cleval_1d": {"granularity_penalty_weight": np.float32(0.5)}})
    b = mycelium.evaluate([[0, 10]], [[0, 5], [5, 10]], metrics="cleval_1d",
                          params={"cleval_1d": {"granularity_penalty_weight": 0.5}})
    assert a["cleval_1d"] == b["cleval_1d"]
