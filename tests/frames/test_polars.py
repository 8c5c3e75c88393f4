"""The Polars namespace in particular: the lazy plan stays lazy, streams in batches and
reduces every average through Polars' group_by sums (one row per group reaches Python),
equal to the eager face and to `mycelium.evaluate` bit for bit; the expression
namespace gives each row's statistics and values."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

pl = pytest.importorskip("polars", reason="polars is an optional extra: pip install -e '.[polars]'")

import mycelium
from mycelium.core import engine_sums
from mycelium.frames import polars_lazy
from mycelium.evaluate import compute_statistics, prepare
from mycelium.metrics import METRICS
from mycelium.frames.polars import SPAN_DTYPE
from mycelium.core.settings import resolve_settings

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _faces as F  # noqa: E402

ROWS = F.make_rows(n=30, seed=11)
INTEGER_METRICS = ["exact_span", "iou", "character", "deteval_1d", "span_coverage"]


def _streaming(lf: pl.LazyFrame, chunk: int = 4) -> pl.DataFrame:
    with pl.Config(streaming_chunk_size=chunk):
        return lf.collect(engine="streaming")


@pytest.fixture()
def batches(monkeypatch):
    """The sizes of the batches the lazy plan validates and scores."""
    sizes: list[int] = []
    original = polars_lazy.prepare_batch

    def counting(batch, missing, settings=None, **kwargs):
        sizes.append(len(batch))
        return original(batch, missing, settings, **kwargs)

    monkeypatch.setattr(polars_lazy, "prepare_batch", counting)
    return sizes


@pytest.mark.parametrize("average,metrics", [("macro", None), ("micro", None),
                                             ("micro", INTEGER_METRICS)])
def test_lazy_plan_runs_on_collect_in_batches(batches, average, metrics):
    df = F.polars_frame(ROWS)
    plan = df.lazy().mycelium.evaluate("ref", "pred", by="model", average=average,
                                       metrics=metrics)
    assert isinstance(plan, pl.LazyFrame) and batches == []
    got = _streaming(plan, chunk=4)
    assert len(batches) >= len(ROWS) // 4 and max(batches) <= 4
    assert sum(batches) == len(ROWS)
    assert got.equals(df.mycelium.evaluate("ref", "pred", by="model", average=average,
                                           metrics=metrics))


CLEVAL_W = [{"cleval_1d": {"granularity_penalty_weight": w}} for w in (0.3, 0.5)]


@pytest.fixture()
def finished(monkeypatch):
    """The heights of the frames the lazy plan hands to Python after Polars' group_by."""
    heights: list[int] = []
    original = polars_lazy._finish_sums

    def recording(df, **kwargs):
        heights.append(df.height)
        sums = [c.label for c in kwargs["layout"] if c.integer]
        assert sums and all(df.schema[name] == pl.Int128 for name in sums)
        return original(df, **kwargs)

    monkeypatch.setattr(polars_lazy, "_finish_sums", recording)
    return heights


@pytest.mark.parametrize("average", ["macro", "micro"])
@pytest.mark.parametrize("params", [None, *CLEVAL_W])
def test_every_average_is_summed_by_polars(finished, average, params):
    # The plan: Python scores each batch of rows into per-group sums of exact integer
    # columns, Polars adds them up per group (Int128) and only one row per group
    # reaches Python again: no per-row values are collected, for macro and for
    # fractional CLEval weights too.
    df = F.polars_frame(ROWS)
    plan = df.lazy().mycelium.evaluate("ref", "pred", by=["model", "lang"],
                                       average=average, params=params)
    nodes = [word for line in plan.explain().splitlines()
             for word in [line.strip().split("[")[0]]
             if word in ("OPAQUE_PYTHON", "AGGREGATE", "SELECT")]
    assert nodes == ["OPAQUE_PYTHON", "AGGREGATE", "OPAQUE_PYTHON"]
    got = _streaming(plan, chunk=3)
    groups = df.select("model", "lang").unique().height
    assert finished == [groups] and len(ROWS) > 2 * groups
    assert got.equals(df.mycelium.evaluate("ref", "pred", by=["model", "lang"],
                                           average=average, params=params), null_equal=True)
    whole = df.lazy().mycelium.evaluate("ref", "pred", average=average, params=params)
    assert _streaming(whole, chunk=5).equals(
        df.mycelium.evaluate("ref", "pred", average=average, params=params))
    assert finished[-1] == 1  # without groups: one row of sums


