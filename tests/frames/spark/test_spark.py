"""`mycelium.frames.spark.evaluate` gives the pandas accessor's frame, bit for bit, on local Spark.

One local session (``local[1]``, one shuffle partition; see conftest.py) scores the same
rows as ``df.mycelium.evaluate``: every group, metric, measure and average, each
``zero_division``, null group keys, one and three partitions, empty partitions, no rows,
span columns read from Parquet, texts and ``missing=``, and intervals, which equal the
core's (`mycelium.evaluate` with the same ``ids``) on every group.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed; install the extra with "
                    "pip install -e '.[spark]' to run the Spark tests")

import mycelium  # noqa: E402
from mycelium.frames import spark as myspark  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _spark_data import make_table, to_pandas  # noqa: E402

BY = ["model", "lang"]
# mycelium exchanges Arrow, not pandas, with Spark; Spark 4's pandas-3 notice is noise here.
pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning")


@pytest.fixture(scope="module")
def table() -> pa.Table:
    return make_table()


@pytest.fixture(scope="module")
def sdf(spark, table):
    return spark.createDataFrame(table)


def assert_same(got: pd.DataFrame, want: pd.DataFrame) -> None:
    """Identical frames (values bit for bit, NaN == NaN) and signatures."""
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert got.attrs == want.attrs and got.attrs["mycelium_signature"]


@pytest.mark.parametrize("zero_division", [0.0, 1.0, "nan"])
@pytest.mark.parametrize("average", ["macro", "micro"])
def test_every_metric_measure_and_group(sdf, table, average, zero_division):
    want = to_pandas(table).mycelium.evaluate("ref", "pred", by=BY, average=average,
                                              zero_division=zero_division)
    got = myspark.evaluate(sdf, "ref", "pred", by=BY, average=average,
                           zero_division=zero_division)
    assert_same(got, want)
    assert got["model"].isna().any() and got["lang"].isna().any()  # null keys are groups
    assert len(got) == 13 * 16 and got["value"].notna().any()


@pytest.mark.parametrize("average", ["macro", "micro"])
def test_three_partitions(sdf, table, average):
    parts = sdf.repartition(3, "id")
    assert parts.rdd.getNumPartitions() == 3
    want = to_pandas(table).mycelium.evaluate("ref", "pred", by=BY, average=average)
    assert_same(myspark.evaluate(parts, "ref", "pred", by=BY, average=average), want)


def test_empty_partitions(spark):
    small = make_table(5)
    sdf = spark.createDataFrame(small).repartition(12)
    sizes = sdf.rdd.glom().map(len).collect()
    assert len(sizes) == 12 and sizes.count(0) >= 7
    for by in ("model", None):
        want = to_pandas(small).mycelium.evaluate("ref", "pred", by=by,
                                                  metrics=["iou", "character"])
        assert_same(myspark.evaluate(sdf, "ref", "pred", by=by,
                                     metrics=["iou", "character"]), want)


@pytest.mark.parametrize("by", ["model", None])
def test_no_rows(sdf, table, by):
    want = to_pandas(table.slice(0, 0)).mycelium.evaluate("ref", "pred", by=by,
                                                            metrics=["iou", "character"])
    got = myspark.evaluate(sdf.limit(0), "ref", "pred", by=by, metrics=["iou", "character"])
    assert len(got) == (0 if by else 4)
    assert_same(got, want)


@pytest.mark.parametrize("options", [
    dict(by=None), dict(by="lang", profile="mu_shroom"),
    dict(by="model", profile="ragtruth"),
    dict(by=["lang"], metrics=["deteval_1d"],
         params={"deteval_1d": {"recall_threshold": 0.6}}),
])
def test_groups_profiles_and_params(sdf, table, options):
    want = to_pandas(table).mycelium.evaluate("ref", "pred", **options)
    assert_same(myspark.evaluate(sdf, "ref", "pred", **options), want)


@pytest.mark.parametrize("average", ["macro", "micro"])
def test_fractional_cleval_weight(sdf, table, average):
    """Float statistics (micro) travel as exact int64 parts: the pandas frame, exactly."""
    options = dict(by=BY, average=average, metrics=["cleval_1d", "iou"],
                   params={"cleval_1d": {"granularity_penalty_weight": 0.3}})
    want = to_pandas(table).mycelium.evaluate("ref", "pred", **options)
    assert_same(myspark.evaluate(sdf, "ref", "pred", **options), want)


def test_nan_and_null_keys_are_one_group(spark):
    """pandas puts a NaN key and a null key in one group; Spark's two groups are merged."""
    small = make_table(12)
    score = pa.array([0.5, float("nan"), None, 0.5, None, float("nan")] * 2, pa.float64())
    small = small.append_column("score", score)
    want = to_pandas(small).mycelium.evaluate("ref", "pred", by="score", metrics="iou")
    got = myspark.evaluate(spark.createDataFrame(small), "ref", "pred", by="score",
                           metrics="iou")
    assert len(got) == 2 and got["examples"].tolist() == [4, 8]
    assert_same(got, want)


