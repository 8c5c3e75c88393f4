"""Every front end gives the same numbers, bit for bit.

The same rows go through `mycelium.evaluate` (lists, and Arrow arrays) group by group,
the pandas accessor (object, ``ArrowDtype(SPAN_TYPE)`` and JSON-string columns), the
Polars namespace (eager, lazy in memory, lazy on the streaming engine in small batches,
and ``pl.scan_parquet`` of a written file): every value is identical (``==``, NaN ==
NaN), for every metric and measure, both averages, every ``zero_division``, without
groups and with one or two keys (null keys included); group order is sorted with nulls
last in every face; ``examples`` sums to the rows scored.
"""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _optional import have, pl  # polars, or a stand-in that skips the test using it
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mycelium
from mycelium.metrics import METRICS

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _faces as F  # noqa: E402

ROWS = F.make_rows()
BYS = ([], ["model"], ["model", "lang"])
AVERAGES = ("macro", "micro")
ZERO_DIVISIONS = (0.0, 1.0, "nan")
#: None = all metrics (cleval_1d's float credits take the lazy plan's per-row path for
#: micro); the integer metrics alone take the lazy plan's group_by-sum path.
METRIC_SETS = (None, ["exact_span", "iou", "character", "deteval_1d", "span_coverage"])
CHUNK = 5  # rows per streaming batch / Parquet row group: many batches per group


@pytest.fixture(scope="module")
def frames(tmp_path_factory):
    path = tmp_path_factory.mktemp("frontends") / "rows.parquet"
    F.polars_frame(ROWS).write_parquet(path, row_group_size=CHUNK)
    return {"pandas_object": F.pandas_object(ROWS), "pandas_arrow": F.pandas_arrow(ROWS),
            "pandas_json": F.pandas_json(ROWS), "polars": F.polars_frame(ROWS),
            "parquet": path}


def _streaming(lf: pl.LazyFrame) -> pl.DataFrame:
    with pl.Config(streaming_chunk_size=CHUNK):
        return lf.collect(engine="streaming")


def face_results(frames, by, **options):
    """``{face: tidy rows}`` of every dataframe face."""
    out = {}
    kw = dict(text="text", by=by or None, **options)
    for name in ("pandas_object", "pandas_arrow", "pandas_json"):
        out[name] = frames[name].mycelium.evaluate("ref", "pred", **kw)
    df = frames["polars"]
    out["polars"] = df.mycelium.evaluate("ref", "pred", **kw)
    out["polars_lazy"] = df.lazy().mycelium.evaluate("ref", "pred", **kw).collect()
    out["polars_streaming"] = _streaming(df.lazy().mycelium.evaluate("ref", "pred", **kw))
    scan = pl.scan_parquet(frames["parquet"])
    out["scan_parquet"] = _streaming(scan.mycelium.evaluate("ref", "pred", **kw))
    return {name: F.tidy_rows(frame, by) for name, frame in out.items()}


# The metric sets differ only in the lazy plan's micro path (see METRIC_SETS).
AVERAGE_METRICS = [("macro", None), ("micro", METRIC_SETS[0]), ("micro", METRIC_SETS[1])]


@pytest.mark.parametrize("zero_division", ZERO_DIVISIONS)
@pytest.mark.parametrize("average,metrics", AVERAGE_METRICS,
                         ids=["macro", "micro-all", "micro-integer"])
@pytest.mark.parametrize("by", BYS, ids=["nokey", "onekey", "twokeys"])
def test_every_face_equals_evaluate_per_group(frames, by, average, metrics, zero_division):
    options = dict(average=average, zero_division=zero_division, metrics=metrics)
    want = F.truth_rows(ROWS, by, **options)
    F.assert_same_rows(F.truth_rows(ROWS, by, form=F.arrow_spans, **options), want, "arrow")
    for face, got in face_results(frames, by, **options).items():
        F.assert_same_rows(got, want, face)


