"""Common input mistakes never give a confident wrong number: offsets that are not
integers are refused, an empty batch is a batch, zero scored examples give no score,
and the messages name what the user wrote (SPEC sections 2, 3 and 9)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import mycelium
from mycelium import SpanValidationError
from mycelium.integrations.transformers import compute_metrics_for
from mycelium.scores.thresholds import sweep

TEXT = "abcdefgh"


# ------------------------------------------------- offsets that are not integers

@pytest.mark.parametrize("span", [[np.bool_(False), 3], [0, np.bool_(True)],
                                  (np.bool_(True), 3), {"start": np.bool_(False), "end": 3}])
def test_numpy_bool_offsets_are_refused(span):
    with pytest.raises(SpanValidationError) as info:
        mycelium.evaluate([[0, 3]], [span], text=TEXT)
    message = str(info.value)
    assert "predictions example 0, span 0" in message and "bool" in message
    with pytest.raises(SpanValidationError, match="bool"):
        mycelium.evaluate([[[0, 3]], [[1, 2]]], [[[0, 3]], [span]])
    with pytest.raises(SpanValidationError, match="bool"):
        mycelium.to_spans([[span]])


@pytest.mark.parametrize("span", [{0, 3}, frozenset((1, 4))])
def test_a_set_is_refused_as_a_span(span):
    # A set has no order: which offset is the start would depend on hash order.
    for refs, preds in (([span], [[0, 3]]), ([[span]], [[[0, 3]]]),
                        ([[[0, 3]], [span]], [[[0, 3]], [[0, 3]]]),
                        ([[{"start": 0, "end": 3}], [span]], [[[0, 3]], [[0, 3]]]),
                        ([[span, {"start": 0, "end": 3}]], [[[0, 3]]])):
        with pytest.raises(SpanValidationError) as info:
            mycelium.evaluate(refs, preds)
        assert "set" in str(info.value) and "unordered" in str(info.value)
    with pytest.raises(SpanValidationError, match="unordered"):
        mycelium.to_spans([[span]])


# ------------------------------------------------------- an empty batch is a batch

def _zero_row_report(**kwargs):
    empty = pd.Series([], dtype=object)
    return mycelium.evaluate(empty, empty, text=empty, **kwargs)


def _same(a, b):
    assert a.keys() == b.keys()
    for key in a:
        if key == "meta":
            continue
        for measure, value in a[key].items():
            other = b[key][measure]
            assert (math.isnan(value) and math.isnan(other)) or value == other, (key, measure)


@pytest.mark.parametrize("kwargs", [{}, {"profile": "ragtruth"}, {"average": "micro"}])
def test_empty_batch_of_lists_is_a_zero_row_batch(kwargs):
    report = mycelium.evaluate([], [], text=[], **kwargs)
    assert report["meta"]["examples"] == 0
    _same(report, _zero_row_report(**kwargs))
    assert mycelium.evaluate([], [], text=(), **kwargs)["meta"]["examples"] == 0


def test_empty_batch_token_and_soft_forms():
    token = mycelium.evaluate([], text=[], token_offsets=[], token_scores=[])
    assert token["meta"]["examples"] == 0
    assert all(math.isnan(token[m]["score"]) for m in ("char_auroc", "char_ap"))
    both = mycelium.evaluate([], [], text=[], token_offsets=[], token_scores=[])
    assert both["meta"]["examples"] == 0 and math.isnan(both["iou"]["score"])
    soft = mycelium.evaluate([], text=[], soft_predictions=[])
    assert soft["meta"]["examples"] == 0 and math.isnan(soft["char_auroc"]["score"])
    spearman = mycelium.evaluate([], [], text=[], soft_references=[], soft_predictions=[])
    assert spearman["meta"]["examples"] == 0


def test_empty_batch_sweep():
    for form in ({"token_offsets": [], "token_scores": []}, {"soft_predictions": []}):
        table = sweep([], text=[], **form)
        assert (table["examples"] == 0).all() and table["value"].isna().all()


def test_empty_batch_compute_metrics_for():
    compute = compute_metrics_for([], [], [], metrics=["iou", "char_auroc"], threshold=0.5)
    out = compute((np.zeros((0, 4, 2)), np.zeros((0, 4), dtype=np.int64)))
    assert set(out) == {"iou_score", "char_auroc_score"}
    assert all(math.isnan(v) for v in out.values())
    assert compute.report((np.zeros((0, 4, 2)), None))["meta"]["examples"] == 0


# ----------------------------------------------- zero scored examples: no score

def test_zero_kept_examples_give_no_micro_iou():
    refs, preds = [[[0, 3]], [[1, 2]]], [None, None]
    report = mycelium.evaluate(refs, preds, profile="ragtruth", missing="drop",
                               text=[TEXT, TEXT])
    assert report["meta"]["examples"] == 0
    assert math.isnan(report["iou"]["score"])
    micro = mycelium.evaluate(refs, preds, average="micro", missing="drop")
    assert math.isnan(micro["iou"]["score"])
    # the same per group in the frames, beside a group that has examples
    df = pd.DataFrame({"ref": [[[0, 3]], [[1, 2]], [[0, 1]]], "pred": [None, None, [[0, 1]]],
                       "g": ["a", "a", "b"], "text": [TEXT] * 3})
    table = df.mycelium.evaluate("ref", "pred", text="text", profile="ragtruth",
                                 missing="drop", by="g", metrics=["iou"])
    values = dict(zip(table["g"], table["value"]))
    assert math.isnan(values["a"]) and values["b"] == 1.0
    assert dict(zip(table["g"], table["examples"])) == {"a": 0, "b": 1}
    pl = pytest.importorskip("polars")
    table = pl.from_pandas(df[["g", "text"]]).with_columns(
        ref=pl.Series([[{"start": 0, "end": 3}], [{"start": 1, "end": 2}],
                       [{"start": 0, "end": 1}]]),
        pred=pl.Series([None, None, [{"start": 0, "end": 1}]],
                       dtype=pl.List(pl.Struct({"start": pl.Int64, "end": pl.Int64}))),
    ).mycelium.evaluate("ref", "pred", text="text", profile="ragtruth", missing="drop",
                        by="g", metrics=["iou"]).sort("g")
    assert math.isnan(table["value"][0]) and table["value"][1] == 1.0


def test_zero_kept_examples_accumulator():
    acc = mycelium.Accumulator(profile="ragtruth", missing="drop", metrics=["iou"])
    acc.update([[[0, 3]]], [None], text=[TEXT])
    report = acc.compute()
    assert report["meta"]["examples"] == 0 and math.isnan(report["iou"]["score"])


# ------------------------------------------------------------------- messages

def test_soft_label_prob_error_names_the_span_and_a_plain_value():
    with pytest.raises(SpanValidationError) as info:
        mycelium.evaluate([[0, 2]], text=TEXT,
                          soft_predictions=[{"start": 0, "end": 2, "prob": np.float64("nan")}])
    message = str(info.value)
    assert "soft_predictions example 0, span 0" in message
    assert "token" not in message.split(":")[0]
    assert "np.float64" not in message and "got nan" in message
    with pytest.raises(SpanValidationError) as info:
        mycelium.evaluate([[0, 2]], text=TEXT, token_offsets=[[0, 2]],
                          token_scores=[np.float32(1.5)])
    assert "token_scores example 0, token 0" in str(info.value)
    assert "np.float32" not in str(info.value) and "got 1.5" in str(info.value)
