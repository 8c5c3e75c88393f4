"""Group keys keep their type and identity in every face; keys and span values that
cannot be used fail with messages naming the column, the type or the row."""

from __future__ import annotations

import pandas as pd
from _optional import pl  # polars, or a stand-in that skips the test using it
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import mycelium

BIG = 2**53
REFS = [[[0, 2]], [[0, 9]], [[1, 2]]]
PREDS = [[[0, 3]], [[0, 3]], [[1, 2]]]
KEYS = [BIG, BIG + 1, None]
# iou per row: 2/3, 3/9, 1 — one group per row


def _per_row():
    return [mycelium.evaluate([r], [p], metrics="iou")["iou"]["score"]
            for r, p in zip(REFS, PREDS)]


def _polars():
    return pl.DataFrame({"ref": REFS, "pred": PREDS, "g": KEYS})


# ------------------------------------------------------------------ item: key identity

def test_polars_int_keys_beyond_2_53_with_nulls_stay_distinct():
    df = _polars()
    eager = df.mycelium.evaluate("ref", "pred", by="g", metrics="iou")
    lazy = df.lazy().mycelium.evaluate("ref", "pred", by="g", metrics="iou").collect(
        engine="streaming")
    for out in (eager, lazy):
        assert out["g"].dtype == pl.Int64
        assert out["g"].to_list() == [BIG, BIG + 1, None]
        assert out["value"].to_list() == _per_row()
        assert out["examples"].to_list() == [1, 1, 1]


@pytest.mark.parametrize("dtype", ["Int64", object])
def test_pandas_int_keys_keep_their_dtype_and_values(dtype):
    df = pd.DataFrame({"ref": REFS, "pred": PREDS,
                       "g": pd.Series(KEYS, dtype=dtype)})
    out = df.mycelium.evaluate("ref", "pred", by="g", metrics="iou")
    assert out["g"].dtype == df["g"].dtype
    assert out["g"].tolist()[:2] == [BIG, BIG + 1]
    assert out["g"].isna().tolist() == [False, False, True]
    if dtype is object:  # Python ints, not floats
        assert [type(v) for v in out["g"].tolist()[:2]] == [int, int]
    assert out["value"].tolist() == _per_row()
    assert str(out["g"].tolist()[0]) == str(BIG)  # printed as an integer, not 9.0e15


def test_pandas_key_order_and_other_dtypes_are_unchanged():
    df = pd.DataFrame({"ref": REFS * 2, "pred": PREDS * 2,
                       "c": pd.Categorical(["z", "a", "z", "z", "a", None],
                                           categories=["z", "a"]),
                       "f": [1.5, float("nan"), -0.0, 0.0, None, 1.5]})
    out = df.mycelium.evaluate("ref", "pred", by=["c", "f"], metrics="iou")
    want = df.groupby(["c", "f"], sort=True, dropna=False, observed=True).size()
    assert out["c"].dtype == df["c"].dtype  # category order, not lexical
    assert out["c"].astype(object).where(out["c"].notna(), None).tolist() == \
        ["z", "z", "a", None]
    assert out["f"].dtype == "float64"  # -0.0 and 0.0 one key; NaN and null one key
    assert str(out["f"].tolist()) == "[-0.0, 1.5, nan, 1.5]"
    assert out["examples"].tolist() == [2, 1, 2, 1] == want.tolist()


def test_compare_keeps_int_key_dtype():
    df = pd.DataFrame({"ref": REFS * 4, "a": PREDS * 4, "b": REFS * 4,
                       "g": pd.Series([BIG, BIG + 1, None] * 4, dtype="Int64")})
    out = df.mycelium.compare("ref", ["a", "b"], by="g", metrics="iou", n_resamples=20)
    assert out["g"].dtype == "Int64"
    assert out["g"].tolist()[:2] == [BIG, BIG + 1] and out["g"].isna().tolist()[-1]


# ------------------------------------------------------------------ item: name clashes

@pytest.mark.parametrize("name", ["metric", "measure", "value", "examples", "average",
                                  "profile", "type", "ci_low", "threshold", "iou_score",
                                  "detector_a", "p_value"])