def test_group_order_is_sorted_with_nulls_last(frames):
    got = F.tidy_rows(frames["polars"].mycelium.evaluate("ref", "pred", by=["model", "lang"],
                                                         metrics="iou"), ["model", "lang"])
    keys = [r[:2] for r in got]
    assert keys == sorted(keys, key=F.sort_key)
    assert keys[-1] == (None, None) and len(set(keys)) == len(keys) == 13


@pytest.mark.parametrize("by", BYS, ids=["nokey", "onekey", "twokeys"])
def test_examples_sum_to_the_rows_scored(frames, by):
    for face, rows in face_results(frames, by, metrics="character").items():
        recall = [r for r in rows if r[len(by) + 1] == "recall"]
        assert sum(r[len(by) + 3] for r in recall) == len(ROWS), face


def test_profiles_and_params_agree(frames):
    # A fractional granularity penalty makes cleval_1d's credits non-integral floats:
    # their micro sums depend on the summation order, which every face must keep.
    params = {"cleval_1d": {"granularity_penalty_weight": 0.3},
              "deteval_1d": {"recall_threshold": 0.7, "split_merge_credit": 0.6}}
    for profile in ("mu_shroom", "ragtruth", None):
        for average in AVERAGES:
            options = dict(profile=profile, average=average, params=params)
            want = F.truth_rows(ROWS, ["model"], **options)
            for face, got in face_results(frames, ["model"], **options).items():
                F.assert_same_rows(got, want, f"{face} {profile} {average}")


def test_profile_defaults_without_explicit_average(frames):
    want = F.truth_rows(ROWS, ["lang"], profile="ragtruth")
    assert {r[-3] for r in want} == {"micro"}
    for face, got in face_results(frames, ["lang"], profile="ragtruth").items():
        F.assert_same_rows(got, want, face)


# ------------------------------------------------------------------ missing values

MISSING_ROWS = [([[0, 5]], [[0, 3]], "x" * 9, "a", 1), (None, [[1, 2]], "x" * 9, "a", 1),
                ([[1, 4]], None, "x" * 9, "b", None), ([], [], "x" * 9, "b", 2),
                (None, None, "x" * 9, "c", 2)]


@pytest.mark.parametrize("missing", ["empty", "drop"])
@pytest.mark.parametrize("average", AVERAGES)
def test_missing_spans_agree(missing, average):
    c = F.columns(MISSING_ROWS)
    opts = dict(by="model", missing=missing, average=average, metrics=["iou", "character"])
    pdf = pd.DataFrame(c)
    pldf = pl.DataFrame({**c, "ref": [None if x is None else F.as_dicts(x) for x in c["ref"]],
                         "pred": [None if x is None else F.as_dicts(x) for x in c["pred"]]},
                        schema_overrides={"ref": F.polars_span_dtype(),
                                          "pred": F.polars_span_dtype()})
    want = []
    for model in ("a", "b", "c"):
        idx = [i for i, m in enumerate(c["model"]) if m == model]
        r = mycelium.evaluate([c["ref"][i] for i in idx], [c["pred"][i] for i in idx],
                              missing=missing, average=average, metrics=["iou", "character"])
        want += [(model, m, k, v, r["meta"]["examples"], average, None, r["meta"]["signature"])
                 for m in ("iou", "character") for k, v in r[m].items()]
    got = {"pandas": pdf.mycelium.evaluate("ref", "pred", **opts),
           "polars": pldf.mycelium.evaluate("ref", "pred", **opts),
           "lazy": _streaming(pldf.lazy().mycelium.evaluate("ref", "pred", **opts))}
    for face, frame in got.items():
        F.assert_same_rows(F.tidy_rows(frame, ["model"]), want, face)
    if missing == "drop":
        assert want[-1][4] == 0  # a group whose rows were all dropped stays, with 0 examples


def test_null_spans_are_an_error_by_default():
    pdf = pd.DataFrame(F.columns(MISSING_ROWS))
    with pytest.raises(mycelium.SpanValidationError, match="references example 1 is null"):
        pdf.mycelium.evaluate("ref", "pred")
    pldf = pl.DataFrame({"ref": [[[0, 1]], None], "pred": [[[0, 1]], [[0, 1]]]})
    with pytest.raises(mycelium.SpanValidationError, match="references example 1 is null"):
        pldf.mycelium.evaluate("ref", "pred")
    with pytest.raises(mycelium.SpanValidationError, match="references example 1 is null"):
        pldf.lazy().mycelium.evaluate("ref", "pred").collect()