@pytest.mark.parametrize("writer", ["mycelium", "pyarrow"])
def test_span_columns_read_from_parquet(spark, table, tmp_path, writer):
    path = tmp_path / "rows.parquet"
    if writer == "mycelium":
        mycelium.write_parquet(to_pandas(table), path)
    else:
        pq.write_table(table, path)
    sdf = spark.read.parquet(str(path))
    assert sdf.schema["ref"].dataType.simpleString() == \
        "array<struct<start:bigint,end:bigint>>"
    frame = mycelium.read_parquet(path)
    frame["lang"] = frame["lang"].astype("Int64")  # pandas reads a file's nullable ints
    want = frame.mycelium.evaluate("ref", "pred", by=BY)  # as floats; Spark as bigint
    assert_same(myspark.evaluate(sdf, "ref", "pred", by=BY), want)


@pytest.mark.parametrize("missing", ["empty", "drop"])
def test_text_and_missing(spark, missing):
    nulls = make_table(40, seed=3, null_spans=True)
    want = to_pandas(nulls).mycelium.evaluate("ref", "pred", text="text", by="model",
                                              missing=missing)
    got = myspark.evaluate(spark.createDataFrame(nulls).repartition(3), "ref", "pred",
                           text="text", by="model", missing=missing)
    assert_same(got, want)
    assert got.groupby("model", dropna=False)["examples"].first().sum() == \
        (40 if missing == "empty" else 37)


def test_as_spark(sdf, table):
    want = to_pandas(table).mycelium.evaluate("ref", "pred", by=BY, metrics=["iou"])
    got = myspark.evaluate(sdf, "ref", "pred", by=BY, metrics=["iou"], as_spark=True)
    assert got.columns == list(want.columns)
    assert got.schema["value"].metadata == {
        "mycelium_signature": want.attrs["mycelium_signature"],
        "mycelium_empty_spans": want.attrs["mycelium_empty_spans"]}
    rows = [tuple(r) for r in got.collect()]
    expected = [tuple(None if (v is pd.NA or isinstance(v, float) and math.isnan(v))
                      and k in BY else v for k, v in zip(want.columns, r))
                for r in want.astype(object).itertuples(index=False)]
    assert rows == [tuple(None if (isinstance(v, float) and math.isnan(v)) else v
                          for v in r) for r in expected]


# --------------------------------------------------------------------- intervals

def core_intervals(table: pa.Table, rows: np.ndarray, **options) -> dict:
    """``{(metric, measure): (low, high)}`` of `mycelium.evaluate` on ``rows``, keyed by
    their ids."""
    report = mycelium.evaluate(table["ref"].take(rows), table["pred"].take(rows),
                               ids=table["id"].take(rows).to_pylist(), **options)
    return {(m, k): (v["low"], v["high"]) for m, meas in report["ci"].items()
            for k, v in meas.items()}


