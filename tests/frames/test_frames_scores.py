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


# ------------------------------------------------- intervals without id_col

CI = dict(ci=0.9, n_resamples=60, seed=3)
SCORED = dict(text="text", token_offsets_col="offs", token_scores_col="scores")
BIG = pd.DataFrame({
    "lang": ["en", "fi", "en", "fi", "en", "fi", "en", "en"],
    "text": ["abcdefghij", "klmnopqrst", "uvwxyz", "abcdef", "0123456789", "xyzxyz",
             "hello world", "ab"],
    "ref": [[[2, 6]], [], [[0, 3]], [[1, 2]], [[0, 4], [6, 9]], [[2, 6]], [[6, 11]], []],
    "offs": [[[0, 3], [3, 6], [7, 10]], [[0, 5], [5, 10]], [[0, 2], [2, 6]], [[0, 6]],
             [[0, 2], [2, 5], [5, 10]], [[0, 3], [3, 6]], [[0, 5], [6, 11]], [[0, 2]]],
    "scores": [[0.2, 0.9, 0.4], [0.6, 0.1], [0.8, 0.3], [0.5], [0.7, 0.3, 0.6],
               [0.1, 0.9], [0.2, 0.8], [0.4]],
})
METRICS = ["char_auroc", "char_ap", "response_auroc", "iou", "character",
           "response_level"]


def _faces(frame):
    yield "pandas", frame
    if pl is not None:
        yield "polars", pl.DataFrame({c: frame[c].tolist() for c in frame.columns})


def _records(out):
    if not isinstance(out, pd.DataFrame):
        out = out.to_pandas()
    return out.to_dict("records")


def _want(frame, rows, average, metrics=METRICS):
    sub = frame.iloc[rows]
    return mycelium.evaluate(sub["ref"].tolist(), text=sub["text"].tolist(),
                             token_offsets=sub["offs"].tolist(),
                             token_scores=sub["scores"].tolist(), threshold=0.5,
                             metrics=metrics, average=average, **CI)


@pytest.mark.parametrize("average", ["macro", "micro"])
def test_whole_frame_intervals_without_id_col_equal_evaluate(average):
    want = _want(BIG, list(range(len(BIG))), average)
    for face, frame in _faces(BIG):
        out = frame.mycelium.evaluate("ref", threshold=0.5, metrics=METRICS,
                                      average=average, **SCORED, **CI)
        got = _records(out)
        assert len(got) == 10, face
        for r in got:
            ci = want["ci"][r["metric"]][r["measure"]]
            assert (r["value"], r["ci_low"], r["ci_high"]) == (
                want[r["metric"]][r["measure"]], ci["low"], ci["high"]), (face, r)
        assert list(out.columns)[:5] == ["metric", "measure", "value", "ci_low", "ci_high"]


def test_group_intervals_without_id_col_equal_evaluate_on_each_groups_rows():
    # Rows are keyed by their frame positions (as the span engine keys them): a group
    # at the top of the frame gets evaluate's intervals on its rows exactly, and the
    # span metrics of every group equal the span engine's on the spans at 0.5.
    top = pd.concat([BIG[BIG["lang"] == "en"], BIG[BIG["lang"] == "fi"]],
                    ignore_index=True)
    n_en = int((top["lang"] == "en").sum())
    want = _want(top, list(range(n_en)), "macro")
    spans = mycelium.spans_at(0.5, token_offsets=top["offs"].tolist(),
                              token_scores=top["scores"].tolist())
    engine = top.assign(pred=spans).mycelium.evaluate(
        "ref", "pred", text="text", by="lang", metrics=["iou", "character"], **CI)
    engine = {(r["lang"], r["metric"], r["measure"]): r for r in engine.to_dict("records")}
    for face, frame in _faces(top):
        got = _records(frame.mycelium.evaluate("ref", threshold=0.5, metrics=METRICS,
                                               by="lang", **SCORED, **CI))
        assert len(got) == 20, face
        for r in got:
            if r["lang"] == "en":
                ci = want["ci"][r["metric"]][r["measure"]]
                assert (r["ci_low"], r["ci_high"]) == (ci["low"], ci["high"]), (face, r)
            if r["metric"] in ("iou", "character"):
                e = engine[(r["lang"], r["metric"], r["measure"])]
                assert (r["value"], r["ci_low"], r["ci_high"]) == (
                    e["value"], e["ci_low"], e["ci_high"]), (face, r)