# --------------------------------------------------------------------------- score

def _per_example_columns(rows, **options):
    c = F.columns(rows)
    report = mycelium.evaluate(c["ref"], c["pred"], include_per_example=True, **options)
    metrics = [m for m in report if m not in ("meta", "per_example")]
    return {f"{m}_{k}": [None if ex is None else ex[m][k] for ex in report["per_example"]]
            for m in metrics for k in report[m]}


def _assert_same_column(got, want, name):
    assert len(got) == len(want), name
    for i, (g, w) in enumerate(zip(got, want)):
        if w is None:
            assert g is None or g != g, f"{name}[{i}]: {g} for a dropped row"
        else:
            assert F.same_float(float(g), w), f"{name}[{i}]: {g} != {w}"


@pytest.mark.parametrize("zero_division", ZERO_DIVISIONS)
def test_score_equals_per_example_values(frames, zero_division):
    want = _per_example_columns(ROWS, zero_division=zero_division)
    index = pd.Index([f"row{i}" for i in range(len(ROWS))][::-1], name="id")
    for name in ("pandas_object", "pandas_arrow", "pandas_json"):
        df = frames[name].set_axis(index)
        before = copy.deepcopy(df)
        got = df.mycelium.score("ref", "pred", text="text", zero_division=zero_division)
        pd.testing.assert_frame_equal(df, before)  # the caller's frame is not modified
        assert got.index.equals(index) and list(got.columns) == list(want)
        for col in want:
            _assert_same_column(got[col].tolist(), want[col], f"{name}.{col}")
    pldf = frames["polars"]
    before = pldf.clone()
    eager = pldf.mycelium.score("ref", "pred", text="text", zero_division=zero_division)
    assert pldf.equals(before)
    lazy = _streaming(pldf.lazy().mycelium.score("ref", "pred", text="text",
                                                  zero_division=zero_division))
    for face, got in (("polars", eager), ("polars_streaming", lazy)):
        assert got.columns == list(want)
        for col in want:
            _assert_same_column(got[col].to_list(), want[col], f"{face}.{col}")


def test_score_keeps_rows_left_out_as_missing():
    c = F.columns(MISSING_ROWS)
    want = _per_example_columns(MISSING_ROWS, missing="drop", metrics="iou")
    got_pd = pd.DataFrame(c).mycelium.score("ref", "pred", missing="drop", metrics="iou")
    pldf = pl.DataFrame({"ref": c["ref"], "pred": c["pred"]})
    got_pl = pldf.mycelium.score("ref", "pred", missing="drop", metrics="iou")
    _assert_same_column(got_pd["iou_score"].tolist(), want["iou_score"], "pandas")
    _assert_same_column(got_pl["iou_score"].to_list(), want["iou_score"], "polars")
    assert got_pl["iou_score"].null_count() == 3


# -------------------------------------------------------------------------- errors

@pytest.mark.parametrize("kwargs", [dict(ref_col="nope", pred_col="pred"),
                                    dict(ref_col="ref", pred_col="nope"),
                                    dict(ref_col="ref", pred_col="pred", text="nope"),
                                    dict(ref_col="ref", pred_col="pred", by=["model", "nope"])])
def test_missing_columns_raise_key_error_listing_columns(frames, kwargs):
    faces = [frames["pandas_object"].mycelium, frames["polars"].mycelium,
             frames["polars"].lazy().mycelium, pl.scan_parquet(frames["parquet"]).mycelium]
    for face in faces:
        for method in ("evaluate", "score"):
            if method == "score" and "by" in kwargs:
                continue
            with pytest.raises(KeyError) as info:
                getattr(face, method)(**kwargs)
            message = str(info.value)
            assert "'nope' not found" in message
            assert all(repr(col) in message for col in ("ref", "pred", "text", "model"))


