"""Parquet round trips: every reader opens mycelium's files, and mycelium restores them."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import mycelium
from mycelium import SPAN_TYPE
from mycelium.core.inputs import Inputs
from mycelium.core.settings import resolve_settings
from mycelium.frames.engine import evaluate_table
from mycelium.io import ANNOTATIONS_TYPE, RAGTRUTH_LABEL_TYPE, SOFT_SPAN_TYPE

SPAN = pd.ArrowDtype(SPAN_TYPE)
REF = [[{"start": 0, "end": 10}], [{"start": 4, "end": 7}, {"start": 9, "end": 12}], [],
       None]
PRED = [[{"start": 2, "end": 8}], [{"start": 4, "end": 7}], None, []]


def _frame() -> pd.DataFrame:
    return pd.DataFrame({
        "id": ["a", "b", "c", "d"],
        "model": ["m1", "m2", None, "m1"],
        "n": [1, 2, 3, 4],
        "x": [0.5, np.nan, 1.25, 2.0],
        "ref": pd.Series(REF, dtype=SPAN),
        "pred": pd.Series(PRED, dtype=SPAN),
    })


def _as_lists(values) -> list:
    """Span cells as plain lists (None for nulls), whatever container a reader made."""
    out = []
    for v in values:
        if v is None or v is pd.NA:
            out.append(None)
        else:
            out.append([dict(s) for s in list(v)])
    return out


@pytest.fixture
def written(tmp_path):
    path = tmp_path / "spans.parquet"
    mycelium.write_parquet(_frame(), path)
    return path


def test_plain_pandas_reads_span_columns(written):
    df = pd.read_parquet(written)
    assert df["ref"].dtype == object and df["pred"].dtype == object
    assert _as_lists(df["ref"]) == REF
    assert _as_lists(df["pred"]) == PRED
    expected = _frame().drop(columns=["ref", "pred"])
    pd.testing.assert_frame_equal(df.drop(columns=["ref", "pred"]), expected)
    assert isinstance(df.index, pd.RangeIndex) and len(df) == 4


def test_plain_pandas_pyarrow_backend(written):
    df = pd.read_parquet(written, dtype_backend="pyarrow")
    assert isinstance(df["ref"].dtype, pd.ArrowDtype)
    assert df["ref"].tolist()[:3] == REF[:3] and df["ref"].isna().tolist() == [
        False, False, False, True]
    assert _as_lists(df["pred"]) == PRED
    assert df["n"].tolist() == [1, 2, 3, 4]


def test_polars_reads(written, pl):
    df = pl.read_parquet(written)
    assert df.schema["ref"] == pl.List(pl.Struct({"start": pl.Int64, "end": pl.Int64}))
    assert df["ref"].to_list() == REF
    assert df["pred"].to_list() == PRED
    assert df["model"].to_list() == ["m1", "m2", None, "m1"]


def test_mycelium_restores_dtypes_exactly(written):
    back = mycelium.read_parquet(written)
    assert back["ref"].dtype == SPAN and back["pred"].dtype == SPAN
    pd.testing.assert_frame_equal(back, _frame())


def test_metadata_layout(written):
    meta = pq.read_schema(written).metadata
    assert json.loads(meta[b"mycelium"]) == {
        "format": 1, "span_columns": ["ref", "pred"], "arrow_columns": ["ref", "pred"],
        "object_text_columns": []}
    assert b"mycelium.signature" not in meta
    pandas_meta = {c["name"]: c for c in json.loads(meta[b"pandas"])["columns"]}
    assert pandas_meta["ref"]["numpy_type"] == "object"
    assert pandas_meta["n"]["numpy_type"] == "int64"
    # RangeIndex is metadata only, as pandas does it
    assert pq.read_schema(written).names == ["id", "model", "n", "x", "ref", "pred"]


def test_plain_to_parquet_is_what_crashes(tmp_path):
    """The pandas behaviour worked around: DataFrame.to_parquet writes files with nested
    ArrowDtype columns that pd.read_parquet cannot read back."""
    path = tmp_path / "plain.parquet"
    _frame().to_parquet(path)
    try:
        pd.read_parquet(path)
    except TypeError as exc:
        assert "not understood" in str(exc)
    else:
        pytest.skip(f"pandas {pd.__version__} reads nested ArrowDtype columns back; the "
                    "pandas-metadata rewrite in write_parquet is no longer needed.")


def test_nulls_and_empty_lists_every_reader(tmp_path, pl):
    df = pd.DataFrame({"s": pd.Series([None, [], None, []], dtype=SPAN)})
    path = tmp_path / "nulls.parquet"
    mycelium.write_parquet(df, path)
    assert _as_lists(pd.read_parquet(path)["s"]) == [None, [], None, []]
    assert pd.read_parquet(path, dtype_backend="pyarrow")["s"].isna().tolist() == [
        True, False, True, False]
    assert pl.read_parquet(path)["s"].to_list() == [None, [], None, []]
    back = mycelium.read_parquet(path)
    pd.testing.assert_frame_equal(back, df)
    assert back["s"].isna().sum() == 2


def test_all_null_and_empty_frame(tmp_path):
    df = pd.DataFrame({"s": pd.Series([None, None], dtype=SPAN)})
    mycelium.write_parquet(df, tmp_path / "a.parquet")
    pd.testing.assert_frame_equal(mycelium.read_parquet(tmp_path / "a.parquet"), df)
    empty = df.iloc[:0]
    mycelium.write_parquet(empty, tmp_path / "b.parquet")
    assert pd.read_parquet(tmp_path / "b.parquet").shape == (0, 1)
    back = mycelium.read_parquet(tmp_path / "b.parquet")
    assert back.shape == (0, 1) and back["s"].dtype == SPAN


def test_object_column_of_dicts_restored_as_span_type(tmp_path):
    df = pd.DataFrame({"ref": [[{"end": 3, "start": 0}], [], None]})
    path = tmp_path / "dicts.parquet"
    mycelium.write_parquet(df, path)
    assert _as_lists(pd.read_parquet(path)["ref"]) == [[{"end": 3, "start": 0}], [], None]
    back = mycelium.read_parquet(path)
    assert back["ref"].dtype == SPAN  # struct fields reordered to start, end
    assert back["ref"].tolist()[:2] == [[{"start": 0, "end": 3}], []]


def test_spans_read_by_plain_pandas_still_evaluate(written):
    """Object columns of dict arrays, as the default reader makes them, are valid input."""
    plain = pd.read_parquet(written).iloc[:2]
    restored = mycelium.read_parquet(written).iloc[:2]
    a = plain.mycelium.evaluate("ref", "pred", metrics=["iou", "exact_span"])
    b = restored.mycelium.evaluate("ref", "pred", metrics=["iou", "exact_span"])
    pd.testing.assert_frame_equal(a, b)
    # iou (6/10 + 3/6) / 2; exact_span P (0 + 1) / 2, R (0 + 1/2) / 2, F1 (0 + 2/3) / 2
    assert a["value"].tolist() == pytest.approx([0.55, 0.5, 0.25, 1 / 3], abs=1e-15)


def test_index_semantics(tmp_path):
    df = _frame().set_index("id")
    path = tmp_path / "indexed.parquet"
    mycelium.write_parquet(df, path)
    assert "id" in pq.read_schema(path).names  # a real index is stored as a column
    pd.testing.assert_frame_equal(mycelium.read_parquet(path), df)
    assert pd.read_parquet(path).index.tolist() == ["a", "b", "c", "d"]
    mycelium.write_parquet(df, tmp_path / "noindex.parquet", index=False)
    back = mycelium.read_parquet(tmp_path / "noindex.parquet")
    assert isinstance(back.index, pd.RangeIndex) and "id" not in back.columns
    sliced = _frame().iloc[1:3]  # a RangeIndex with start 1 is kept as metadata
    mycelium.write_parquet(sliced, tmp_path / "sliced.parquet")
    pd.testing.assert_frame_equal(mycelium.read_parquet(tmp_path / "sliced.parquet"), sliced)


def test_columns_subset(written):
    back = mycelium.read_parquet(written, columns=["id", "pred"])
    assert list(back.columns) == ["id", "pred"] and back["pred"].dtype == SPAN
    assert _as_lists(back["pred"]) == PRED


# ------------------------------------------------------------------ result frames

def _result() -> pd.DataFrame:
    df = pd.DataFrame({"model": ["a", "a", "b"], "ref": [[[0, 10]], [[4, 7]], [[0, 5]]],
                       "pred": [[[2, 8]], [[4, 7]], []]})
    return df.mycelium.evaluate("ref", "pred", by="model", profile="ragtruth")


def test_result_frame_keeps_signature_with_every_reader(tmp_path, pl):
    result = _result()
    signature = result.attrs["mycelium_signature"]
    assert signature.startswith("mycelium:") and "profile:ragtruth" in signature
    path = tmp_path / "result.parquet"
    mycelium.write_parquet(result, path)
    assert pq.read_schema(path).metadata[b"mycelium.signature"].decode() == signature
    assert pd.read_parquet(path).attrs["mycelium_signature"] == signature
    pyarrow_read = pd.read_parquet(path, dtype_backend="pyarrow")
    assert pyarrow_read.attrs["mycelium_signature"] == signature
    assert pyarrow_read["value"].tolist() == result["value"].tolist()
    assert pl.read_parquet(path)["value"].to_list() == result["value"].tolist()
    assert pl.read_parquet_metadata(path)["mycelium.signature"] == signature
    back = mycelium.read_parquet(path)
    # No span columns here: mycelium reads the values pandas reads, and gives back the
    # frame as written (the ``object`` profile column stays object with None, where
    # pandas 3 reads ``str`` with NaN).
    pd.testing.assert_frame_equal(back, pd.read_parquet(path), check_dtype=False)
    pd.testing.assert_frame_equal(back, result)
    assert back.attrs == result.attrs
    assert mycelium.parse_signature(back.attrs["mycelium_signature"]) == \
        mycelium.parse_signature(signature)


def test_pandas_to_parquet_keeps_attrs(tmp_path):
    """pandas 3 stores attrs itself (PANDAS_ATTRS); result frames have no nested columns."""
    result = _result()
    path = tmp_path / "native.parquet"
    result.to_parquet(path)
    assert pd.read_parquet(path).attrs == result.attrs
    assert mycelium.read_parquet(path).attrs == result.attrs


def test_score_frame_round_trip(tmp_path):
    df = pd.DataFrame({"ref": [[[0, 10]], [[4, 7]]], "pred": [[[2, 8]], []]},
                      index=pd.Index([10, 20], name="row"))
    scores = df.mycelium.score("ref", "pred", metrics="iou")
    mycelium.write_parquet(scores, tmp_path / "scores.parquet")
    back = mycelium.read_parquet(tmp_path / "scores.parquet")
    pd.testing.assert_frame_equal(back, scores)
    assert back.attrs == scores.attrs and back["iou_score"].tolist() == [0.6, 0.0]


def test_arrow_result_table_keeps_signature(tmp_path):
    table = evaluate_table(Inputs([[[0, 10]]], [[[2, 8]]]), resolve_settings(metrics="iou"))
    signature = table.schema.metadata[b"mycelium.signature"].decode()
    mycelium.write_parquet(table, tmp_path / "t.parquet")
    back = mycelium.read_parquet(tmp_path / "t.parquet")
    assert back.attrs["mycelium_signature"] == signature
    assert back["value"].tolist() == [0.6]


def test_explicit_signature_wins(tmp_path):
    mycelium.write_parquet(_result(), tmp_path / "s.parquet", signature="custom")
    assert mycelium.read_parquet(tmp_path / "s.parquet").attrs["mycelium_signature"] == "custom"


# ------------------------------------------------------------------------ Polars

def test_polars_frame_written_with_metadata(tmp_path, pl):
    frame = pl.DataFrame({"ref": REF, "pred": PRED, "k": [1, 2, 3, 4]})
    path = tmp_path / "polars.parquet"
    mycelium.write_parquet(frame, path, signature="sig")
    assert pl.read_parquet(path).equals(frame)
    assert _as_lists(pd.read_parquet(path)["ref"]) == REF
    back = mycelium.read_parquet(path)
    assert back["ref"].dtype == SPAN and back["pred"].dtype == SPAN  # from large_list
    assert _as_lists(back["pred"]) == PRED and back["k"].tolist() == [1, 2, 3, 4]
    assert back.attrs == {"mycelium_signature": "sig"}


def test_files_written_by_others(tmp_path, pl):
    """No mycelium metadata: span columns are recognised by type, the rest as pandas reads."""
    path = tmp_path / "native.parquet"
    pl.DataFrame({"ref": REF, "tags": [["x"], [], None, ["y"]]}).write_parquet(path)
    back = mycelium.read_parquet(path)
    assert back["ref"].dtype == SPAN and _as_lists(back["ref"]) == REF
    assert back["tags"].dtype == object
    plain = tmp_path / "pandas.parquet"
    pd.DataFrame({"ref": [[{"start": 1, "end": 2}], []]}).to_parquet(plain)
    assert mycelium.read_parquet(plain)["ref"].tolist() == [[{"start": 1, "end": 2}], []]
    assert mycelium.read_parquet(plain)["ref"].dtype == SPAN


def test_arrow_table_with_stale_pandas_metadata(tmp_path):
    """A table from pa.Table.from_pandas carries the unreadable dtype string: fixed too."""
    table = pa.Table.from_pandas(_frame())
    mycelium.write_parquet(table, tmp_path / "t.parquet")
    assert _as_lists(pd.read_parquet(tmp_path / "t.parquet")["ref"]) == REF


# --------------------------------------------------------------- loader frames

def test_loader_frames_round_trip(tmp_path):
    record = {"id": "val-en-1", "lang": "EN", "model_input": "Q?", "model_id": "m",
              "model_output_text": "Paris is in Italy.", "hard_labels": [[12, 17]],
              "soft_labels": [{"start": 12, "prob": 0.6666666667, "end": 17},
                              {"start": 0, "prob": 0.3333333333, "end": 5}],
              "annotations": {"a1": [[12, 17], [3, 3]], "a2": []}}
    src = tmp_path / "mushroom.en-val.v2.extra.jsonl"
    src.write_text(json.dumps(record) + "\n", encoding="utf-8")
    df = mycelium.read_mushroom(src)
    path = tmp_path / "mushroom.parquet"
    mycelium.write_parquet(df, path)
    back = mycelium.read_parquet(path)
    pd.testing.assert_frame_equal(back, df)
    assert back["soft_labels"].dtype == pd.ArrowDtype(SOFT_SPAN_TYPE)
    assert back["annotations"].dtype == pd.ArrowDtype(ANNOTATIONS_TYPE)
    plain = pd.read_parquet(path)
    assert plain["annotations"][0][0]["spans"].tolist() == [
        {"start": 12, "end": 17}, {"start": 3, "end": 3}]
    meta = json.loads(pq.read_schema(path).metadata[b"mycelium"])
    assert meta["span_columns"] == ["hard_labels", "soft_labels"]
    assert meta["arrow_columns"] == ["hard_labels", "soft_labels", "annotations"]


def test_ragtruth_labels_round_trip(tmp_path):
    labels = pa.array([[{"start": 1, "end": 3, "label_type": "Evident Conflict",
                         "implicit_true": False, "due_to_null": True, "text": "bc",
                         "meta": None}], []], RAGTRUTH_LABEL_TYPE)
    df = pd.DataFrame({"labels": pd.Series(labels, dtype=pd.ArrowDtype(labels.type))})
    mycelium.write_parquet(df, tmp_path / "r.parquet")
    pd.testing.assert_frame_equal(mycelium.read_parquet(tmp_path / "r.parquet"), df)
    assert pd.read_parquet(tmp_path / "r.parquet")["labels"][0][0]["due_to_null"]


# ------------------------------------------------------------------------ errors

def test_bad_arguments(tmp_path):
    with pytest.raises(TypeError, match="expected a pandas DataFrame"):
        mycelium.write_parquet({"a": [1]}, tmp_path / "x.parquet")
    mycelium.write_parquet(_frame(), tmp_path / "ok.parquet")
    with pytest.raises(ValueError, match="dtype_backend"):
        mycelium.read_parquet(tmp_path / "ok.parquet", dtype_backend="numpy")
    df = _frame()
    df.attrs["bad"] = object()
    with pytest.raises(TypeError, match="JSON-serialisable"):
        mycelium.write_parquet(df, tmp_path / "y.parquet")


def test_numpy_nullable_backend(written):
    back = mycelium.read_parquet(written, dtype_backend="numpy_nullable")
    assert back["n"].dtype == pd.Int64Dtype() and back["ref"].dtype == SPAN
    assert back["x"].isna().tolist() == [False, True, False, False]


# ------------------------------------------------------------ spans= : pairs typed by name

def test_spans_names_columns_of_pairs_dicts_and_json(tmp_path):
    path = tmp_path / "pairs.parquet"
    pq.write_table(pa.table({"pairs": [[[0, 10]], None, []],
                             "dicts": [[{"start": 1, "end": 2}], [], None],
                             "json": ['[[4, 7], [9, 12]]', "[]", None],
                             "offsets": [[[0, 1], [1, 2]], [], []]}), path)
    df = mycelium.read_parquet(path, spans=["pairs", "dicts", "json"])
    for name in ("pairs", "dicts", "json"):
        assert df[name].dtype == pd.ArrowDtype(mycelium.SPAN_TYPE), name
    assert df["pairs"].tolist()[0] == [{"start": 0, "end": 10}]
    assert df["pairs"].isna().tolist() == [False, True, False]
    assert df["json"].tolist()[0] == [{"start": 4, "end": 7}, {"start": 9, "end": 12}]
    assert df["offsets"].dtype == object            # not named: left as pandas reads it
    assert list(df.columns) == ["pairs", "dicts", "json", "offsets"]
    # the typed column scores as the untyped one does
    assert mycelium.evaluate(df["pairs"], df["json"], missing="empty")["iou"] == \
        mycelium.evaluate([[[0, 10]], [], []], [[[4, 7], [9, 12]], [], []])["iou"]
    assert mycelium.read_parquet(path, spans="pairs")["pairs"].dtype == \
        pd.ArrowDtype(mycelium.SPAN_TYPE)


def test_spans_refuses_an_unknown_column_and_names_a_bad_span(tmp_path):
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"ref": [[[0, 5]], [[3, 1]]]}), path)
    with pytest.raises(KeyError, match="spans='reff' is not a column"):
        mycelium.read_parquet(path, spans="reff")
    with pytest.raises(mycelium.SpanValidationError,
                       match=r"span column 'ref' \(spans=\), row 1, span 0: start 3 > end 1"):
        mycelium.read_parquet(path, spans="ref")


def test_object_text_columns_come_back_as_object_with_none(tmp_path):
    """pandas 3 reads a string column as ``str`` with NaN; a frame whose text column was
    ``object`` with None (a result's ``type``) comes back as it was written."""
    df = pd.DataFrame({"type": pd.Series(["a", None, "b"], dtype=object),
                       "name": ["x", "y", "z"]})
    path = tmp_path / "texts.parquet"
    mycelium.write_parquet(df, path)
    meta = json.loads(pq.read_schema(path).metadata[b"mycelium"])
    assert meta["object_text_columns"] == ["type"]
    back = mycelium.read_parquet(path)
    pd.testing.assert_frame_equal(back, df)
    assert back["type"].tolist() == ["a", None, "b"]
    arrow = mycelium.read_parquet(path, dtype_backend="pyarrow")
    assert isinstance(arrow["type"].dtype, pd.ArrowDtype)