@pytest.mark.parametrize("average", ["macro", "micro"])
@pytest.mark.parametrize("zero_division", [0.0, 1.0, "nan"])
@pytest.mark.parametrize("by", [None, "model", ["model", "lang"]])
def test_streaming_equals_eager_and_evaluate(average, zero_division, by):
    # Small batches (3 rows), null keys in both key columns, every metric.
    df = F.polars_frame(ROWS)
    keys = frames_by(by)
    options = dict(average=average, zero_division=zero_division)
    lazy = _streaming(df.lazy().mycelium.evaluate("ref", "pred", text="text", by=by,
                                                  **options), chunk=3)
    eager = df.mycelium.evaluate("ref", "pred", text="text", by=by, **options)
    assert lazy.equals(eager, null_equal=True)
    F.assert_same_rows(F.tidy_rows(lazy, keys), F.truth_rows(ROWS, keys, **options),
                       "polars streaming")


def frames_by(by) -> list[str]:
    return [] if by is None else [by] if isinstance(by, str) else list(by)


def _tiny_value_rows(n=40, seed=3):
    """Rows whose per-example values have bits below 2**-84 (limb residuals) and whose
    CLEval numerators are fractional under a fractional penalty weight."""
    rng = np.random.default_rng(seed)
    refs, preds, keys = [], [], []
    for i in range(n):
        big = int(rng.integers(2**40, 2**61))
        refs.append([[0, big]] if i % 3 else [[0, 10], [12, 20]])
        cut = int(rng.integers(1, 9))
        preds.append([[0, cut], [cut, cut + 2], [cut + 3, int(rng.integers(cut + 4, 40))]])
        keys.append([None, 1.5, float("nan"), 2.5][i % 4])
    df = pl.DataFrame({"ref": [F.as_dicts(x) for x in refs],
                       "pred": [F.as_dicts(x) for x in preds], "k": keys},
                      schema_overrides={"ref": SPAN_DTYPE, "pred": SPAN_DTYPE,
                                        "k": pl.Float64})
    return refs, preds, df


@pytest.mark.parametrize("average", ["macro", "micro"])
@pytest.mark.parametrize("params", [None, *CLEVAL_W])
def test_tiny_values_and_fractional_weights_stay_exact(average, params):
    # Residuals below the limbs and fractional CLEval numerators are split into exact
    # integers before Polars sums them (mycelium.core.engine_sums): any batching gives the
    # eager numbers, which are mycelium.evaluate's.
    refs, preds, df = _tiny_value_rows()
    settings = resolve_settings(average=average, params=params)
    prepared = prepare(refs, preds)
    columns = engine_sums.engine_columns(
        compute_statistics(prepared.refs, prepared.preds, settings.span_metrics,
                           settings.params), settings)
    exercised = [k for k, v in columns.items()
                 if k.endswith(("#res", "#fractional")) and v.any()]
    # micro with an integer weight has only integer statistics: nothing to split
    assert bool(exercised) == (average == "macro" or params is not None)
    for by in (None, "k"):
        eager = df.mycelium.evaluate("ref", "pred", by=by, average=average, params=params)
        for chunk in (1, 7):
            lazy = _streaming(df.lazy().mycelium.evaluate(
                "ref", "pred", by=by, average=average, params=params), chunk=chunk)
            assert lazy.equals(eager, null_equal=True)
    report = mycelium.evaluate(refs, preds, average=average, params=params)
    want = [report[m][k] for m in METRICS for k in METRICS[m].measures]
    got = df.mycelium.evaluate("ref", "pred", average=average, params=params)
    assert all(F.same_float(a, b) for a, b in zip(got["value"], want))