def test_bad_options_raise_before_collect(frames):
    lf = frames["polars"].lazy()
    with pytest.raises(ValueError, match="average='mean'"):
        lf.mycelium.evaluate("ref", "pred", average="mean")
    with pytest.raises(ValueError, match="Did you mean 'iou'"):
        lf.mycelium.evaluate("ref", "pred", metrics=["iuo"])
    with pytest.raises(TypeError, match="expected a column name"):
        frames["polars"].mycelium.evaluate("ref", "pred", by=3)


# ---------------------------------------------------------------- property (random)

span = st.tuples(st.integers(0, 20), st.integers(0, 8)).map(lambda t: [t[0], t[0] + t[1]])
row = st.tuples(st.lists(span, max_size=4), st.lists(span, max_size=4),
                st.just("x" * 30), st.sampled_from(["p", "q", None]),
                st.sampled_from([0, 1, None]))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(row, min_size=1, max_size=14), st.sampled_from(BYS),
       st.sampled_from(AVERAGES), st.sampled_from(ZERO_DIVISIONS), st.integers(1, 4))
def test_random_frames_agree(rows, by, average, zero_division, chunk):
    options = dict(average=average, zero_division=zero_division, text="text", by=by or None)
    want = F.truth_rows(rows, by, average=average, zero_division=zero_division)
    pldf = F.polars_frame(rows)
    with pl.Config(streaming_chunk_size=chunk):
        lazy = pldf.lazy().mycelium.evaluate("ref", "pred", **options).collect(
            engine="streaming")
    for face, frame in (("pandas", F.pandas_object(rows).mycelium.evaluate("ref", "pred",
                                                                         **options)),
                        ("polars", pldf.mycelium.evaluate("ref", "pred", **options)),
                        ("lazy", lazy)):
        F.assert_same_rows(F.tidy_rows(frame, by), want, face)


# ---------------------------------------------------------------------- registration

@pytest.mark.skipif(not have("polars"), reason="polars is an optional extra: "
                    "pip install -e '.[polars]'")
def test_polars_namespace_is_registered_lazily():
    code = (
        "import sys\n"
        "import mycelium\n"
        "assert 'polars' not in sys.modules, 'import mycelium imported polars'\n"
        "import polars as pl\n"
        "df = pl.DataFrame({'r': [[[0, 10]]], 'p': [[[2, 8]]]})\n"
        "print(df.mycelium.evaluate('r', 'p', metrics='iou')['value'].to_list())\n"
        "print(df.lazy().mycelium.evaluate('r', 'p', metrics='iou').collect()['value'][0])\n"
        "print(df.select(pl.col('r').mycelium.score('p', metric='iou', measure='score'))"
        ".item())\n")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=root, check=True)
    assert out.stdout.split() == ["[0.6]", "0.6", "0.6"]


def test_signature_column_matches_evaluate(frames):
    sig = mycelium.evaluate([[0, 1]], [[0, 1]], profile="ragtruth")["meta"]["signature"]
    eager = frames["polars"].mycelium.evaluate("ref", "pred", profile="ragtruth",
                                               with_signature=True)
    lazy = frames["polars"].lazy().mycelium.evaluate("ref", "pred", profile="ragtruth",
                                                     with_signature=True).collect()
    assert eager.columns[-1] == "signature" and set(eager["signature"]) == {sig}
    assert lazy.equals(eager)
    assert frames["pandas_object"].mycelium.evaluate(
        "ref", "pred", profile="ragtruth").attrs["mycelium_signature"] == sig
    assert mycelium.parse_signature(sig)


def test_all_metrics_are_covered():
    measures = {r[:2] for r in F.truth_rows(ROWS, [])}
    assert measures == {(m, k) for m, metric in METRICS.items() for k in metric.measures}
    for average in AVERAGES:  # the matrix meets undefined values under "nan"
        rows = F.truth_rows(ROWS, ["model"], zero_division="nan", average=average)
        assert np.isnan([r[3] for r in rows]).any()