def test_group_intervals_without_id_col_are_keyed_by_frame_position():
    from mycelium.evaluate import evaluate_keyed

    out = BIG.mycelium.evaluate("ref", threshold=0.5, metrics=["char_auroc", "char_ap"],
                                by="lang", **SCORED, **CI)
    for lang in ("en", "fi"):
        pos = [i for i, v in enumerate(BIG["lang"]) if v == lang]
        sub = BIG.iloc[pos]
        want = evaluate_keyed(pos, sub["ref"].tolist(), text=sub["text"].tolist(),
                              token_offsets=sub["offs"].tolist(),
                              token_scores=sub["scores"].tolist(), threshold=0.5,
                              metrics=["char_auroc", "char_ap"], **CI)
        for r in out[out["lang"] == lang].to_dict("records"):
            ci = want["ci"][r["metric"]]["score"]
            assert (r["value"], r["ci_low"], r["ci_high"]) == (
                want[r["metric"]]["score"], ci["low"], ci["high"])
            assert ci["low"] < ci["high"]


def test_arrow_backed_token_columns_pass_through_and_equal_lists():
    import pyarrow as pa

    from mycelium.frames.scores import rows_of

    offs = pd.Series(pd.arrays.ArrowExtensionArray(
        pa.array(DF["offs"].tolist(), type=pa.list_(pa.list_(pa.int64(), 2)))))
    scores = pd.Series(pd.arrays.ArrowExtensionArray(
        pa.array(DF["scores"].tolist(), type=pa.list_(pa.float64()))))
    assert isinstance(rows_of(offs, arrow=True), pa.Array)  # no Python round trip
    arrow = DF.assign(offs=offs, scores=scores)
    kw = dict(text="text", token_offsets_col="offs", token_scores_col="scores", by="lang",
              metrics=["char_auroc", "char_ap", "iou"], threshold=0.5)
    got, want = arrow.mycelium.evaluate("ref", **kw), DF.mycelium.evaluate("ref", **kw)
    assert got["value"].tolist() == want["value"].tolist()
    sweep = dict(text="text", token_offsets_col="offs", token_scores_col="scores", by="lang",
                 thresholds=[0.3, 0.5])
    assert arrow.mycelium.sweep("ref", **sweep)["value"].tolist() == \
        DF.mycelium.sweep("ref", **sweep)["value"].tolist()
    bad = DF.assign(offs=pd.Series(pd.arrays.ArrowExtensionArray(pa.array(
        [[[0, 3]], [[0, 50]], [[0, 2]], [[0, 6]]]))), scores=pd.Series(
        pd.arrays.ArrowExtensionArray(pa.array([[0.1], [0.2], [0.3], [0.4]]))))
    with pytest.raises(mycelium.SpanValidationError, match=r"token_offsets example 1, "
                       r"token 0: Expected 0 <= start <= end <= len\(text\) = 10, got \[0, 50\)"):
        bad.mycelium.evaluate("ref", text="text", token_offsets_col="offs",
                              token_scores_col="scores", by="lang", metrics=["char_auroc"])


def test_tune_on_a_frame_takes_metric_and_measure_as_the_dict_face_does():
    kw = dict(text="text", token_offsets_col="offs", token_scores_col="scores")
    got = DF.mycelium.tune_threshold("ref", by="lang", metric="character", measure="f1",
                                     **kw)
    want = mycelium.tune_threshold(DF["ref"].tolist(), text=DF["text"].tolist(),
                                   token_offsets=DF["offs"].tolist(),
                                   token_scores=DF["scores"].tolist(), metric="character",
                                   measure="f1", by={"lang": DF["lang"].tolist()})
    pd.testing.assert_frame_equal(got, want)
    with pytest.raises(TypeError, match="unexpected keyword argument 'metrics'"):
        DF.mycelium.tune_threshold("ref", metrics="iou", **kw)
    with pytest.raises(TypeError, match="unexpected keyword argument 'metric'"):
        DF.mycelium.sweep("ref", metric="iou", **kw)
