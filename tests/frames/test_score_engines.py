"""Score metrics at scale: micro and macro char_auroc / char_ap, response_auroc,
response_level and the span metrics at a threshold, by mergeable statistics
(`mycelium.frames.score_sums`), equal to `mycelium.evaluate` on each group's rows bit for
bit — summed by hand over any split into batches, on Polars' streaming engine (slices
and morsels of a few rows) and on Spark (several partitions, small Arrow batches) — and
never gathered: the plans stream, and Spark does not collect rows on the driver."""

from __future__ import annotations


import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from _optional import pl
from _score_rows import CASES, face_kwargs, make_rows, same_rows, truth
from _spark_fixture import spark  # noqa: F401  (the session fixture)
from mycelium.errors import SpanValidationError
from mycelium.frames import score_sums
from mycelium.core.groups import group_codes

BYS = [[], ["model"], ["model", "lang"]]
ROWS = make_rows(60, seed=1)
DROP_ROWS = make_rows(60, seed=2, null_refs=True)


def rows_for(case: str) -> dict[str, list]:
    return DROP_ROWS if CASES[case][1].get("missing") == "drop" else ROWS


def plan_of(case: str):
    data, options = CASES[case]
    form = "token" if "token_offsets" in data else ("soft" if "soft_predictions" in data
                                                    else None)
    return score_sums.score_sums(options, predictions="predictions" in data, form=form)


# ------------------------------------------------------------------ by hand

def summed_by_hand(case, columns, cuts, by):
    """What an engine does: the long rows of each batch, summed per (keys, kind, column,
    score) exactly (Python ints), ordered by each sum's first row, then finished."""
    ss = plan_of(case)
    n = len(columns["text"])
    bounds = [0, *sorted(set(cuts)), n]
    totals: dict[tuple, list] = {}
    for a, b in zip(bounds, bounds[1:]):
        if a == b:
            continue
        keys = pa.table({k: columns[k][a:b] for k in by}) if by else None
        groups = group_codes(keys, b - a)
        batch = {arg: columns[col][a:b] for arg, col in CASES[case][0].items()}
        rows = score_sums.batch_rows(ss, references=columns["ref"][a:b],
                                     text=columns["text"][a:b], codes=groups.codes,
                                     n_groups=groups.n_groups, **batch)
        key_rows = groups.keys.to_pylist() if by else [{}] * groups.n_groups
        first = [a + int(np.flatnonzero(groups.codes == g)[0])
                 for g in range(groups.n_groups)]
        for i in range(rows["group"].size):
            g = int(rows["group"][i])
            key = (tuple(key_rows[g].get(k) for k in by), int(rows["kind"][i]),
                   int(rows["column"][i]), int(rows["score"][i]))
            entry = totals.setdefault(key, [0, 0, 0.0, n])
            entry[0] += int(rows["a"][i])
            entry[1] += int(rows["b"][i])
            entry[2] += float(rows["f"][i])
            entry[3] = min(entry[3], first[g])
    items = sorted(totals.items(), key=lambda kv: kv[1][3])
    keys = pa.table({k: [key[0][j] for key, _ in items] for j, k in enumerate(by)}) \
        if by else None
    groups = group_codes(keys, len(items))
    long = {"group": groups.codes,
            "kind": np.array([key[1] for key, _ in items], np.int8),
            "column": np.array([key[2] for key, _ in items], np.int32),
            "score": np.array([key[3] for key, _ in items], np.int64),
            "a": np.array([v[0] for _, v in items], dtype=object),
            "b": np.array([v[1] for _, v in items], dtype=object),
            "f": np.array([v[2] for _, v in items])}
    table = score_sums.finish(ss, long, groups)
    return [tuple(r.values()) + (ss.signature,) for r in table.to_pylist()]


@pytest.mark.parametrize("case", list(CASES))
@settings(max_examples=8, deadline=None)
@given(cuts=st.lists(st.integers(0, 60), max_size=6), by=st.sampled_from(BYS))
def test_sums_over_any_batches_equal_evaluate(case, cuts, by):
    columns = rows_for(case)
    assert same_rows(summed_by_hand(case, columns, cuts, by), truth(columns, case, by))


# ------------------------------------------------------------------ Polars

def polars_frame(columns):
    span = pl.List(pl.Struct({"start": pl.Int64, "end": pl.Int64}))
    return pl.DataFrame(columns, schema_overrides={
        "ref": span, "pred": span, "lang": pl.Float64, "offsets": pl.List(pl.List(pl.Int64)),
        "scores": pl.List(pl.Float64),
        "soft": pl.List(pl.Struct({"start": pl.Int64, "end": pl.Int64, "prob": pl.Float64}))})


@pytest.fixture()
def small_slices(monkeypatch):
    """Slices of at most 7 rows or about 30 tokens inside each batch (rows of ~10 tokens:
    slices of 3 rows), morsels of 5 rows, the held long rows added to the running sums
    past 16 of them: many partial sums, merged many times."""
    config = pl.Config(streaming_chunk_size=5)  # skips without the polars extra
    from mycelium.frames import polars_scores

    monkeypatch.setattr(polars_scores, "_SLICE", 7)
    monkeypatch.setattr(polars_scores, "_TOKENS", 30)
    monkeypatch.setattr(polars_scores, "_MERGE_ROWS", 16)
    with config:
        yield


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("by", BYS, ids=lambda b: "+".join(b) or "all")
def test_polars_streaming_equals_evaluate(case, by, small_slices):
    columns = rows_for(case)
    pred_col, kwargs = face_kwargs(case)
    df = polars_frame(columns)
    plan = df.lazy().mycelium.evaluate("ref", pred_col, text="text", by=by or None,
                                       **kwargs)
    assert "PYTHON SCAN" in plan.explain()  # deferred: its long rows stream batch by batch
    got = plan.collect(engine="streaming")
    assert same_rows(got.rows(), truth(columns, case, by)), case
    eager = df.mycelium.evaluate("ref", pred_col, text="text", by=by or None, **kwargs)
    assert got.equals(eager)  # keys, types and the signature column too