@pytest.mark.parametrize("average", ["macro", "micro"])
def test_intervals_equal_the_core_with_ids(sdf, table, average):
    boot = dict(ci=0.9, n_resamples=150, seed=11)
    got = myspark.evaluate(sdf.repartition(3, "lang"), "ref", "pred", by="model",
                           average=average, id_col="id", **boot)
    want = to_pandas(table).mycelium.evaluate("ref", "pred", by="model", average=average,
                                              id_col="id", **boot)
    assert_same(got, want)
    models = table["model"].to_pylist()
    checked = 0
    for key, frame in got.groupby("model", dropna=False):
        rows = np.array([i for i, m in enumerate(models)
                         if (m is None and pd.isna(key)) or m == key])
        core = core_intervals(table, rows, average=average, **boot)
        for metric, measure, low, high in frame[["metric", "measure", "ci_low",
                                                 "ci_high"]].itertuples(index=False):
            want_low, want_high = core[(metric, measure)]
            for a, b in ((low, want_low), (high, want_high)):
                assert (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-12
                assert a == b or (math.isnan(a) and math.isnan(b))  # in fact identical
            checked += 1
    assert checked == 5 * 16
    assert (got["ci_low"] < got["ci_high"]).sum() > 40


def test_intervals_do_not_depend_on_partitioning(sdf, table):
    boot = dict(by=BY, metrics=["iou", "character"], ci=0.95, n_resamples=100, seed=3,
                id_col="id")
    one = myspark.evaluate(sdf.coalesce(1), "ref", "pred", **boot)
    three = myspark.evaluate(sdf.repartition(3, "model"), "ref", "pred", **boot)
    assert_same(three, one)
    assert_same(one, to_pandas(table).mycelium.evaluate("ref", "pred", **boot))


# ------------------------------------------------------------------------ errors

def test_errors_before_any_job(sdf, table):
    with pytest.raises(ValueError, match="id_col"):
        myspark.evaluate(sdf, "ref", "pred", ci=0.95)
    with pytest.raises(KeyError, match="'nope' not found"):
        myspark.evaluate(sdf, "ref", "nope")
    with pytest.raises(TypeError, match=r"end: bigint>>, got bigint"):
        myspark.evaluate(sdf, "ref", "lang")
    with pytest.raises(TypeError, match="pyspark.sql.DataFrame, got DataFrame"):
        myspark.evaluate(to_pandas(table), "ref", "pred")
    with pytest.raises(ValueError, match="average="):
        myspark.evaluate(sdf, "ref", "pred", average="weighted")


def test_bad_span_names_the_example_id(spark):
    bad = make_table(10)
    refs = bad["ref"].to_pylist()
    refs[6] = [{"start": 5, "end": 3}]
    bad = bad.set_column(bad.schema.get_field_index("ref"), "ref",
                         pa.array(refs, mycelium.SPAN_TYPE))
    with pytest.raises(Exception, match="references example with id 'ex-6'"):
        myspark.evaluate(spark.createDataFrame(bad), "ref", "pred", id_col="id")


def test_the_docstring_example(spark):
    """The Examples section of mycelium.frames.spark.evaluate, run as a doctest with this
    session (the module's doctests skip it: they start no JVM) and its output checked."""
    import doctest

    from mycelium.frames import spark as spark_face

    test = doctest.DocTestParser().get_doctest(
        spark_face.evaluate.__doc__, {"spark": spark}, "spark.evaluate", None, 0)
    assert len(test.examples) == 4
    for example in test.examples:
        example.options.clear()  # run the lines marked +SKIP too
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False) == doctest.TestResults(failed=0, attempted=4)


# ------------------------------------------------------------------------ group keys

