"""``df.mycelium.compare``: wide and long layouts, per group, equal to direct
`mycelium.compare` calls bit for bit (pandas and Polars), and clear failures
when the rows of different detectors do not pair."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _optional import pl  # polars, or a stand-in that skips the test using it

from mycelium.stats.comparison import COLUMNS, compare

from _frames_data import (FACES, column, group_rows, make_rows, records, same_records)

ROWS = make_rows(n=36, seed=5)
for _i, _r in enumerate(ROWS):  # a third detector: the references, shifted by one
    _r["shifted"] = [[s + 1, e] for s, e in _r["ref"] if s + 1 < e]
OPTIONS = dict(n_resamples=80, seed=2, metrics=["iou", "character"])
DETECTORS = ["pred", "ref", "shifted"]


def wide(face, rows=ROWS):
    df = FACES[face](rows)
    shifted = [r["shifted"] for r in rows]
    if isinstance(df, pl.DataFrame):
        return df.with_columns(pl.Series("shifted", shifted,
                                         dtype=pl.List(pl.List(pl.Int64))))
    return df.assign(shifted=shifted)


def long_rows(rows=ROWS, seed=1):
    """One row per (example, detector), detector names sorted as the wide columns."""
    out = [{"id": r["id"], "detector": d, "ref": r["ref"], "pred": r[d], "text": r["text"],
            "model": r["model"]} for r in rows for d in DETECTORS]
    order = np.random.default_rng(seed).permutation(len(out))
    return [out[i] for i in order]


def long_frame(rows, polars=False):
    c = {name: column(rows, name) for name in rows[0]}
    return pl.DataFrame(c) if polars else pd.DataFrame(c)


def expected(rows, by, *, ids: bool, **options):
    """`compare` on each group's rows (frame order), keyed by ids or group positions."""
    out = []
    for key, idx in group_rows(rows, by).items():
        frame = compare([rows[i]["ref"] for i in idx],
                        {d: [rows[i][d] for i in idx] for d in DETECTORS},
                        text=[rows[i]["text"] for i in idx],
                        ids=[rows[i]["id"] for i in idx] if ids else None, **options)
        out += [dict(zip(by, key), **r) for r in records(frame)]
    return out


@pytest.mark.parametrize("face", ["pandas_object", "pandas_arrow", "polars"])
@pytest.mark.parametrize("by", [[], ["model"]])
@pytest.mark.parametrize("ids", [False, True])
def test_wide_equals_compare_per_group(face, by, ids):
    out = wide(face).mycelium.compare("ref", DETECTORS, by=by or None, text="text",
                                      id_col="id" if ids else None, **OPTIONS)
    assert list(out.columns) == [*by, *COLUMNS]
    assert same_records(records(out), expected(ROWS, by, ids=ids, **OPTIONS))


@pytest.mark.parametrize("test", ["paired_bootstrap", "permutation"])
def test_baseline_test_and_average_pass_through(test):
    options = dict(OPTIONS, test=test, average="micro", baseline="shifted", ci=0.8)
    out = wide("pandas_object").mycelium.compare("ref", DETECTORS, by="model", text="text",
                                                 **options)
    assert set(out.detector_b) == {"shifted"} and set(out.test) == {test}
    assert same_records(records(out), expected(ROWS, ["model"], ids=False, **options))


def test_holm_runs_within_each_group():
    out = wide("pandas_object").mycelium.compare("ref", DETECTORS, by="model", **OPTIONS)
    for _, group in out.groupby("model", dropna=False):
        for _, family in group.groupby(["metric", "measure"]):
            assert len(family) == 3  # three pairs of three detectors
            p = np.sort(family.p_value.to_numpy())
            assert family.p_holm.min() == pytest.approx(min(1.0, 3 * p[0]))


@pytest.mark.parametrize("polars", [False, True])
@pytest.mark.parametrize("by", [[], ["model"]])
def test_long_format_equals_wide_format_with_ids(polars, by):
    rows = long_rows()
    out = long_frame(rows, polars).mycelium.compare(
        "ref", "pred", detector_col="detector", id_col="id", by=by or None, text="text",
        **OPTIONS)
    want = wide("polars" if polars else "pandas_object").mycelium.compare(
        "ref", DETECTORS, id_col="id", by=by or None, text="text", **OPTIONS)
    assert same_records(records(out), records(want))
    assert same_records(records(out), expected(ROWS, by, ids=True, **OPTIONS))