def test_by_columns_named_like_result_columns_are_refused(name):
    from mycelium.core.groups import result_columns

    assert name in result_columns()
    pdf = pd.DataFrame({"ref": REFS, "pred": PREDS, name: ["x", "y", "x"]})
    pldf = pl.from_pandas(pdf)
    calls = [lambda: pdf.mycelium.evaluate("ref", "pred", by=name),
             lambda: pdf.mycelium.compare("ref", ["pred", "ref"], by=name),
             lambda: pldf.mycelium.evaluate("ref", "pred", by=[name]),
             lambda: pldf.lazy().mycelium.evaluate("ref", "pred", by=name)]
    for call in calls:
        with pytest.raises(ValueError, match=f"by column '{name}', which is also the name "
                           "of a result column") as err:
            call()
        assert f"renaming it before grouping, e.g. to '{name}_key'" in str(err.value)


# ------------------------------------------------------------------ item: key types

def test_duplicate_by_names_are_refused():
    pdf = pd.DataFrame({"ref": REFS, "pred": PREDS, "g": [1, 2, 1]})
    for call in (lambda: pdf.mycelium.evaluate("ref", "pred", by=["g", "g"]),
                 lambda: pl.from_pandas(pdf).lazy().mycelium.evaluate("ref", "pred",
                                                                       by=["g", "g"])):
        with pytest.raises(ValueError, match=r"Expected distinct by columns, got 'g' more "
                           r"than once in by=\['g', 'g'\]"):
            call()


def test_mixed_int_and_str_keys_name_the_column_and_types():
    pdf = pd.DataFrame({"ref": REFS, "pred": PREDS,
                        "k": pd.Series([1, "a", 2], dtype=object)})
    with pytest.raises(TypeError, match=r"by column 'k' to hold values of one type, got a "
                       r"mix of int, str; fix by giving it one type \(e\.g\. every key a "
                       r"string\) in the frame or file\."):
        pdf.mycelium.evaluate("ref", "pred", by="k")


@pytest.mark.parametrize("values, arrow, polars", [
    ([[1], [2], [1]], "list<item: int64>", "List(Int64)"),
    ([{"a": 1}, {"a": 2}, {"a": 1}], "struct<a: int64>", "Struct({'a': Int64})")])
def test_nested_keys_name_the_column_and_type(values, arrow, polars):
    pdf = pd.DataFrame({"ref": REFS, "pred": PREDS, "k": pd.Series(values, dtype=object)})
    pldf = pl.DataFrame({"ref": REFS, "pred": PREDS, "k": values})
    for call, shown in ((lambda: pdf.mycelium.evaluate("ref", "pred", by="k"), arrow),
                        (lambda: pldf.mycelium.evaluate("ref", "pred", by="k"), polars),
                        (lambda: pldf.lazy().mycelium.evaluate("ref", "pred", by="k"),
                         polars)):
        with pytest.raises(TypeError, match="by column 'k' of a type mycelium can group by"
                           ) as err:
            call()
        assert f"got {shown} (nested values)" in str(err.value)
        assert "fix by grouping by a column of scalars" in str(err.value)


def test_polars_int128_keys_name_the_column_and_type():
    df = _polars().with_columns(pl.col("g").cast(pl.Int128))
    for call in (lambda: df.mycelium.evaluate("ref", "pred", by="g"),
                 lambda: df.lazy().mycelium.evaluate("ref", "pred", by="g")):
        with pytest.raises(TypeError, match="by column 'g' of a type mycelium can group "
                           r"by .*got Int128.*fix by casting it, e\.g\. to Int64"):
            call()


# ------------------------------------------------------------------ item: span errors

def test_polars_fractional_offset_names_start_or_end():
    df = pl.DataFrame({"ref": [[[0.0, 2.0]], [[0.0, 9.0]]], "pred": [[[0.0, 3.0]],
                                                                   [[0.0, 2.5]]]})
    with pytest.raises(mycelium.SpanValidationError,
                       match=r"^predictions example 1, span 0: end 2\.5 is not an integral "
                       "offset"):
        df.mycelium.evaluate("ref", "pred")


@pytest.mark.parametrize("pred", [[[["0", "3"]]], [[{"start": "0", "end": "3"}]]])
def test_string_offsets_name_the_example_and_value(pred):
    df = pl.DataFrame({"ref": [[[0, 2]]], "pred": pred})
    with pytest.raises(mycelium.SpanValidationError,
                       match=r"^predictions example 0, span 0: start '0' is of Arrow type "
                       r"large_string; expected an integer character offset") as err:
        df.mycelium.evaluate("ref", "pred")
    assert err.value.example == 0 and err.value.span == 0


