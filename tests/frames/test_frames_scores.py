"""Frames with detector scores: df.mycelium.evaluate with score columns and a threshold,
df.mycelium.sweep, df.mycelium.tune_threshold — each group equal to the dict face on its rows."""

import pandas as pd
import pytest

import mycelium
from _optional import pl

DF = pd.DataFrame({
    "lang": ["en", "en", "fi", "fi"],
    "text": ["abcdefghij", "klmnopqrst", "uvwxyz", "abcdef"],
    "ref": [[[2, 6]], [], [[0, 3]], [[1, 2]]],
    "offs": [[[0, 3], [3, 6], [7, 10]], [[0, 5], [5, 10]], [[0, 2], [2, 6]], [[0, 6]]],
    "scores": [[0.2, 0.9, 0.4], [0.6, 0.1], [0.8, 0.3], [0.5]],
})


def _rows(frame, lang):
    return frame[frame["lang"] == lang]


def test_evaluate_with_token_columns_and_threshold_equals_evaluate_per_group():
    out = DF.mycelium.evaluate("ref", text="text", token_offsets_col="offs",
                               token_scores_col="scores", threshold=0.5, by="lang",
                               metrics=["iou", "char_auroc", "response_level"])
    assert list(out.columns) == ["lang", "metric", "measure", "value", "examples",
                                 "average", "profile", "signature"]
    for lang in ("en", "fi"):
        sub = DF[DF["lang"] == lang]
        want = mycelium.evaluate(sub["ref"].tolist(), text=sub["text"].tolist(),
                                 token_offsets=sub["offs"].tolist(),
                                 token_scores=sub["scores"].tolist(), threshold=0.5,
                                 metrics=["iou", "char_auroc", "response_level"])
        got = _rows(out, lang)
        for m, measure, value, avg in zip(got["metric"], got["measure"], got["value"],
                                          got["average"]):
            assert value == want[m][measure]
            assert avg == ("micro" if m == "response_level" else "macro")
    assert "threshold:0.5" in out.attrs["mycelium_signature"]


def test_sweep_and_tune_on_a_frame():
    kw = dict(text="text", token_offsets_col="offs", token_scores_col="scores")
    f = DF.mycelium.sweep("ref", by="lang", metrics="iou", **kw)
    direct = mycelium.sweep(DF["ref"].tolist(), text=DF["text"].tolist(),
                            token_offsets=DF["offs"].tolist(),
                            token_scores=DF["scores"].tolist(), metrics="iou",
                            by={"lang": DF["lang"].tolist()})
    pd.testing.assert_frame_equal(f, direct)
    best = DF.mycelium.tune_threshold("ref", by="lang", **kw)
    assert best["lang"].tolist() == ["en", "fi"]
    for lang, t, v in zip(best["lang"], best["threshold"], best["value"]):
        part = _rows(f, lang)
        assert v == part["value"].max()
        assert t == part[part["value"] == v]["threshold"].min()


def test_frame_score_errors():
    with pytest.raises(KeyError, match="token_offsets_col column 'nope' not found"):
        DF.mycelium.evaluate("ref", text="text", token_offsets_col="nope",
                             token_scores_col="scores")
    with pytest.raises(ValueError, match="Expected id_col with ci="):
        DF.mycelium.evaluate("ref", text="text", token_offsets_col="offs",
                             token_scores_col="scores", ci=0.9)
    with pytest.raises(TypeError, match="predictions is None"):
        DF.mycelium.evaluate("ref", metrics="iou", text="text")


def test_polars_faces_equal_pandas():
    pdf = DF
    plf = pl.DataFrame({c: pdf[c].tolist() for c in pdf.columns})
    kw = dict(text="text", token_offsets_col="offs", token_scores_col="scores")
    a = pdf.mycelium.evaluate("ref", threshold=0.5, by="lang", metrics=["iou", "char_ap"], **kw)
    b = plf.mycelium.evaluate("ref", threshold=0.5, by="lang", metrics=["iou", "char_ap"], **kw)
    assert b["profile"].null_count() == len(b)  # profile None is a null in Polars
    assert b.drop("profile").to_dict(as_series=False) == a.drop(columns="profile").to_dict(
        "list")
    s = plf.mycelium.sweep("ref", by="lang", metrics="iou", **kw)
    assert s.drop("profile").to_dict(as_series=False) == pdf.mycelium.sweep(
        "ref", by="lang", metrics="iou", **kw).drop(columns="profile").to_dict("list")
    t = plf.mycelium.tune_threshold("ref", by="lang", **kw)
    assert t["threshold"].to_list() == pdf.mycelium.tune_threshold(
        "ref", by="lang", **kw)["threshold"].tolist()


def test_a_bad_score_is_told_at_its_frame_row():
    bad = DF.assign(scores=[[0.2, 0.9, 0.4], [0.6, 0.1], [0.8, 0.3], [1.5]])
    with pytest.raises(mycelium.SpanValidationError,
                       match=r"token_scores example 3, token 0: Expected a finite score in "
                             r"\[0, 1\], got 1.5.*\(index label 3\)|token_scores example 3, "
                             r"token 0: Expected a finite score") as info:
        bad.mycelium.evaluate("ref", text="text", token_offsets_col="offs",
                              token_scores_col="scores", by="lang", threshold=0.5)
    assert info.value.example == 3
