"""``typed_span`` through `mycelium.evaluate`: the engine's values equal the view's
(`mycelium.views.typology.typed_span`, the slow obvious reference: the five counts of
each example, then the measures of `mycelium.metrics.typed_span.measures`), for every
scheme, micro and macro; options, errors and the signature."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from mycelium.metrics.typed_span import SCHEMES
from mycelium.views.typology import typed_span, typed_span_statistics

TYPES = ("Intrinsic", "Extrinsic", "Benign")


@st.composite
def example(draw):
    """One example's typed spans, overlapping ones and duplicates allowed."""
    n = draw(st.integers(0, 4))
    spans = []
    for _ in range(n):
        start = draw(st.integers(0, 20))
        end = draw(st.integers(start, 24))
        spans.append({"start": start, "end": end, "label": draw(st.sampled_from(TYPES))})
    return spans


batches = st.integers(1, 6).flatmap(
    lambda n: st.tuples(st.lists(example(), min_size=n, max_size=n),
                        st.lists(example(), min_size=n, max_size=n)))


def close(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        (math.isnan(a[k]) and math.isnan(b[k])) or a[k] == pytest.approx(b[k], abs=1e-12)
        for k in a)


@settings(max_examples=60, deadline=None)
@given(batches, st.sampled_from(SCHEMES), st.sampled_from(("micro", "macro")),
       st.sampled_from((0.0, 1.0)))
def test_evaluate_equals_the_view(batch, scheme, average, zero_division):
    refs, preds = batch
    r = mycelium.evaluate(refs, preds, metrics=["typed_span"], type_field="label",
                          params={"typed_span": {"scheme": scheme}}, average=average,
                          zero_division=zero_division)
    expected = typed_span(refs, preds, type_field="label", scheme=scheme, average=average,
                          zero_division=zero_division)
    assert close(r["typed_span"], expected)


@settings(max_examples=30, deadline=None)
@given(batches, st.sampled_from(SCHEMES))
def test_per_example_values_are_each_examples_view(batch, scheme):
    refs, preds = batch
    r = mycelium.evaluate(refs, preds, metrics="typed_span", type_field="label",
                          params={"typed_span": {"scheme": scheme}},
                          include_per_example=True)
    for k, row in enumerate(r["per_example"]):
        one = typed_span([refs[k]], [preds[k]], type_field="label", scheme=scheme)
        assert close(row["typed_span"], one)