def _uint64_table():
    item = pa.struct([("start", pa.uint64()), ("end", pa.uint64())])
    return pa.table({"ref": pa.array([[{"start": 0, "end": 3}],
                                      [{"start": 1, "end": 2}, {"start": 2**64 - 1,
                                                                "end": 2**64 - 1}]],
                                     pa.list_(item))})


def test_uint64_offsets_name_the_column_row_and_value(tmp_path):
    path = tmp_path / "u64.parquet"
    pq.write_table(_uint64_table(), path)
    with pytest.raises(mycelium.SpanValidationError,
                       match=r"^span column 'ref', row 1, span 1: start 18446744073709551615 "
                       "is beyond the int64 range"):
        mycelium.read_parquet(path)
    for col in (_uint64_table().column("ref"), pl.read_parquet(path)["ref"]):
        with pytest.raises(mycelium.SpanValidationError,
                           match=r"^spans example 1, span 1: start 18446744073709551615 is "
                           "beyond the int64 range"):
            mycelium.to_spans(col)


def test_pandas_span_errors_give_the_index_label():
    df = pd.DataFrame({"ref": [[[0, 2]], [[0, 9]]], "pred": [[[0, 3]], [[5, 2]]]},
                      index=pd.Index(["a", "b"], name="id"))
    pattern = r"^predictions example 1 \(index label 'b'\), span 0: start 5 > end 2"
    for call in (lambda: df.mycelium.evaluate("ref", "pred"),
                 lambda: df.mycelium.score("ref", "pred"),
                 lambda: df.mycelium.compare("ref", ["pred", "ref"])):
        with pytest.raises(mycelium.SpanValidationError, match=pattern):
            call()
    plain = df.reset_index(drop=True)  # positions are the labels: said once
    with pytest.raises(mycelium.SpanValidationError,
                       match=r"^predictions example 1, span 0: start 5 > end 2"):
        plain.mycelium.evaluate("ref", "pred")


def test_lazy_positions_say_what_they_count():
    lf = pl.DataFrame({"k": [0, 1, 2], "ref": [[[0, 2]], [[0, 9]], [[0, 9]]],
                       "pred": [[[0, 3]], [[0, 3]], [[5, 2]]]}).lazy().filter(pl.col("k") > 0)
    with pytest.raises(mycelium.SpanValidationError) as err:
        lf.mycelium.evaluate("ref", "pred", metrics="iou").collect()
    message = str(err.value)
    assert message.startswith("predictions example 1, span 0: start 5 > end 2")
    assert message.endswith("(example 1 is the row's position in the LazyFrame's rows as "
                            "they reach mycelium, counted from 0 after any filter or slice "
                            "in the plan)")


@pytest.mark.parametrize("keys, kinds", [([1.0, True, 2.0], "bool, float"),
                                         ([0.0, False, 1.0], "bool, float"),
                                         ([b"a", "a", "b"], "bytes, str"),
                                         ([1, 1.0, True], "bool, float, int")])
def test_keys_of_mixed_kinds_are_refused_as_int_and_bool_are(keys, kinds):
    # Arrow reads [1.0, True] as [1.0, 1.0] and [b"a", "a"] as [b"a", b"a"]: one group
    # out of two keys. Refused, in the words used for [1, True].
    pdf = pd.DataFrame({"ref": REFS, "pred": PREDS, "k": pd.Series(keys, dtype=object)})
    message = (rf"by column '(k|by)' to hold values of one type, got a mix of {kinds}; fix by "
               r"giving it one type")
    with pytest.raises(TypeError, match=message):
        pdf.mycelium.evaluate("ref", "pred", by="k")
    with pytest.raises(TypeError, match=message):
        mycelium.scores.sweep(REFS, text=["abcdefghij"] * 3, soft_predictions=[[], [], []],
                              by=keys)
    # numbers alone are one kind: 1 and 1.0 are one key, as in pandas' groupby
    pdf["k"] = pd.Series([1, 1.0, 2], dtype=object)
    table = pdf.mycelium.evaluate("ref", "pred", by="k", metrics=["iou"])
    assert table["examples"].tolist() == [2, 1]