def test_bigint_keys_beyond_2_53_with_nulls_stay_distinct(spark):
    big = 2**53
    sdf = spark.createDataFrame(
        [(big, [(0, 2)], [(0, 3)]), (big + 1, [(0, 9)], [(0, 3)]), (None, [(1, 2)], [(1, 2)])],
        "g bigint, ref array<struct<start: bigint, end: bigint>>, "
        "pred array<struct<start: bigint, end: bigint>>")
    out = myspark.evaluate(sdf, "ref", "pred", by="g", metrics="iou")
    assert out["g"].dtype == "Int64"
    assert out["g"].tolist()[:2] == [big, big + 1] and out["g"].isna().tolist()[2]
    assert out["value"].tolist() == [2 / 3, 3 / 9, 1.0]
    back = myspark.evaluate(sdf, "ref", "pred", by="g", metrics="iou", as_spark=True)
    assert [r["g"] for r in back.collect()] == [big, big + 1, None]


@pytest.mark.parametrize("options", [
    dict(pred_col="pred", metrics=["iou", "response_level"]),
    dict(pred_col="pred", profile="ragtruth"),
    dict(threshold=0.5, token_offsets_col="offs", token_scores_col="sc", metrics="iou")])
def test_score_path_bigint_keys_beyond_2_53_with_nulls_stay_distinct(spark, options):
    big = 2**53
    sdf = spark.createDataFrame(
        [(big, [(0, 2)], [(0, 2)], "abcd", [(0, 2), (2, 4)], [0.9, 0.1]),
         (big + 1, [(0, 2)], [], "abcd", [(0, 2), (2, 4)], [0.1, 0.1]),
         (None, [(0, 2)], [(0, 2)], "abcd", [(0, 2), (2, 4)], [0.9, 0.1])],
        "g bigint, ref array<struct<start: bigint, end: bigint>>, "
        "pred array<struct<start: bigint, end: bigint>>, text string, "
        "offs array<array<bigint>>, sc array<double>")
    options = dict(options)
    pred = options.pop("pred_col", None)
    out = myspark.evaluate(sdf, "ref", pred, text="text", by="g", **options)
    iou = out[out["metric"] == "iou"]
    assert out["g"].dtype == "Int64"  # as on the span path
    assert iou["g"].tolist()[:2] == [big, big + 1] and iou["g"].isna().tolist()[2]
    assert iou["value"].tolist() == [1.0, 0.0, 1.0]
    back = myspark.evaluate(sdf, "ref", pred, text="text", by="g", as_spark=True, **options)
    rows = [r for r in back.collect() if r["metric"] == "iou"]
    assert [r["g"] for r in rows] == [big, big + 1, None]


def test_keys_and_names_that_cannot_group_fail_before_any_job(sdf):
    with pytest.raises(TypeError, match=r"by column 'ref' of a type mycelium can group by "
                       r".*got array<struct<start:bigint,end:bigint>> \(nested values\)"):
        myspark.evaluate(sdf, "ref", "pred", by="ref")
    with pytest.raises(ValueError, match="by column 'metric', which is also the name of a "
                       "result column"):
        myspark.evaluate(sdf.withColumnRenamed("model", "metric"), "ref", "pred",
                         by="metric")
    with pytest.raises(ValueError, match="Expected distinct by columns, got 'model'"):
        myspark.evaluate(sdf, "ref", "pred", by=["model", "model"])


def test_bad_span_is_a_clean_error_on_the_driver(spark):
    bad = make_table(10)
    refs = bad["ref"].to_pylist()
    refs[6] = [{"start": 5, "end": 3}]
    bad = bad.set_column(bad.schema.get_field_index("ref"), "ref",
                         pa.array(refs, mycelium.SPAN_TYPE))
    with pytest.raises(mycelium.SpanValidationError) as err:
        myspark.evaluate(spark.createDataFrame(bad), "ref", "pred", id_col="id")
    assert str(err.value) == ("references example with id 'ex-6', span 0: start 5 > end 3; "
                              "expected 0 <= start <= end with half-open [start, end) "
                              "offsets. Fix the span (swap the bounds only if they were "
                              "written in the wrong order).")
    assert err.value.side == "references" and err.value.span == 0