def test_numbers_by_hand_and_the_signature():
    refs = [[{"start": 0, "end": 5, "label": "Intrinsic"},
             {"start": 10, "end": 20, "label": "Extrinsic"}]]
    preds = [[{"start": 0, "end": 5, "label": "Extrinsic"},
              {"start": 12, "end": 15, "label": "Extrinsic"}]]
    got = {s: mycelium.evaluate(refs, preds, metrics=["typed_span"], type_field="label",
                                params={"typed_span": {"scheme": s}}) for s in SCHEMES}
    # strict: 2 incorrect; exact: 1 correct 1 incorrect; partial: 1 correct 1 partial;
    # type: 1 correct ([12, 15) Extrinsic in [10, 20) Extrinsic) 1 incorrect.
    assert got["strict"]["typed_span"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert got["exact"]["typed_span"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    assert got["partial"]["typed_span"] == {"precision": 0.75, "recall": 0.75, "f1": 0.75}
    assert got["type"]["typed_span"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    for s in SCHEMES:
        meta = got[s]["meta"]
        assert meta["params"] == {"typed_span": {"scheme": s}}
        assert f"|typed_span.scheme:{s}|" in meta["signature"]
        assert mycelium.parse_signature(meta["signature"])["params"] == {
            "typed_span": {"scheme": s}}


def test_missing_drop_leaves_the_dropped_examples_out():
    refs = [[{"start": 0, "end": 4, "label": "A"}], None, [{"start": 5, "end": 9, "label": "B"}]]
    preds = [[{"start": 0, "end": 4, "label": "A"}], [{"start": 1, "end": 2, "label": "A"}],
             [{"start": 5, "end": 9, "label": "A"}]]
    r = mycelium.evaluate(refs, preds, metrics="typed_span", type_field="label",
                          missing="drop", average="micro", include_per_example=True)
    kept = [refs[0], refs[2]], [preds[0], preds[2]]
    assert r["typed_span"] == typed_span(*kept, type_field="label", average="micro")
    assert r["typed_span"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    assert r["meta"]["examples"] == 2 and r["meta"]["dropped"] == 1
    assert r["per_example"][1] is None
    assert r["per_example"][2]["typed_span"]["f1"] == 0.0


def test_beside_the_span_metrics_and_out_of_the_default_set():
    refs = [[{"start": 0, "end": 4, "label": "A"}]]
    preds = [[{"start": 0, "end": 4, "label": "B"}]]
    r = mycelium.evaluate(refs, preds, metrics=["iou", "typed_span"], type_field="label")
    assert list(r)[:2] == ["iou", "typed_span"]
    assert r["iou"] == {"score": 1.0} and r["typed_span"]["f1"] == 0.0
    assert "typed_span" not in mycelium.evaluate(refs, preds, type_field="label")
    assert "typed_span" not in mycelium.METRICS


def test_intervals_are_over_its_statistics():
    refs = [[{"start": 0, "end": 4, "label": "A"}]] * 3 + [[]]
    preds = [[{"start": 0, "end": 4, "label": "A"}]] * 3 + [[{"start": 1, "end": 2,
                                                              "label": "A"}]]
    r = mycelium.evaluate(refs, preds, metrics="typed_span", type_field="label",
                          average="micro", ci=0.9, n_resamples=200, seed=1)
    assert r["typed_span"]["recall"] == 1.0 and r["typed_span"]["precision"] == 0.75
    ci = r["ci"]["typed_span"]
    assert ci["recall"] == {"low": 1.0, "high": 1.0}
    assert 0.0 <= ci["precision"]["low"] <= 0.75 <= ci["precision"]["high"] == 1.0


def test_the_view_statistics_are_what_the_engine_sums():
    refs = [[{"start": 0, "end": 10, "label": "U"}], [{"start": 3, "end": 5, "label": "Q"}]]
    preds = [[{"start": 0, "end": 6, "label": "U"}], [{"start": 3, "end": 5, "label": "U"}]]
    st_ = typed_span_statistics(refs, preds, type_field="label", scheme="partial")
    assert {k: v.tolist() for k, v in st_.items()} == {
        "correct": [0, 1], "incorrect": [0, 0], "partial": [1, 0], "missed": [0, 0],
        "spurious": [0, 0]}
    r = mycelium.evaluate(refs, preds, metrics="typed_span", type_field="label",
                          params={"typed_span": {"scheme": "partial"}}, average="micro")
    assert r["typed_span"] == {"precision": 0.75, "recall": 0.75, "f1": 0.75}


def test_refusals():
    refs = [[{"start": 0, "end": 4, "label": "A"}]]
    with pytest.raises(ValueError, match=r"Did you mean 'strict'\?"):
        mycelium.evaluate(refs, refs, metrics="typed_span", type_field="label",
                          params={"typed_span": {"scheme": "stric"}})
    with pytest.raises(ValueError, match="Expected type_field= with metric 'typed_span'"):
        mycelium.evaluate(refs, refs, metrics="typed_span")
    with pytest.raises(ValueError, match="Did you mean 'typed_span'"):
        mycelium.evaluate(refs, refs, metrics="typed_spam", type_field="label")
    with pytest.raises(ValueError, match="granularity='char' with typed_span"):
        mycelium.evaluate(refs, refs, metrics="typed_span", type_field="label",
                          granularity="word", text=["abcd efgh"])
    with pytest.raises(KeyError, match="no span has a 'kind' field"):
        mycelium.evaluate(refs, refs, metrics="typed_span", type_field="kind")


def test_the_frame_face_gives_its_rows_with_a_null_type():
    # typed_span compares the types itself: on a frame with type_field, its rows are over
    # all types (type null), before the per-type rows of the other metrics.
    df = pd.DataFrame({"ref": [[{"start": 0, "end": 4, "label": "A"}]],
                       "pred": [[{"start": 0, "end": 4, "label": "B"}]]})
    out = df.mycelium.evaluate("ref", "pred", metrics=["typed_span"], type_field="label",
                               params={"typed_span": {"scheme": "exact"}})
    assert out[["type", "metric", "measure", "value"]].values.tolist() == [
        [None, "typed_span", "precision", 1.0], [None, "typed_span", "recall", 1.0],
        [None, "typed_span", "f1", 1.0], ["A", "counts", "n_ref", 1.0]]