def test_polars_streaming_scores_at_most_the_gated_batches_at_once(monkeypatch,
                                                                   small_slices):
    """The streaming engine calls the scoring function from each of its threads; the
    plan lets `_CONCURRENT` of them score at once (here 1, each call slowed so that
    calls would overlap without the gate), and the numbers stay evaluate's."""
    import threading
    import time

    from mycelium.frames import polars_scores

    inside, most, lock = [0], [0], threading.Lock()
    scored = polars_scores._scored_batch

    def slow(df, **kwargs):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.01)
        try:
            return scored(df, **kwargs)
        finally:
            with lock:
                inside[0] -= 1

    monkeypatch.setattr(polars_scores, "_scored_batch", slow)
    monkeypatch.setattr(polars_scores, "_CONCURRENT", 1)
    case = "token micro"
    columns = rows_for(case)
    pred_col, kwargs = face_kwargs(case)
    got = polars_frame(columns).lazy().mycelium.evaluate(
        "ref", pred_col, text="text", by=["lang"], **kwargs).collect(engine="streaming")
    assert most[0] == 1
    assert same_rows(got.rows(), truth(columns, case, ["lang"]))


def test_polars_streaming_from_parquet_names_the_bad_row(tmp_path, small_slices):
    columns = make_rows(30, seed=3)
    columns["scores"][17] = [1.5] * len(columns["scores"][17])
    path = tmp_path / "scores.parquet"
    polars_frame(columns).write_parquet(path, row_group_size=8)
    plan = pl.scan_parquet(path).mycelium.evaluate(
        "ref", text="text", token_offsets_col="offsets", token_scores_col="scores")
    with pytest.raises(SpanValidationError, match=r"token_scores example 17, token 0: "
                                                  r"Expected a finite score in \[0, 1\]"):
        plan.collect(engine="streaming")


# ------------------------------------------------------------------ Spark

SPAN = "array<struct<start: bigint, end: bigint>>"
SCHEMA = (f"id string, model string, lang double, text string, ref {SPAN}, pred {SPAN}, "
          "offsets array<array<bigint>>, scores array<double>, "
          "soft array<struct<start: bigint, end: bigint, prob: double>>")


@pytest.fixture()
def small_batches(spark):
    """Three partitions, Arrow batches of 7 rows: many partial sums on the workers."""
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    before = spark.conf.get(key)
    spark.conf.set(key, "7")
    yield spark
    spark.conf.set(key, before)


@pytest.mark.parametrize("case", list(CASES))
def test_spark_equals_evaluate(case, small_batches, monkeypatch):
    from mycelium.frames import spark as spark_face

    def refuse(*args, **kwargs):
        raise AssertionError("the rows were gathered on the driver")

    monkeypatch.setattr(spark_face, "collected", refuse)
    columns = rows_for(case)
    sdf = small_batches.createDataFrame(list(zip(*columns.values())), SCHEMA).repartition(3)
    pred_col, kwargs = face_kwargs(case)
    by = ["model", "lang"]
    got = spark_face.evaluate(sdf, "ref", pred_col, text="text", by=by, id_col="id",
                              **kwargs)
    assert same_rows(list(got.itertuples(index=False, name=None)),
                     truth(columns, case, by)), case
    if case == "token at 0.5":  # as a Spark DataFrame too
        out = spark_face.evaluate(sdf, "ref", pred_col, text="text", by=by, as_spark=True,
                                  **kwargs)
        assert same_rows([tuple(r) for r in out.collect()], truth(columns, case, by))


def test_spark_names_the_bad_example_by_id(small_batches):
    from mycelium.frames import spark as spark_face

    columns = make_rows(20, seed=4)
    columns["offsets"][5] = [[0, 999]] * len(columns["offsets"][5])
    sdf = small_batches.createDataFrame(list(zip(*columns.values())), SCHEMA)
    with pytest.raises(SpanValidationError, match="token_offsets example with id 'ex-5'"):
        spark_face.evaluate(sdf, "ref", None, text="text", id_col="id", threshold=0.5,
                            token_offsets_col="offsets", token_scores_col="scores")


def test_options_that_do_not_sum_still_give_evaluates_numbers():
    """Intervals resample a group's examples: that call is gathered, with the same
    numbers (the option table covers it on every face)."""
    columns = ROWS
    df = polars_frame(columns)
    plan = df.lazy().mycelium.evaluate("ref", text="text", token_offsets_col="offsets",
                                       token_scores_col="scores", ci=0.9, n_resamples=20,
                                       id_col="id")
    assert "PYTHON SCAN" not in plan.explain()  # gathered: no deferred batches
    report = mycelium.evaluate(columns["ref"], text=columns["text"],
                               token_offsets=columns["offsets"],
                               token_scores=columns["scores"], ci=0.9, n_resamples=20,
                               ids=columns["id"])
    got = plan.collect().filter(pl.col("metric") == "char_auroc")
    assert got["value"].to_list() == [report["char_auroc"]["score"]]
