"""Group keys on the score path (``evaluate`` with scores, a threshold or an extra metric,
``sweep``, ``tune_threshold``) behave exactly as on the span path: integer keys beyond
2**53 and null keys stay distinct and keep their values and types, and ``True`` beside
``1`` is refused — on pandas, Polars eager and lazy, the dict face and the command line.

Each row below is its own group; per row, IoU is 1.0, 0.0, 1.0 (the token scores at
threshold 0.5 give the same spans as the predicted span column).
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from _optional import pl  # polars, or a stand-in that skips the test using it

import mycelium

BIG = 2**53
KEYS = [BIG, BIG + 1, None]
REFS = [[[0, 2]], [[0, 2]], [[0, 2]]]
PREDS = [[[0, 2]], [], [[0, 2]]]
TEXT = ["abcd"] * 3
OFFS = [[[0, 2], [2, 4]]] * 3
SCORES = [[0.9, 0.1], [0.1, 0.1], [0.9, 0.1]]
IOU = [1.0, 0.0, 1.0]
TOKENS = dict(text="text", token_offsets_col="offs", token_scores_col="sc")

#: Score-path calls of a frame face: (call, keyword arguments, metric read, measure read).
CALLS = {
    "response_level": ("evaluate", dict(pred_col="pred", text="text",
                                        metrics=["iou", "response_level"]), "iou", "score"),
    "ragtruth": ("evaluate", dict(pred_col="pred", text="text", profile="ragtruth"),
                 "character", "f1"),
    "tokens": ("evaluate", dict(threshold=0.5, metrics="iou", **TOKENS), "iou", "score"),
    "sweep": ("sweep", dict(thresholds=[0.5], metrics="iou", **TOKENS), "iou", "score"),
}


def _pandas(keys=KEYS, dtype=object) -> pd.DataFrame:
    return pd.DataFrame({"g": pd.Series(keys, dtype=dtype), "ref": REFS, "pred": PREDS,
                         "text": TEXT, "offs": OFFS, "sc": SCORES})


def _values(out, metric, measure) -> list[float]:
    rows = out[(out["metric"] == metric) & (out["measure"] == measure)]
    return rows["value"].tolist()


@pytest.mark.parametrize("case", sorted(CALLS))
def test_pandas_object_keys_beyond_2_53_and_null_stay_three_groups(case):
    call, kw, metric, measure = CALLS[case]
    out = getattr(_pandas().mycelium, call)("ref", by="g", **kw)
    rows = out[(out["metric"] == metric) & (out["measure"] == measure)]
    assert rows["g"].tolist() == KEYS  # Python ints and None, as on the span path
    assert [type(v) for v in rows["g"].tolist()[:2]] == [int, int]
    assert rows["value"].tolist() == IOU
    assert rows["examples"].tolist() == [1, 1, 1]


@pytest.mark.parametrize("case", sorted(CALLS))
def test_pandas_nullable_int_keys_keep_their_dtype(case):
    call, kw, metric, measure = CALLS[case]
    out = getattr(_pandas(dtype="Int64").mycelium, call)("ref", by="g", **kw)
    rows = out[(out["metric"] == metric) & (out["measure"] == measure)]
    assert out["g"].dtype == "Int64"
    assert rows["g"].tolist()[:2] == [BIG, BIG + 1] and rows["g"].isna().tolist()[2]
    assert rows["value"].tolist() == IOU


def test_pandas_tune_threshold_by_big_keys():
    out = _pandas().mycelium.tune_threshold("ref", by="g", thresholds=[0.5], **TOKENS)
    assert out["g"].tolist() == KEYS
    assert out["value"].tolist() == IOU and out["examples"].tolist() == [1, 1, 1]


def _polars():
    return pl.DataFrame({"g": KEYS, "ref": REFS, "pred": PREDS, "text": TEXT, "offs": OFFS,
                         "sc": SCORES})


@pytest.mark.parametrize("case", sorted(CALLS))
@pytest.mark.parametrize("lazy", [False, True])
def test_polars_int64_keys_beyond_2_53_with_null_stay_three_groups(case, lazy):
    call, kw, metric, measure = CALLS[case]
    if lazy and call != "evaluate":
        pytest.skip("the lazy face has no sweep")
    df = _polars()
    out = getattr((df.lazy() if lazy else df).mycelium, call)("ref", by="g", **kw)
    out = out.collect() if lazy else out
    rows = out.filter((pl.col("metric") == metric) & (pl.col("measure") == measure))
    assert out["g"].dtype == pl.Int64
    assert rows["g"].to_list() == KEYS
    assert rows["value"].to_list() == IOU
    assert rows["examples"].to_list() == [1, 1, 1]


def test_polars_tune_threshold_by_big_keys():
    out = _polars().mycelium.tune_threshold("ref", by="g", thresholds=[0.5], **TOKENS)
    assert out["g"].dtype == pl.Int64
    assert out["g"].to_list() == KEYS and out["value"].to_list() == IOU


# ------------------------------------------------------------------ the dict face

DICT = dict(text=TEXT, token_offsets=OFFS, token_scores=SCORES, thresholds=[0.5],
            metrics="iou")


def test_dict_sweep_by_big_int_keys_and_null():
    out = mycelium.sweep(REFS, by={"g": KEYS}, **DICT)
    assert out["g"].tolist() == KEYS  # a null key comes back None, not NaN
    assert [type(v) for v in out["g"].tolist()[:2]] == [int, int]
    assert out["value"].tolist() == IOU
    best = mycelium.tune_threshold(REFS, by={"g": KEYS}, **{k: v for k, v in DICT.items()
                                                             if k != "metrics"})
    assert best["g"].tolist() == KEYS and best["value"].tolist() == IOU


def test_dict_sweep_by_columns_of_different_types_keeps_each_type():
    out = mycelium.sweep(REFS, by={"a": KEYS, "b": [0.5, 0.5, 0.5]}, **DICT)
    assert out["a"].tolist() == KEYS  # not relabelled 2**53.0 by the float column
    assert out["b"].dtype == "float64" and out["b"].tolist() == [0.5, 0.5, 0.5]
    assert out["value"].tolist() == IOU


def test_dict_sweep_by_series_keeps_its_dtype():
    keys = pd.Series(KEYS, dtype="Int64", name="lang")
    out = mycelium.sweep(REFS, by=keys, **DICT)
    assert out["lang"].dtype == "Int64" and out["value"].tolist() == IOU


# ------------------------------------------------------------------ True beside 1

MIXED = [True, 1, 1]


@pytest.mark.parametrize("case", sorted(CALLS))
def test_pandas_true_and_1_are_refused_on_the_score_path(case):
    call, kw, _, _ = CALLS[case]
    df = _pandas(MIXED)
    with pytest.raises(TypeError, match="mix of bool, int"):
        df.mycelium.evaluate("ref", "pred", by="g", metrics="iou")  # the span path
    with pytest.raises(TypeError, match="mix of bool, int"):
        getattr(df.mycelium, call)("ref", by="g", **kw)


@pytest.mark.parametrize("run", ["sweep", "tune_threshold"])
def test_dict_true_and_1_are_refused(run):
    kw = {k: v for k, v in DICT.items() if run == "sweep" or k != "metrics"}
    for by in (MIXED, {"g": MIXED}, [1, True, 1]):
        with pytest.raises(TypeError, match="mix of bool, int"):
            getattr(mycelium, run)(REFS, by=by, **kw)


# ------------------------------------------------------------------ the command line

@pytest.mark.parametrize("suffix", ["parquet", "jsonl"])
def test_cli_score_path_keys_beyond_2_53(tmp_path, capsys, suffix):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from mycelium.cli import main

    rows = [dict(g=g, ref=r, pred=p, text=t, offs=o, sc=s) for g, r, p, t, o, s in
            zip(KEYS, REFS, PREDS, TEXT, OFFS, SCORES)]
    path = tmp_path / f"rows.{suffix}"
    if suffix == "jsonl":
        path.write_text("\n".join(json.dumps(r) for r in rows))
    else:  # an Int64 key column with a null, as Arrow writes it
        pq.write_table(pa.Table.from_pylist(rows), path)
    base = ["evaluate", str(path), "--ref-col", "ref", "--text-col", "text", "--by", "g",
            "--format", "json"]
    for extra in (["--pred-col", "pred", "--metrics", "iou,response_level"],
                  ["--pred-col", "pred", "--profile", "ragtruth", "--metrics", "iou"],
                  ["--threshold", "0.5", "--token-offsets-col", "offs",
                   "--token-scores-col", "sc", "--metrics", "iou,response_level"]):
        assert main(base + extra) == 0
        records = json.loads(capsys.readouterr().out)["records"]
        out = [r for r in records if r["metric"] == "iou"]
        assert [r["g"] for r in out] == KEYS, extra
        assert [r["value"] for r in out] == IOU, extra