def test_long_format_alignment_failures():
    rows = long_rows()
    df = long_frame(rows)
    call = dict(detector_col="detector", id_col="id", metrics="iou", n_resamples=10)

    missing = df[~((df.detector == "shifted") & (df.id == ROWS[4]["id"]))]
    with pytest.raises(ValueError, match=rf"detector 'shifted' has no row for 1 example "
                                         rf"id\(s\) that other detectors have "
                                         rf"\({ROWS[4]['id']}\)"):
        missing.mycelium.compare("ref", "pred", **call)

    extra = pd.concat([df, df[df.detector == "ref"].head(1)], ignore_index=True)
    with pytest.raises(ValueError, match="detector 'ref' has example id .* in more than one "
                                         "row"):
        extra.mycelium.compare("ref", "pred", **call)

    changed = df.copy()
    k = int(np.flatnonzero((df.detector == "shifted") & (df.id == ROWS[7]["id"]))[0])
    changed.at[k, "ref"] = [[0, 1]] if ROWS[7]["ref"] != [[0, 1]] else [[0, 2]]
    with pytest.raises(ValueError, match=rf"references differ between detectors 'pred' "
                                         rf"and 'shifted' for example id {ROWS[7]['id']} "):
        changed.mycelium.compare("ref", "pred", **call)

    texts = df.copy()
    texts.at[k, "text"] = "another text, long enough for every span in these rows" * 2
    with pytest.raises(ValueError, match="texts differ between detectors"):
        texts.mycelium.compare("ref", "pred", text="text", **call)

    with pytest.raises(ValueError, match="detector_col 'detector' is also a by column"):
        df.mycelium.compare("ref", "pred", by=["model", "detector"], **call)
    with pytest.raises(ValueError, match="pass id_col"):
        df.mycelium.compare("ref", "pred", detector_col="detector")
    with pytest.raises(ValueError, match="has 1 detector"):
        df[df.detector == "ref"].mycelium.compare("ref", "pred", **call)
    nulls = df.astype({"detector": object})
    nulls.at[3, "detector"] = None
    with pytest.raises(ValueError, match="detector_col 'detector' is null in row 3"):
        nulls.mycelium.compare("ref", "pred", **call)


def test_alignment_failure_names_the_group():
    df = long_frame(long_rows())
    k = int(np.flatnonzero((df.detector == "pred") & (df.model == "b"))[0])
    broken = df.drop(index=k)
    with pytest.raises(ValueError, match="in group model='b': detector 'pred' has no row"):
        broken.mycelium.compare("ref", "pred", detector_col="detector", id_col="id",
                                by="model", metrics="iou", n_resamples=10)


def test_polars_alignment_failure():
    df = long_frame(long_rows(), polars=True)
    broken = df.filter(~((pl.col("detector") == "ref") & (pl.col("id") == ROWS[0]["id"])))
    with pytest.raises(ValueError, match="detector 'ref' has no row"):
        broken.mycelium.compare("ref", "pred", detector_col="detector", id_col="id",
                                metrics="iou", n_resamples=10)


def test_wide_format_errors():
    df = wide("pandas_object")
    with pytest.raises(TypeError, match="is one column; pass a list"):
        df.mycelium.compare("ref", "pred")
    with pytest.raises(TypeError, match="at least two"):
        df.mycelium.compare("ref", ["pred"])
    with pytest.raises(KeyError, match="pred_cols column 'nope' not found"):
        df.mycelium.compare("ref", ["pred", "nope"])
    with pytest.raises(KeyError, match="baseline 'x' is not one of the detectors"):
        df.mycelium.compare("ref", ["pred", "ref"], baseline="x", n_resamples=10)
    dup = df.assign(id=[1] * len(df))
    with pytest.raises(ValueError, match="occurs more than once"):
        dup.mycelium.compare("ref", ["pred", "ref"], id_col="id", n_resamples=10)
    bad = df.copy()
    bad.at[6, "shifted"] = [[5, 2]]
    with pytest.raises(Exception, match="example 6"):  # frame position, not group position
        bad.mycelium.compare("ref", DETECTORS, by="model", n_resamples=10)


def test_self_comparison_and_signature():
    df = wide("pandas_object").assign(copy=lambda d: d["pred"])
    out = df.mycelium.compare("ref", ["pred", "copy"], metrics="iou", n_resamples=50)
    assert out.difference.tolist() == [0.0] and out.p_value.tolist() == [1.0]
    assert out.attrs["mycelium_signature"].endswith("|test:paired_bootstrap")
    pl_out = wide("polars").mycelium.compare("ref", ["pred", "ref"], metrics="iou",
                                             n_resamples=50, with_signature=True)
    assert pl_out.columns[-1] == "signature"
    assert pl_out["signature"][0].endswith("|test:paired_bootstrap")


def test_both_faces_share_one_compare_and_evaluate_signature():
    # One definition (mycelium.frames.face.FrameFace) serves both faces: the keywords a
    # user sees with inspect.signature or an IDE are the same on pandas and Polars.
    import inspect

    from mycelium.frames.pandas import MyceliumAccessor

    for name in ("evaluate", "compare", "sweep", "tune_threshold"):
        pd_sig = inspect.signature(getattr(pd.DataFrame.mycelium, name))
        assert pd_sig == inspect.signature(getattr(MyceliumAccessor, name))
        if hasattr(pl.DataFrame, "mycelium"):  # Polars is installed
            assert inspect.signature(getattr(pl.DataFrame.mycelium, name)) == pd_sig, name
    assert list(inspect.signature(pd.DataFrame.mycelium.compare).parameters)[-1] == \
        "with_signature"


def test_pandas_compare_with_signature_column_is_the_attrs_signature():
    df = wide("pandas_object")
    plain = df.mycelium.compare("ref", ["pred", "ref"], metrics="iou", n_resamples=50)
    out = df.mycelium.compare("ref", ["pred", "ref"], metrics="iou", n_resamples=50,
                              with_signature=True)
    assert list(out.columns) == [*plain.columns, "signature"]
    pd.testing.assert_frame_equal(out.drop(columns="signature"), plain)
    assert set(out["signature"]) == {out.attrs["mycelium_signature"]}
    assert out["signature"].iloc[0].endswith("|test:paired_bootstrap")
    if hasattr(pl.DataFrame, "mycelium"):  # Polars is installed
        pl_out = wide("polars").mycelium.compare("ref", ["pred", "ref"], metrics="iou",
                                                 n_resamples=50, with_signature=True)
        assert pl_out["signature"].to_list() == out["signature"].tolist()