def test_integer_valued_float_statistics_keep_the_eager_types():
    # With a fractional penalty weight but no penalty, CLEval numerators are floats
    # holding integers; the eager reduction sums them as integers (exact F1), and the
    # lazy plan must do the same: counts beyond 2**26 make the difference visible.
    rng = np.random.default_rng(4)
    refs, preds = [], []
    for _ in range(60):
        a = int(rng.integers(2**30, 2**40))
        refs.append([[0, a]])
        preds.append([[int(rng.integers(1, a)), int(rng.integers(a, 2**41))]])
    df = pl.DataFrame({"ref": [F.as_dicts(x) for x in refs],
                       "pred": [F.as_dicts(x) for x in preds], "k": np.arange(60) // 3},
                      schema_overrides={"ref": SPAN_DTYPE, "pred": SPAN_DTYPE})
    options = dict(by="k", average="micro", metrics="cleval_1d",
                   params={"cleval_1d": {"granularity_penalty_weight": 0.5}})
    eager = df.mycelium.evaluate("ref", "pred", **options)
    assert _streaming(df.lazy().mycelium.evaluate("ref", "pred", **options),
                      chunk=5).equals(eager)


@pytest.mark.parametrize("average", ["macro", "micro"])
def test_dropped_rows_are_neither_summed_nor_counted(average):
    df = F.polars_frame(ROWS).with_columns(
        ref=pl.when(pl.int_range(pl.len()) % 5 == 0).then(None).otherwise(pl.col("ref")))
    eager = df.mycelium.evaluate("ref", "pred", by="model", average=average,
                                 missing="drop")
    lazy = _streaming(df.lazy().mycelium.evaluate("ref", "pred", by="model",
                                                  average=average, missing="drop"), chunk=4)
    assert lazy.equals(eager, null_equal=True)
    per_group = lazy.group_by("model").agg(pl.col("examples").first())["examples"].sum()
    assert per_group == len(ROWS) - (len(ROWS) + 4) // 5


def test_micro_sums_beyond_int64_stay_exact():
    # Sums of these lengths pass 2**63 (int64 would wrap), and rounding them to floats
    # before dividing would change the last bit: Polars sums them in Int128 and
    # mycelium divides the exact integers once.
    ends = [2785807943448201102, 3537554737846223930, 2879697409082063085,
            4528682202291958722]
    pred_ends = [2625798186439801228, 3382711985973226843, 1946316425436667705,
                 1460115199896047795]
    refs, preds = [[[0, e]] for e in ends], [[[0, e]] for e in pred_ends]
    df = pl.DataFrame({"ref": [F.as_dicts(x) for x in refs],
                       "pred": [F.as_dicts(x) for x in preds], "k": [1, 1, 2, 2]},
                      schema_overrides={"ref": SPAN_DTYPE, "pred": SPAN_DTYPE})
    metrics = ["iou", "character"]
    for by, groups in ((None, [range(4)]), ("k", [range(2), range(2, 4)])):
        eager = df.mycelium.evaluate("ref", "pred", by=by, average="micro", metrics=metrics)
        lazy = _streaming(df.lazy().mycelium.evaluate("ref", "pred", by=by, average="micro",
                                                      metrics=metrics), chunk=1)
        assert lazy.equals(eager)
        want = []
        for idx in groups:
            r = mycelium.evaluate([refs[i] for i in idx], [preds[i] for i in idx],
                                  average="micro", metrics=metrics)
            want += [r["iou"]["score"], *r["character"].values()]
        assert eager["value"].to_list() == want
    inter, union = sum(pred_ends), sum(ends)
    assert union > 2**63 and float(inter) / float(union) != inter / union
    whole = df.lazy().mycelium.evaluate("ref", "pred", average="micro", metrics="iou")
    assert _streaming(whole, chunk=1)["value"].to_list() == [inter / union]


def test_nan_and_null_keys_form_one_group_in_every_path():
    keys = [1.0, float("nan"), None, float("nan"), 2.0, None, 1.0, None]
    rows = ROWS[:len(keys)]
    df = F.polars_frame(rows).with_columns(h=pl.Series(keys, dtype=pl.Float64))
    for average, metrics in (("micro", INTEGER_METRICS), ("micro", None), ("macro", None)):
        eager = df.mycelium.evaluate("ref", "pred", by="h", average=average, metrics=metrics)
        lazy = _streaming(df.lazy().mycelium.evaluate("ref", "pred", by="h", average=average,
                                                      metrics=metrics), chunk=2)
        assert lazy.equals(eager, null_equal=True)
        assert eager["h"].unique(maintain_order=True).len() == 3
        pandas = F.pandas_object(rows).assign(h=keys).mycelium.evaluate(
            "ref", "pred", by="h", average=average, metrics=metrics)
        assert all(F.same_float(a, b) for a, b in zip(pandas["value"], eager["value"]))


@pytest.mark.parametrize("by", [None, "model"])
def test_empty_frames(by):
    df = F.polars_frame(ROWS).head(0)
    for average, metrics in (("micro", INTEGER_METRICS), ("micro", None), ("macro", None)):
        eager = df.mycelium.evaluate("ref", "pred", by=by, average=average, metrics=metrics)
        lazy = df.lazy().mycelium.evaluate("ref", "pred", by=by, average=average,
                                           metrics=metrics).collect(engine="streaming")
        assert lazy.equals(eager, null_equal=True)
        assert eager.height == (0 if by else lazy.height) and eager["examples"].sum() == 0
    empty = pa.array([], mycelium.SPAN_TYPE)
    want = mycelium.evaluate(empty, empty, metrics="iou", average="micro")["iou"]["score"]
    got = df.lazy().mycelium.evaluate("ref", "pred", metrics="iou", average="micro")
    # no examples, no score: NaN (a micro IoU of empty sums is 1.0 only over examples)
    assert math.isnan(want)
    assert by or all(map(math.isnan, got.collect()["value"].to_list()))


def test_lazy_span_errors_name_the_frame_row():
    df = pl.DataFrame({"ref": [[[0, 5]]] * 10 + [[[5, 2]]], "pred": [[[0, 5]]] * 11})
    with pytest.raises(mycelium.SpanValidationError) as eager:
        df.mycelium.evaluate("ref", "pred")
    for plan in (df.lazy().mycelium.evaluate("ref", "pred"),
                 df.lazy().mycelium.evaluate("ref", "pred", average="micro", metrics="iou"),
                 df.lazy().mycelium.score("ref", "pred")):
        with pytest.raises(mycelium.SpanValidationError) as lazy:
            _streaming(plan, chunk=3)
        assert str(eager.value) in str(lazy.value)
        assert "references example 10, span 0: start 5 > end 2" in str(lazy.value)


def test_text_bounds_are_checked_in_the_lazy_plan():
    df = pl.DataFrame({"ref": [[[0, 5]], [[0, 9]]], "pred": [[[0, 5]], []],
                       "text": ["abcdefgh", "abcdefgh"]})
    with pytest.raises(mycelium.SpanValidationError, match="references example 1"):
        _streaming(df.lazy().mycelium.evaluate("ref", "pred", text="text"), chunk=1)


def test_scan_parquet_reads_only_the_needed_columns(tmp_path):
    df = F.polars_frame(ROWS).with_columns(unused=pl.lit("x" * 100))
    path = tmp_path / "rows.parquet"
    df.write_parquet(path)
    plan = pl.scan_parquet(path).mycelium.evaluate("ref", "pred", by="lang")
    assert "unused" not in plan.explain()
    assert _streaming(plan).equals(df.mycelium.evaluate("ref", "pred", by="lang"))


# --------------------------------------------------------------------- expressions

def _pl(rows):
    return F.polars_frame(rows)


@pytest.mark.parametrize("metric", list(METRICS))
def test_expression_statistics_equal_core_statistics(metric):
    df = _pl(ROWS)
    with pl.Config(streaming_chunk_size=4):
        got = (df.lazy().select(pl.col("ref").mycelium.statistics("pred", metric=metric))
               .collect(engine="streaming"))
    c = F.columns(ROWS)
    want = mycelium.statistics(c["ref"], c["pred"], metrics=[metric])[metric]
    assert got.columns == [metric]
    assert got[metric].struct.fields == list(want)
    for name, values in want.items():
        np.testing.assert_array_equal(got[metric].struct.field(name).to_numpy(), values)


def test_expression_statistics_summed_per_group_give_micro():
    df = _pl(ROWS)
    st = pl.col("ref").mycelium.statistics("pred", metric="character")
    sums = (df.group_by("model").agg(st.struct.field(k).sum() for k in ("tp", "fp", "fn"))
            .sort("model", nulls_last=True))
    frame = df.mycelium.evaluate("ref", "pred", by="model", metrics="character",
                                 average="micro")
    for row in sums.iter_rows(named=True):
        stats = {"character": {k: np.array([row[k]]) for k in ("tp", "fp", "fn")}}
        want = mycelium.aggregate(stats, average="micro")["character"]
        got = frame.filter(pl.col("model").eq_missing(row["model"]))
        assert got["value"].to_list() == list(want.values())


@pytest.mark.parametrize("zero_division", [0.0, 1.0, "nan"])
def test_expression_score_equals_frame_score(zero_division):
    df = _pl(ROWS)
    frame = df.mycelium.score("ref", "pred", text="text", zero_division=zero_division)
    exprs = [pl.col("ref").mycelium.score(pl.col("pred"), metric=m, measure=k, text="text",
                                          zero_division=zero_division)
             for m in METRICS for k in METRICS[m].measures]
    with pl.Config(streaming_chunk_size=3):
        got = df.lazy().select(exprs).collect(engine="streaming")
    assert got.columns == frame.columns
    for col in frame.columns:
        assert all(F.same_float(a, b) for a, b in zip(got[col], frame[col])), col


def test_expression_missing_rows_are_null():
    df = pl.DataFrame({"ref": [[[0, 5]], None, [[1, 3]]], "pred": [[[0, 4]], [[1, 2]], None]})
    got = df.select(
        pl.col("ref").mycelium.statistics("pred", metric="iou", missing="drop"),
        pl.col("ref").mycelium.score("pred", metric="iou", measure="score", missing="drop"))
    assert got["iou"].to_list() == [{"inter": 4, "union": 5}, None, None]
    assert got["iou_score"].to_list() == [0.8, None, None]
    with pytest.raises(mycelium.SpanValidationError, match="references example 1 is null"):
        df.select(pl.col("ref").mycelium.score("pred", metric="iou", measure="score"))


def test_expression_bad_arguments():
    ref = pl.col("ref").mycelium
    with pytest.raises(ValueError, match="Did you mean 'iou'"):
        ref.statistics("pred", metric="iuo")
    with pytest.raises(TypeError, match="one metric name"):
        ref.statistics("pred", metric=["iou"])
    with pytest.raises(ValueError, match="Valid iou measures: score"):
        ref.score("pred", metric="iou", measure="f1")
    with pytest.raises(TypeError, match="polars expression"):
        ref.score(3, metric="iou", measure="score")
    with pytest.raises(ValueError, match="zero_division"):
        ref.score("pred", metric="character", measure="f1", zero_division=2)


def test_score_columns_of_dropped_rows_are_null_in_every_polars_face():
    df = pl.DataFrame({"ref": [[[0, 5]], None], "pred": [[[0, 4]], [[1, 2]]]})
    eager = df.mycelium.score("ref", "pred", metrics="iou", missing="drop")
    lazy = df.lazy().mycelium.score("ref", "pred", metrics="iou", missing="drop").collect()
    assert eager.equals(lazy) and eager["iou_score"].to_list() == [0.8, None]
    nan = df.mycelium.score("ref", "pred", metrics="character", missing="empty",
                            zero_division="nan")["character_recall"]
    assert nan[0] == 0.8 and math.isnan(nan[1])  # undefined (NaN) differs from left out


HUGE = {  # det_chars = 3 * 2**62 - 3 in one row (beyond int64); 20 x 2**61 in one sum
    "overlapping": ([[[0, 2**62]]], [[[0, 2**62], [1, 2**62], [2, 2**62]]]),
    "many": ([[[0, 2**61]]] * 20, [[[0, 2**60]]] * 20),
}


@pytest.mark.parametrize("case", sorted(HUGE))
@pytest.mark.parametrize("average", ["micro", "macro"])
def test_lazy_plan_is_exact_on_huge_statistics(case, average):
    refs, preds = HUGE[case]
    metrics = ["deteval_1d", "cleval_1d", "iou"]
    lf = pl.LazyFrame({"ref": refs, "pred": preds},
                      schema={"ref": pl.List(pl.List(pl.Int64)),
                              "pred": pl.List(pl.List(pl.Int64))})
    got = _streaming(lf.mycelium.evaluate("ref", "pred", metrics=metrics, average=average),
                     chunk=3)
    want = mycelium.evaluate(refs, preds, metrics=metrics, average=average)
    assert {(m, k): v for m, k, v in got.select("metric", "measure", "value").iter_rows()} \
        == {(m, k): v for m in metrics for k, v in want[m].items()}
    if case == "overlapping":
        assert want["cleval_1d"]["precision"] == 2**62 / (3 * 2**62 - 3)
