"""Zero-length spans on the faces that score a call in parts (the Polars LazyFrame's
streamed batches, Spark's Arrow batches on the workers): still one
`mycelium.EmptySpanWarning` per call, raised where the user called, with the counts of
the whole call (SPEC section 2), as the dict face gives them."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import mycelium
from _optional import pl
from _spark_fixture import spark  # noqa: F401  (the session fixture)
from mycelium import EmptySpanWarning

TEXT = "0123456789"
#: inclusive ends read half-open: 1 empty reference span, 3 empty predicted ones
REFS = [[[7, 7], [0, 2]], [[3, 5]], [], [[1, 4]]]
PREDS = [[[8, 8]], [[3, 4], [5, 5]], [[9, 9]], [[1, 4]]]


def _spans(batch):
    return [[{"start": s, "end": e} for s, e in spans] for spans in batch]


def _caught(call):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = call()
    return result, [w for w in seen if issubclass(w.category, EmptySpanWarning)]


def _values(frame: pd.DataFrame) -> dict:
    return {(r["metric"], r["measure"]): r["value"] for r in frame.to_dict("records")}


def test_the_dict_face_counts_one_and_three():
    report, seen = _caught(lambda: mycelium.evaluate(REFS, PREDS, text=[TEXT] * 4))
    assert report["meta"]["empty_spans"] == {"references": 1, "predictions": 3}
    assert len(seen) == 1


@pytest.mark.parametrize("engine", ["auto", "streaming"])
def test_lazy_frame_warns_once_per_collect_with_the_whole_counts(engine, monkeypatch):
    pytest.importorskip("polars")
    from mycelium.frames import polars_lazy

    monkeypatch.setattr(polars_lazy, "_SLICE", 1)  # every row a slice of its own
    df = pl.DataFrame({"ref": _spans(REFS), "pred": _spans(PREDS), "text": [TEXT] * 4,
                       "g": ["a", "b", "a", "b"]})
    for by in (None, "g"):
        plan = df.lazy().mycelium.evaluate("ref", "pred", text="text", by=by)
        out, seen = _caught(lambda: plan.collect(engine=engine))
        assert len(seen) == 1, [str(w.message) for w in seen]
        warning = seen[0].message
        assert (warning.references, warning.predictions) == (1, 3)
        # the first in row order, named by its row in the LazyFrame
        assert warning.first.startswith("references example 0, span 0: [7, 7] (example 0 "
                                        "is the row's position in the LazyFrame's rows")
        assert seen[0].filename == __file__
        eager, seen = _caught(lambda: df.mycelium.evaluate("ref", "pred", text="text", by=by))
        assert len(seen) == 1 and out.equals(eager)
    # with token scores, at a threshold or not (the long rows of the score sums)
    offsets, scores = [[[0, 3], [3, 10]]] * 4, [[0.9, 0.1]] * 4
    df = df.with_columns(offsets=pl.Series(offsets), scores=pl.Series(scores))
    for pred_col, threshold, want in (("pred", None, (1, 3)), (None, 0.5, (1, 0))):
        plan = df.lazy().mycelium.evaluate("ref", pred_col, text="text", by="g",
                                           token_offsets_col="offsets",
                                           token_scores_col="scores", threshold=threshold)
        out, seen = _caught(lambda: plan.collect(engine=engine))
        assert [(w.message.references, w.message.predictions) for w in seen] == [want]
        assert seen[0].message.first.startswith("references example 0, span 0: [7, 7] ")
        eager, _ = _caught(lambda: df.mycelium.evaluate(
            "ref", pred_col, text="text", by="g", token_offsets_col="offsets",
            token_scores_col="scores", threshold=threshold))
        assert out.equals(eager)
    # nothing to say, nothing said
    fine = pl.DataFrame({"ref": _spans([[[0, 2]]]), "pred": _spans([[[1, 3]]])})
    _, seen = _caught(lambda: fine.lazy().mycelium.evaluate("ref", "pred").collect())
    assert seen == []


def test_spark_warns_once_on_the_driver_with_the_whole_counts(spark):  # noqa: F811
    from mycelium.frames import spark as spark_face

    rows = list(zip(["w", "x", "y", "z"], _spans(REFS), _spans(PREDS), [TEXT] * 4))
    schema = ("id string, ref array<struct<start: bigint, end: bigint>>, "
              "pred array<struct<start: bigint, end: bigint>>, text string")
    sdf = spark.createDataFrame(rows, schema).repartition(3)
    want = mycelium.evaluate(REFS, PREDS, text=[TEXT] * 4)
    for kwargs in ({}, {"id_col": "id"}, {"ci": 0.9, "n_resamples": 20, "id_col": "id"}):
        out, seen = _caught(lambda: spark_face.evaluate(sdf, "ref", "pred", text="text",
                                                        **kwargs))
        assert len(seen) == 1, [str(w.message) for w in seen]
        warning = seen[0].message
        assert (warning.references, warning.predictions) == (1, 3)
        assert seen[0].filename == __file__
        if "id_col" in kwargs:  # named by its id: a position means nothing on Spark
            assert " example with id " in warning.first, warning.first
        else:
            assert "Spark" in warning.first and "id_col" in warning.first, warning.first
        assert _values(out)[("iou", "score")] == want["iou"]["score"]
    # per type (the per-(group, type) sums)
    typed = [[{**span, "label": "A"} for span in spans] for spans in _spans(REFS)]
    typed_preds = [[{**span, "label": "A"} for span in spans] for spans in _spans(PREDS)]
    span_type = "array<struct<start: bigint, end: bigint, label: string>>"
    typed_sdf = spark.createDataFrame(list(zip(["w", "x", "y", "z"], typed, typed_preds,
                                               [TEXT] * 4)),
                                      f"id string, ref {span_type}, pred {span_type}, "
                                      "text string").repartition(2)
    out, seen = _caught(lambda: spark_face.evaluate(typed_sdf, "ref", "pred", text="text",
                                                    type_field="label"))
    assert [(w.message.references, w.message.predictions) for w in seen] == [(1, 3)]
    assert "Spark partition" in seen[0].message.first
    # with token scores (the long rows of the score sums, summed by Spark)
    scored = spark.createDataFrame(
        [(*row, [[0, 3], [3, 10]], [0.9, 0.1]) for row in rows],
        f"{schema}, offsets array<array<bigint>>, scores array<double>").repartition(2)
    for pred_col, threshold, want in (("pred", None, (1, 3)), (None, 0.5, (1, 0))):
        _, seen = _caught(lambda: spark_face.evaluate(
            scored, "ref", pred_col, text="text", token_offsets_col="offsets",
            token_scores_col="scores", threshold=threshold))
        assert [(w.message.references, w.message.predictions) for w in seen] == [want]
        assert "Spark partition" in seen[0].message.first
    clean = spark.createDataFrame([("v", [{"start": 0, "end": 2}], [{"start": 1, "end": 3}],
                                    TEXT)], schema)
    _, seen = _caught(lambda: spark_face.evaluate(clean, "ref", "pred"))
    assert seen == []
