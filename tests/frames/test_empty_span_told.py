"""Zero-length spans kept on what a frame face returns, and told once on the faces made of
parts (SPEC section 2): a pandas result's ``attrs["mycelium_empty_spans"]`` and a Spark
result's ``value`` field metadata equal ``meta["empty_spans"]`` of `mycelium.evaluate`;
a comparison tells the references once and every detector's predictions, once per call;
a streamed per-row plan (an expression, a LazyFrame's ``score``) tells one warning per
plan, however many batches hold zero-length spans; and every per-row ``score`` reads
``offsets="inclusive"`` as the half-open conversion done by hand."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import mycelium
from _optional import pl
from _spark_fixture import spark  # noqa: F401  (the session fixture)
from mycelium import EmptySpanWarning

TEXT = "0123456789"
#: read half-open: 1 empty reference span, 3 empty predicted ones (2 in P2: 1 and 2)
REFS = [[[7, 7], [0, 2]], [[3, 5]], [], [[1, 4]]]
PREDS = [[[8, 8]], [[3, 4], [5, 5]], [[9, 9]], [[1, 4]]]
PREDS_2 = [[[8, 8]], [[3, 4]], [], [[1, 4], [2, 2]]]
NONE = {"references": 0, "predictions": 0}


def _caught(call):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = call()
    return result, [w for w in seen if issubclass(w.category, EmptySpanWarning)]


def _counts(seen) -> list[tuple[int, int]]:
    return [(w.message.references, w.message.predictions) for w in seen]


def _half_open(batch):
    return [[[s, e + 1] for s, e in spans] for spans in batch]


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"ref": REFS, "pred": PREDS, "pred_2": PREDS_2, "text": [TEXT] * 4,
                         "g": ["a", "b", "a", "b"],
                         "offsets": [[[0, 3], [3, 10]]] * 4, "scores": [[0.9, 0.1]] * 4})


def test_pandas_results_keep_the_counts_of_meta():
    df = _frame()
    want = mycelium.evaluate(REFS, PREDS, text=[TEXT] * 4)["meta"]["empty_spans"]
    assert want == {"references": 1, "predictions": 3}
    calls = {
        "evaluate": lambda: df.mycelium.evaluate("ref", "pred", text="text"),
        "evaluate by": lambda: df.mycelium.evaluate("ref", "pred", text="text", by="g"),
        "micro, ci": lambda: df.mycelium.evaluate("ref", "pred", average="micro", ci=0.9,
                                                  n_resamples=20),
        "score": lambda: df.mycelium.score("ref", "pred", text="text"),
        "token scores": lambda: df.mycelium.evaluate(
            "ref", "pred", text="text", token_offsets_col="offsets",
            token_scores_col="scores"),
    }
    for name, call in calls.items():
        out, seen = _caught(call)
        assert _counts(seen) == [(1, 3)], name
        assert out.attrs["mycelium_empty_spans"] == want, name
        assert out.attrs["mycelium_signature"], name  # beside the signature, not instead
    # at a threshold the predictions come from the scores: only the references' one
    out, seen = _caught(lambda: df.mycelium.evaluate(
        "ref", None, text="text", token_offsets_col="offsets", token_scores_col="scores",
        threshold=0.5))
    assert out.attrs["mycelium_empty_spans"] == {"references": 1, "predictions": 0}
    # the warning filtered away or raised: the frame still says it, or nothing returns
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert df.mycelium.evaluate("ref", "pred").attrs["mycelium_empty_spans"] == want
    with warnings.catch_warnings():
        warnings.simplefilter("error", EmptySpanWarning)
        with pytest.raises(EmptySpanWarning):
            df.mycelium.evaluate("ref", "pred")
    # read inclusive, the same spans have none; nothing given, nothing counted
    out, seen = _caught(lambda: df.mycelium.evaluate("ref", "pred", offsets="inclusive"))
    assert seen == [] and out.attrs["mycelium_empty_spans"] == NONE
    clean = pd.DataFrame({"ref": [[[0, 2]]], "pred": [[[1, 3]]]})
    assert clean.mycelium.score("ref", "pred").attrs["mycelium_empty_spans"] == NONE


def test_a_comparison_tells_the_references_once_and_every_detector():
    df = _frame()
    # 1 reference span (once, not per detector) and 3 + 2 predicted
    out, seen = _caught(lambda: mycelium.compare(REFS, {"p": PREDS, "q": PREDS_2},
                                                 n_resamples=20))
    assert _counts(seen) == [(1, 5)]
    assert seen[0].message.first == "references example 0, span 0: [7, 7]"
    assert seen[0].filename == __file__
    assert out.attrs["mycelium_empty_spans"] == {"references": 1, "predictions": 5}
    only_preds = [[[0, 2]], [[3, 5]], [], [[1, 4]]]
    _, seen = _caught(lambda: mycelium.compare(only_preds, {"p": PREDS, "q": PREDS_2},
                                               n_resamples=20))
    assert _counts(seen) == [(0, 5)]
    assert seen[0].message.first == "detector 'p': predictions example 0, span 0: [8, 8]"
    for by in (None, "g"):  # one group's comparison after another: still one warning
        out, seen = _caught(lambda: df.mycelium.compare("ref", ["pred", "pred_2"], by=by,
                                                        n_resamples=20))
        assert _counts(seen) == [(1, 5)], by
        assert seen[0].message.first.startswith("references example 0, span 0: [7, 7]")
        assert seen[0].filename == __file__
        assert out.attrs["mycelium_empty_spans"] == {"references": 1, "predictions": 5}
    # long format: one row per (example, detector), paired by id
    long = pd.DataFrame({"id": [0, 1, 2, 3] * 2, "ref": REFS * 2, "pred": PREDS + PREDS_2,
                         "detector": ["p"] * 4 + ["q"] * 4})
    out, seen = _caught(lambda: long.mycelium.compare("ref", "pred", detector_col="detector",
                                                      id_col="id", n_resamples=20))
    assert _counts(seen) == [(1, 5)]
    pytest.importorskip("polars")
    polars_out, seen = _caught(lambda: pl.from_pandas(df.drop(columns=["offsets", "scores"]))
                               .mycelium.compare("ref", ["pred", "pred_2"], by="g",
                                                 n_resamples=20))
    assert _counts(seen) == [(1, 5)]


def _batches(frames: int) -> pl.LazyFrame:
    """A LazyFrame of ``frames`` copies of the rows, each its own chunk (so its own
    batch on the way through mycelium)."""
    df = pl.DataFrame({"ref": REFS, "pred": PREDS, "text": [TEXT] * 4})
    return pl.concat([df.lazy()] * frames, rechunk=False)


@pytest.mark.parametrize("engine", ["auto", "streaming"])
def test_a_streamed_per_row_plan_warns_once(engine, monkeypatch):
    pytest.importorskip("polars")
    from mycelium.frames import polars_batches

    holding = []  # the batches that held zero-length spans (each told one before)
    tell = polars_batches.TellOnce.tell

    def counted(self, told, batch):
        if told.references or told.predictions:
            holding.append((told.references, told.predictions))
        return tell(self, told, batch)

    monkeypatch.setattr(polars_batches.TellOnce, "tell", counted)
    lf = _batches(6)
    plan = lf.mycelium.score("ref", "pred", text="text", metrics="iou")
    out, seen = _caught(lambda: plan.collect(engine=engine))
    assert len(holding) >= 2, holding  # several batches held some: one warning still
    assert len(seen) == 1, [str(w.message) for w in seen]
    warning = seen[0].message
    # the counts of the first batch holding any, never more than the plan's
    assert (warning.references, warning.predictions) in holding
    assert warning.references <= 6 and warning.predictions <= 18
    assert sum(r for r, _ in holding) == 6 and sum(p for _, p in holding) == 18
    assert "later batches are not told again" in warning.first
    assert "row's position in the LazyFrame" in warning.first
    assert out["iou_score"].to_list() == [
        mycelium.evaluate([r], [p])["iou"]["score"] for r, p in zip(REFS, PREDS)] * 6
    # collected again: the plan told it already
    _, seen = _caught(lambda: plan.collect(engine=engine))
    assert seen == []
    for expr in (pl.col("ref").mycelium.score("pred", metric="iou", measure="score"),
                 pl.col("ref").mycelium.statistics("pred", metric="iou")):
        holding.clear()
        _, seen = _caught(lambda: lf.select(expr).collect(engine=engine))
        assert len(holding) >= 2 and len(seen) == 1, [str(w.message) for w in seen]
        assert (seen[0].message.references, seen[0].message.predictions) in holding


def test_every_per_row_score_reads_inclusive_ends():
    df = _frame()
    by_hand = df.assign(ref=_half_open(REFS), pred=_half_open(PREDS))
    want, seen = _caught(lambda: by_hand.mycelium.score("ref", "pred", text="text"))
    assert seen == []
    got, seen = _caught(lambda: df.mycelium.score("ref", "pred", text="text",
                                                  offsets="inclusive"))
    assert seen == []
    pd.testing.assert_frame_equal(got, want, check_like=False)
    assert "offsets:inclusive" in got.attrs["mycelium_signature"]
    assert "offsets:half-open" in want.attrs["mycelium_signature"]
    with pytest.raises(ValueError, match="offsets"):
        df.mycelium.score("ref", "pred", offsets="closed")
    pytest.importorskip("polars")
    pdf = pl.from_pandas(df[["ref", "pred", "text"]])
    expected = pl.from_pandas(want.reset_index(drop=True))
    assert pdf.mycelium.score("ref", "pred", text="text", offsets="inclusive").equals(expected)
    lazy = pdf.lazy().mycelium.score("ref", "pred", text="text", offsets="inclusive")
    assert lazy.collect(engine="streaming").equals(expected)
    for metric, measure in (("iou", "score"), ("character", "f1")):
        column = f"{metric}_{measure}"
        got = pdf.select(pl.col("ref").mycelium.score(
            "pred", metric=metric, measure=measure, text="text", offsets="inclusive"))
        assert got[column].to_list() == want[column].tolist()
    stats = pdf.select(pl.col("ref").mycelium.statistics("pred", metric="iou",
                                                         offsets="inclusive"))
    by_hand_stats = pl.from_pandas(by_hand[["ref", "pred"]]).select(
        pl.col("ref").mycelium.statistics("pred", metric="iou"))
    assert stats.equals(by_hand_stats)


def test_spark_results_keep_the_counts(spark):  # noqa: F811
    from mycelium.frames import spark as spark_face

    rows = [(str(i), [{"start": s, "end": e} for s, e in r],
             [{"start": s, "end": e} for s, e in p], TEXT)
            for i, (r, p) in enumerate(zip(REFS, PREDS))]
    schema = ("id string, ref array<struct<start: bigint, end: bigint>>, "
              "pred array<struct<start: bigint, end: bigint>>, text string")
    sdf = spark.createDataFrame(rows, schema).repartition(3)
    want = {"references": 1, "predictions": 3}
    for kwargs in ({}, {"offsets": "inclusive"}, {"metrics": "iou", "average": "micro"}):
        expected = NONE if kwargs.get("offsets") else want
        out, _ = _caught(lambda: spark_face.evaluate(sdf, "ref", "pred", text="text",
                                                     **kwargs))
        assert out.attrs["mycelium_empty_spans"] == expected, kwargs
        out, _ = _caught(lambda: spark_face.evaluate(sdf, "ref", "pred", text="text",
                                                     as_spark=True, **kwargs))
        meta = out.schema["value"].metadata
        assert meta["mycelium_empty_spans"] == expected, kwargs
        assert meta["mycelium_signature"] == out.first()["signature"]


@pytest.mark.parametrize("batched", [True, False])
def test_the_command_line_parquet_keeps_the_counts(tmp_path, monkeypatch, capsys, batched):
    import json

    from mycelium.cli import evaluate as cli_evaluate
    from mycelium.cli import stream
    from mycelium.cli.app import main

    if not batched:  # the files read whole, through the pandas face
        monkeypatch.setattr(cli_evaluate, "streamable", lambda args: False)
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({"ref": r, "pred": p}) + "\n"
                            for r, p in zip(REFS, PREDS)), encoding="utf-8")
    scored = []
    score = stream._score
    monkeypatch.setattr(stream, "_score", lambda *a: (scored.append(1), score(*a)))
    out = tmp_path / "out.parquet"
    assert main(["evaluate", str(path), "--ref-col", "ref", "--pred-col", "pred",
                 "-o", str(out)]) == 0
    assert bool(scored) == batched
    assert "4 zero-length spans" in capsys.readouterr().err
    want = {"references": 1, "predictions": 3}
    assert mycelium.read_parquet(out).attrs["mycelium_empty_spans"] == want
    assert pd.read_parquet(out).attrs["mycelium_empty_spans"] == want


def test_scores_alone_count_no_predicted_span_on_every_face(spark):  # noqa: F811
    """Scores without predicted spans or a threshold: the references stand in for the
    predictions inside, and none of theirs may be counted as predicted."""
    offsets, scores = [[[0, 3], [3, 10]]] * 4, [[0.9, 0.1]] * 4
    want = {"references": 1, "predictions": 0}
    options = dict(metrics=["char_auroc"])
    report, seen = _caught(lambda: mycelium.evaluate(
        REFS, text=[TEXT] * 4, token_offsets=offsets, token_scores=scores, **options))
    assert report["meta"]["empty_spans"] == want and _counts(seen) == [(1, 0)]

    def accumulated():
        acc = mycelium.Accumulator(**options)
        acc.update(REFS, text=[TEXT] * 4, token_offsets=offsets, token_scores=scores)
        return acc.compute()

    report, seen = _caught(accumulated)
    assert report["meta"]["empty_spans"] == want and _counts(seen) == [(1, 0)]
    df = _frame()
    frame_options = dict(text="text", token_offsets_col="offsets", token_scores_col="scores")
    out, seen = _caught(lambda: df.mycelium.evaluate("ref", None, **frame_options))
    assert out.attrs["mycelium_empty_spans"] == want and _counts(seen) == [(1, 0)]
    _, seen = _caught(lambda: mycelium.show([TEXT] * 4, REFS, token_offsets=offsets,
                                            token_scores=scores))
    assert _counts(seen) == [(1, 0)]
    pytest.importorskip("polars")
    pdf = pl.from_pandas(df[["ref", "text", "offsets", "scores"]])
    _, seen = _caught(lambda: pdf.mycelium.evaluate("ref", None, **frame_options))
    assert _counts(seen) == [(1, 0)]
    _, seen = _caught(lambda: pdf.lazy().mycelium.evaluate("ref", None, **frame_options)
                      .collect(engine="streaming"))
    assert _counts(seen) == [(1, 0)]
    from mycelium.frames import spark as spark_face

    sdf = spark.createDataFrame(
        [([{"start": s, "end": e} for s, e in r], TEXT, o, sc)
         for r, o, sc in zip(REFS, offsets, scores)],
        "ref array<struct<start: bigint, end: bigint>>, text string, "
        "offsets array<array<bigint>>, scores array<double>").repartition(2)
    out, seen = _caught(lambda: spark_face.evaluate(sdf, "ref", None, **frame_options))
    assert out.attrs["mycelium_empty_spans"] == want and _counts(seen) == [(1, 0)]


def test_views_and_explanations_tell_once():
    df = _frame()
    for call in (lambda: df.mycelium.show("ref", "pred", text="text"),
                 lambda: mycelium.show([TEXT] * 4, REFS, PREDS)):
        _, seen = _caught(call)
        assert _counts(seen) == [(1, 3)]
        assert seen[0].filename == __file__
    for call in (lambda: df.mycelium.show("ref", ["pred", "pred_2"], text="text"),
                 lambda: mycelium.show([TEXT] * 4, REFS, {"p": PREDS, "q": PREDS_2}),
                 lambda: mycelium.explain(REFS, PREDS, PREDS_2)):
        _, seen = _caught(call)
        assert _counts(seen) == [(1, 5)]
    for call in (lambda: mycelium.explain(REFS, PREDS),  # macro - micro: read twice
                 lambda: mycelium.explain(REFS, PREDS, metric_b="character")):
        _, seen = _caught(call)
        assert _counts(seen) == [(1, 3)]
    # read inclusive, nothing to tell, and the ties read them inclusive too
    _, seen = _caught(lambda: df.mycelium.show("ref", "pred", text="text",
                                               offsets="inclusive"))
    assert seen == []
    _, seen = _caught(lambda: mycelium.show([TEXT] * 4, REFS))
    assert _counts(seen) == [(1, 0)]


def test_grouped_scores_tell_once_by_frame_row():
    # scored group by group (rows 1, 3 in group "b"): one warning, the first by its row
    refs = [list(r) for r in REFS]
    refs[3] = [[2, 2]]
    df = _frame().assign(g=["a", "b", "a", "b"], ref=refs)
    for kwargs in ({"threshold": 0.5}, {}):
        out, seen = _caught(lambda: df.mycelium.evaluate(
            "ref", None, text="text", by="g", token_offsets_col="offsets",
            token_scores_col="scores", **kwargs))
        assert _counts(seen) == [(2, 0)], kwargs
        assert seen[0].message.first.startswith("references example 0, span 0: [7, 7]")
        assert out.attrs["mycelium_empty_spans"] == {"references": 2, "predictions": 0}
    out, seen = _caught(lambda: df.mycelium.evaluate(
        "ref", "pred", text="text", by="g", token_offsets_col="offsets",
        token_scores_col="scores"))
    assert _counts(seen) == [(2, 3)]
    refs[0] = [[0, 2]]  # the first reference one is now in group "b", row 3
    df = df.assign(ref=refs)
    _, seen = _caught(lambda: df.mycelium.evaluate(
        "ref", "pred", text="text", by="g", token_offsets_col="offsets",
        token_scores_col="scores"))
    assert _counts(seen) == [(1, 3)]
    assert seen[0].message.first.startswith("references example 3, span 0: [2, 2]")
