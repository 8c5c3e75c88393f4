"""Every option of `mycelium.evaluate` on every face: the dict face, the pandas accessor,
Polars eager, the Polars LazyFrame (streaming engine), Spark and the command line (where
it has a flag). Each cell either gives exactly `mycelium.evaluate`'s numbers (values,
intervals, per-type rows, examples and the signature column) or is a documented absence
(`NOT_A_FACE_OPTION`), checked to be refused by name rather than silently ignored. The
score options (`STREAMED`) run on the LazyFrame's streaming engine and on Spark's workers
by mergeable statistics, never gathered."""

from __future__ import annotations

import json
import math
from unittest import mock

import pandas as pd
import pytest

import mycelium
from _optional import pl
from _spark_fixture import spark  # noqa: F401  (the session fixture)
from mycelium.cli.app import main

TEXTS = ["Alpha beta, gamma. Delta!", "  one two  three.", "x y z", "Hello, world; again."]
REF = [[{"start": 6, "end": 11, "label_type": "A"}, {"start": 19, "end": 25,
                                                     "label_type": "B"}],
       [{"start": 0, "end": 7, "label_type": "A"}],
       [],
       [{"start": 5, "end": 13, "label_type": "B"}]]
PRED = [[{"start": 5, "end": 12, "label_type": "A"}],
        [{"start": 2, "end": 9, "label_type": "B"}],
        [{"start": 0, "end": 1, "label_type": "A"}],
        [{"start": 5, "end": 13, "label_type": "B"}]]
SOFT_REF = [[{"start": 6, "end": 11, "prob": 0.75}], [{"start": 0, "end": 7, "prob": 1.0}],
            [], [{"start": 5, "end": 13, "prob": 0.5}]]
SOFT_PRED = [[{"start": 5, "end": 12, "prob": 0.625}], [{"start": 2, "end": 9, "prob": 0.25}],
             [{"start": 0, "end": 1, "prob": 0.875}], [{"start": 5, "end": 13, "prob": 0.5}]]
OFFSETS = [[[0, 5], [6, 11], [12, 18], [19, 25]], [[2, 5], [6, 9], [11, 17]],
           [[0, 1], [2, 3], [4, 5]], [[0, 6], [7, 13], [14, 20]]]
SCORES = [[0.1, 0.9, 0.2, 0.7], [0.6, 0.4, 0.1], [0.8, 0.0, 0.3], [0.2, 0.95, 0.05]]
IDS = ["d", "a", "c", "b"]
#: Predictions whose spans overlap and repeat, where the lettucedetect profile's pairwise
#: character rule differs from merged masks (and a zero-length span, positive at its
#: example level).
PRED_OVERLAPPING = [[{"start": 5, "end": 12, "label_type": "A"},
                     {"start": 8, "end": 20, "label_type": "A"}],
                    [{"start": 2, "end": 9, "label_type": "B"},
                     {"start": 2, "end": 9, "label_type": "B"}],
                    [{"start": 1, "end": 1, "label_type": "A"}],
                    [{"start": 5, "end": 13, "label_type": "B"}]]

#: option name -> (evaluate's keyword arguments, the frame faces' keyword arguments,
#: the command line's arguments or None without a flag). Data arguments are by column.
OPTIONS = {
    "profile": ({"profile": "ragtruth"}, {"profile": "ragtruth"}, ["--profile", "ragtruth"]),
    "metrics": ({"metrics": ["iou", "character"]}, {"metrics": ["iou", "character"]},
                ["--metrics", "iou,character"]),
    "average": ({"average": "micro"}, {"average": "micro"}, ["--average", "micro"]),
    "zero_division": ({"zero_division": "nan"}, {"zero_division": "nan"},
                      ["--zero-division", "nan"]),
    "params": ({"params": {"deteval_1d": {"recall_threshold": 0.7}}},
               {"params": {"deteval_1d": {"recall_threshold": 0.7}}},
               ["--params", '{"deteval_1d": {"recall_threshold": 0.7}}']),
    "missing": ({"missing": "drop"}, {"missing": "drop"}, ["--missing", "drop"]),
    "ci+ids": ({"ci": 0.9, "n_resamples": 60, "seed": 5, "ids": IDS},
               {"ci": 0.9, "n_resamples": 60, "seed": 5, "id_col": "id"},
               ["--ci", "0.9", "--n-resamples", "60", "--seed", "5", "--id-col", "id"]),
    "granularity": ({"granularity": "word"}, {"granularity": "word"},
                    ["--granularity", "word"]),
    "trim_spans": ({"trim_spans": "punctuation"}, {"trim_spans": "punctuation"},
                   ["--trim-spans", "punctuation"]),
    # the same spans read as inclusive [s, e]: [s, e + 1) (every end + 1 still within
    # its text), recorded in the signature (offsets:inclusive)
    "offsets": ({"offsets": "inclusive"}, {"offsets": "inclusive"},
                ["--offsets", "inclusive"]),
    # ... and with the per-type rows, which read the spans (and their types) again
    "offsets+type_field": ({"offsets": "inclusive", "type_field": "label_type"},
                           {"offsets": "inclusive", "type_field": "label_type"},
                           ["--offsets", "inclusive", "--type-field", "label_type"]),
    "offsets+typed_span+typed_matching": (
        {"offsets": "inclusive", "type_field": "label_type", "typed_matching": True,
         "metrics": ["typed_span", "iou"], "params": {"typed_span": {"scheme": "partial"}}},
        {"offsets": "inclusive", "type_field": "label_type", "typed_matching": True,
         "metrics": ["typed_span", "iou"], "params": {"typed_span": {"scheme": "partial"}}},
        ["--offsets", "inclusive", "--type-field", "label_type", "--typed-matching",
         "--metrics", "typed_span,iou", "--params", '{"typed_span": {"scheme": "partial"}}']),
    # ... and with token scores: the spans read inclusive, the tokens' offsets half-open
    # (a tokenizer's offset mapping), the spans at a threshold made from them as they are
    "offsets+token_scores": ({"offsets": "inclusive", "token_offsets": OFFSETS,
                              "token_scores": SCORES},
                             {"offsets": "inclusive", "token_offsets_col": "offsets",
                              "token_scores_col": "scores"}, None),
    "offsets+threshold": ({"offsets": "inclusive", "token_offsets": OFFSETS,
                           "token_scores": SCORES, "threshold": 0.5, "predictions": None,
                           "metrics": ["iou", "character", "char_auroc", "token_level"]},
                          {"offsets": "inclusive", "token_offsets_col": "offsets",
                           "token_scores_col": "scores", "threshold": 0.5, "pred_col": None,
                           "metrics": ["iou", "character", "char_auroc", "token_level"]},
                          None),
    "soft_labels": ({"soft_references": SOFT_REF, "soft_predictions": SOFT_PRED},
                    {"soft_ref_col": "soft_ref", "soft_pred_col": "soft_pred"},
                    ["--soft-ref-col", "soft_ref", "--soft-pred-col", "soft_pred"]),
    "type_field": ({"type_field": "label_type"}, {"type_field": "label_type"},
                   ["--type-field", "label_type"]),
    "typed_matching": ({"type_field": "label_type", "typed_matching": True},
                       {"type_field": "label_type", "typed_matching": True},
                       ["--type-field", "label_type", "--typed-matching"]),
    # typed_span compares the types itself: one row set per group (type null), then the
    # per-type rows of type_field
    "typed_span": ({"type_field": "label_type", "metrics": ["typed_span", "character"],
                    "params": {"typed_span": {"scheme": "partial"}}},
                   {"type_field": "label_type", "metrics": ["typed_span", "character"],
                    "params": {"typed_span": {"scheme": "partial"}}},
                   ["--type-field", "label_type", "--metrics", "typed_span,character",
                    "--params", '{"typed_span": {"scheme": "partial"}}']),
    "typed_span+typed_matching+micro": (
        {"type_field": "label_type", "typed_matching": True, "average": "micro",
         "metrics": ["typed_span", "iou"], "params": {"typed_span": {"scheme": "type"}}},
        {"type_field": "label_type", "typed_matching": True, "average": "micro",
         "metrics": ["typed_span", "iou"], "params": {"typed_span": {"scheme": "type"}}},
        ["--type-field", "label_type", "--typed-matching", "--average", "micro",
         "--metrics", "typed_span,iou", "--params", '{"typed_span": {"scheme": "type"}}']),
    "soft_predictions(scores)": ({"soft_predictions": SOFT_PRED, "metrics": [
        "char_auroc", "char_ap", "response_auroc", "iou"]}, {"soft_pred_col": "soft_pred",
        "metrics": ["char_auroc", "char_ap", "response_auroc", "iou"]}, None),
    "token_scores": ({"token_offsets": OFFSETS, "token_scores": SCORES},
                     {"token_offsets_col": "offsets", "token_scores_col": "scores"}, None),
    "threshold": ({"token_offsets": OFFSETS, "token_scores": SCORES, "threshold": 0.5,
                   "predictions": None},
                  {"token_offsets_col": "offsets", "token_scores_col": "scores",
                   "threshold": 0.5, "pred_col": None}, None),
    "score_metrics+micro": ({"token_offsets": OFFSETS, "token_scores": SCORES,
                             "average": "micro"},
                            {"token_offsets_col": "offsets", "token_scores_col": "scores",
                             "average": "micro"}, None),
    "threshold+response_level": ({"soft_predictions": SOFT_PRED, "threshold": 0.5,
                                  "predictions": None, "metrics": [
                                      "char_ap", "iou", "character", "response_level"]},
                                 {"soft_pred_col": "soft_pred", "threshold": 0.5,
                                  "pred_col": None, "metrics": [
                                      "char_ap", "iou", "character", "response_level"]},
                                 None),
    "progress": ({"progress": False}, {"progress": False}, None),
    "profile:lettucedetect": ({"profile": "lettucedetect"}, {"profile": "lettucedetect"},
                              ["--profile", "lettucedetect"]),
    "profile:lettucedetect+tokens": (
        {"profile": "lettucedetect", "token_offsets": OFFSETS, "token_scores": SCORES,
         "threshold": 0.5, "predictions": None},
        {"profile": "lettucedetect", "token_offsets_col": "offsets",
         "token_scores_col": "scores", "threshold": 0.5, "pred_col": None}, None),
}
#: SHROOM-Visions' typed soft labels ({start, end, prob, label}: the span lists are the
#: soft labels under its profile): overlapping gold spans, a prediction overwriting
#: another, a label only one side has, a prob-0 span, an empty union.
VISIONS_REF = [[{"start": 6, "end": 11, "prob": 0.5, "label": "invention"},
                {"start": 8, "end": 18, "prob": 0.25, "label": "OCR"},
                {"start": 19, "end": 25, "prob": 1.0, "label": "miscounting"}],
               [{"start": 0, "end": 7, "prob": 0.75, "label": "OCR"}],
               [],
               [{"start": 5, "end": 13, "prob": 0.5, "label": "other"}]]
VISIONS_PRED = [[{"start": 5, "end": 12, "prob": 0.625, "label": "invention"},
                 {"start": 9, "end": 11, "prob": 0.125, "label": "OCR"}],
                [{"start": 2, "end": 9, "prob": 0.0, "label": "OCR"}],
                [],
                [{"start": 5, "end": 13, "prob": 0.5, "label": "mischaracterization"}]]
OPTIONS["profile:shroom_visions"] = ({"profile": "shroom_visions"},
                                     {"profile": "shroom_visions"},
                                     ["--profile", "shroom_visions"])
#: Options whose LazyFrame plan streams and whose Spark call sums on the workers by the
#: score metrics' mergeable statistics (`mycelium.frames.score_sums`): checked below.
STREAMED = {"profile", "soft_predictions(scores)", "token_scores", "threshold",
            "score_metrics+micro", "threshold+response_level"}
#: (option, face): why the face has no such option (its call must refuse it by name).
NOT_A_FACE_OPTION = {
    ("progress", "spark"): "Spark shows its own progress; nothing is resampled on a bar",
}
FACES = ["pandas", "polars", "polars_lazy", "spark", "cli"]
#: Every (option, face) cell, but the command line's only where it has a flag.
CELLS = [(option, face) for option in OPTIONS for face in FACES
         if face != "cli" or OPTIONS[option][2] is not None]


def _inclusive(batch):
    """The spans written with inclusive ends, ``[s, e - 1]`` (what offsets reads back)."""
    return [[{**span, "end": span["end"] - 1} for span in spans] for spans in batch]


def data(option):
    pred = [None, *PRED[1:]] if option == "missing" else PRED
    if option == "profile:lettucedetect":
        pred = PRED_OVERLAPPING
    ref = REF
    if option.startswith("offsets"):
        ref, pred = _inclusive(REF), _inclusive(PRED)
    if option == "profile:shroom_visions":
        ref, pred = VISIONS_REF, VISIONS_PRED
    return {"id": IDS, "text": TEXTS, "ref": ref, "pred": pred, "soft_ref": SOFT_REF,
            "soft_pred": SOFT_PRED, "offsets": OFFSETS, "scores": SCORES}


def expected(option) -> dict:
    """``{(type, metric, measure): (value, ci_low, ci_high, examples)}`` and the signature,
    from `mycelium.evaluate` on all the rows (the dict face)."""
    kwargs = dict(OPTIONS[option][0])
    preds = kwargs.pop("predictions", data(option)["pred"])
    report = mycelium.evaluate(data(option)["ref"], preds, text=TEXTS, **kwargs)
    out = {}
    if "by_type" in report:
        # typed_span, over all types, is one row set with a null type
        for measure, v in report.get("typed_span", {}).items():
            out[(None, "typed_span", measure)] = (v, None, None, report["meta"]["examples"])
        for t, entry in report["by_type"].items():
            for metric, measures in entry.items():
                if isinstance(measures, dict):
                    for measure, v in measures.items():
                        out[(t, metric, measure)] = (v, None, None, entry["examples"])
            for count in ("n_ref", "n_pred"):
                if count in entry:
                    out[(t, "counts", count)] = (float(entry[count]), None, None,
                                                 entry["examples"])
        if "soft_spearman_by_label" not in report:  # its rows come beside the means
            return {"rows": out, "signature": report["meta"]["signature"]}
    for metric, measures in report.items():
        if metric in ("meta", "ci", "per_example", "by_type"):
            continue
        for measure, v in measures.items():
            ci = report.get("ci", {}).get(metric, {}).get(measure, {})
            out[(None, metric, measure)] = (v, ci.get("low"), ci.get("high"),
                                            report["meta"]["examples"])
    return {"rows": out, "signature": report["meta"]["signature"]}


def rows_of(frame: pd.DataFrame) -> dict:
    out = {}
    for rec in frame.to_dict("records"):
        t = rec.get("type")
        t = None if isinstance(t, float) and math.isnan(t) else t  # Polars' to_pandas
        key = (t, rec["metric"], rec["measure"])
        out[key] = (rec["value"], rec.get("ci_low"), rec.get("ci_high"), rec["examples"])
    return out


def same(a, b) -> bool:
    """Bit-for-bit equal numbers; NaN, None (JSON's NaN) and NaN are one."""
    def missing(x):
        return x is None or (isinstance(x, float) and math.isnan(x))
    if missing(a) or missing(b):
        return missing(a) and missing(b)
    return float(a) == float(b) and math.copysign(1.0, a) == math.copysign(1.0, b)


def run_face(face, option, spark, tmp_path) -> pd.DataFrame:
    """The face's tidy result as pandas."""
    columns = data(option)
    kwargs = dict(OPTIONS[option][1])
    pred_col = kwargs.pop("pred_col", "pred")
    if face == "pandas":
        return pd.DataFrame(columns).mycelium.evaluate("ref", pred_col, text="text", **kwargs)
    if face in ("polars", "polars_lazy"):
        df = pl.DataFrame(columns)
        if face == "polars":
            out = df.mycelium.evaluate("ref", pred_col, text="text", **kwargs)
        else:
            plan = df.lazy().mycelium.evaluate("ref", pred_col, text="text", **kwargs)
            assert isinstance(plan, pl.LazyFrame)
            if option in STREAMED:  # summed per distinct score, on the streaming engine
                assert "PYTHON SCAN" in plan.explain()  # its long rows stream in batches
            out = plan.collect(engine="streaming")
        return out.to_pandas()
    if face == "spark":
        from mycelium.frames import spark as spark_face

        span = "array<struct<start: bigint, end: bigint, label_type: string>>"
        if option == "profile:shroom_visions":
            span = "array<struct<start: bigint, end: bigint, prob: double, label: string>>"
        soft = "array<struct<start: bigint, end: bigint, prob: double>>"
        sdf = spark.createDataFrame(
            list(zip(*columns.values())),
            f"id string, text string, ref {span}, pred {span}, soft_ref {soft}, "
            f"soft_pred {soft}, offsets array<array<bigint>>, scores array<double>")
        if option in STREAMED:  # summed on the workers: the driver never gathers rows
            def refuse(*args, **kwargs):
                raise AssertionError(f"{option}: the rows were gathered on the driver")

            with mock.patch.object(spark_face, "collected", refuse):
                return spark_face.evaluate(sdf, "ref", pred_col, text="text", **kwargs)
        return spark_face.evaluate(sdf, "ref", pred_col, text="text", **kwargs)
    flags = OPTIONS[option][2]
    path, out = tmp_path / "rows.jsonl", tmp_path / "out.json"
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(len(TEXTS)):
            fh.write(json.dumps({k: v[i] for k, v in columns.items()}) + "\n")
    args = ["evaluate", str(path), "--ref-col", "ref", "--pred-col", "pred", "--text-col",
            "text", *flags, "--format", "json", "-o", str(out)]
    if "--id-col" in flags:  # REFS and PREDS paired by id: the same file twice
        args.insert(2, str(path))
    assert main(args) == 0
    return pd.DataFrame(json.loads(out.read_text(encoding="utf-8"))["records"])


@pytest.fixture()
def session(request):
    """The Spark session for the Spark column only (skips cleanly without pyspark)."""
    if request.node.callspec.params["face"] != "spark":
        return None
    return request.getfixturevalue("spark")


@pytest.mark.parametrize("option, face", CELLS)
def test_option_on_face_equals_evaluate(option, face, session, tmp_path):
    if (option, face) in NOT_A_FACE_OPTION:
        with pytest.raises(TypeError, match=option):
            run_face(face, option, session, tmp_path)
        return
    got = run_face(face, option, session, tmp_path)
    want = expected(option)
    rows = rows_of(got)
    assert rows.keys() == want["rows"].keys(), f"{face} {option}"
    for key, w in want["rows"].items():
        g = rows[key]
        assert all(same(a, b) for a, b in zip(g[:3], w[:3])), (face, option, key, g, w)
        assert int(g[3]) == w[3], (face, option, key)
    assert list(got.columns)[-1] == "signature"
    signature = want["signature"]
    if face == "cli" and mycelium.PROFILES.get(OPTIONS[option][0].get("profile")) \
            and mycelium.PROFILES[OPTIONS[option][0]["profile"]].float_parse != "exact":
        # the command line read the file's numbers by the profile's parser, and says so
        from mycelium.core.signature import signature_with

        signature = signature_with(signature, float_parse="pandas-fast")
    if "type" not in option:  # the per-type rows carry the settings signature
        assert set(got["signature"]) == {signature}
    assert mycelium.parse_signature(got) == mycelium.parse_signature(
        got["signature"].iloc[0])


def test_every_option_of_evaluate_is_in_the_table():
    import inspect

    covered = {"text", "references", "predictions", "include_per_example"}  # data; score()
    for dict_kwargs, _, _ in OPTIONS.values():
        covered |= set(dict_kwargs)
    assert set(inspect.signature(mycelium.evaluate).parameters) <= covered
    # ... and every built-in profile whose rules go beyond average and zero_division.
    assert {o[0]["profile"] for o in OPTIONS.values() if "profile" in o[0]} >= {
        "ragtruth", "lettucedetect", "shroom_visions"}


@pytest.mark.parametrize("face", ["pandas", "polars", "polars_lazy"])
def test_per_example_values_are_the_score_method(face):
    """``include_per_example`` of the dict face is each face's ``score``."""
    report = mycelium.evaluate(REF, PRED, text=TEXTS, metrics=["iou", "character"],
                               trim_spans="whitespace", include_per_example=True)
    columns = data("metrics")
    if face == "pandas":
        got = pd.DataFrame(columns).mycelium.score("ref", "pred", text="text",
                                                   metrics=["iou", "character"],
                                                   trim_spans="whitespace")
    elif face == "polars":
        got = pl.DataFrame(columns).mycelium.score(
            "ref", "pred", text="text", metrics=["iou", "character"],
            trim_spans="whitespace").to_pandas()
    else:
        got = pl.DataFrame(columns).lazy().mycelium.score(
            "ref", "pred", text="text", metrics=["iou", "character"],
            trim_spans="whitespace").collect().to_pandas()
    for i, row in enumerate(report["per_example"]):
        for metric, measures in row.items():
            for measure, v in measures.items():
                assert same(got[f"{metric}_{measure}"][i], v), (face, i, metric, measure)


def test_pd_concat_keeps_each_results_signature(tmp_path):
    df = pd.DataFrame(data("metrics"))
    parts = [df.mycelium.evaluate("ref", "pred", text="text", metrics="iou", average=a,
                                  trim_spans=t)
             for a, t in (("macro", None), ("micro", "whitespace"))]
    both = pd.concat(parts, ignore_index=True)
    assert both["signature"].nunique() == 2
    path = tmp_path / "both.parquet"
    mycelium.write_parquet(both, path)  # and a Parquet round trip keeps the column
    assert mycelium.read_parquet(path)["signature"].tolist() == both["signature"].tolist()
    parsed = [mycelium.parse_signature(s) for s in both["signature"]]
    assert [(p["average"], p.get("trim_spans")) for p in parsed] == [
        ("macro", None), ("micro", "whitespace")]
    with pytest.raises(ValueError, match="Expected one signature in the frame's 'signature' "
                                         "column, got 2 different ones"):
        mycelium.parse_signature(both)
    assert mycelium.parse_signature(both[both["average"] == "micro"])["average"] == "micro"


def test_offsets_cell_equals_the_half_open_spans_by_hand():
    # the inclusive data of the offsets cell, read with offsets="inclusive", scores as
    # the half-open spans it was written from
    inclusive = mycelium.evaluate(data("offsets")["ref"], data("offsets")["pred"],
                                  text=TEXTS, offsets="inclusive")
    half_open = mycelium.evaluate(REF, PRED, text=TEXTS)
    assert {k: v for k, v in inclusive.items() if k != "meta"} == {
        k: v for k, v in half_open.items() if k != "meta"}


@pytest.mark.parametrize("option", ["offsets+type_field", "offsets+typed_span+typed_matching",
                                    "offsets+token_scores", "offsets+threshold"])
def test_offsets_cells_with_types_and_scores_equal_the_half_open_spans_by_hand(option):
    # per type too (the types ride on the spans whose ends are read inclusive), and with
    # token scores, alone or at a threshold
    kwargs = dict(OPTIONS[option][0])
    preds = kwargs.pop("predictions", data(option)["pred"])
    inclusive = mycelium.evaluate(data(option)["ref"], preds, text=TEXTS, **kwargs)
    del kwargs["offsets"]
    half_open = mycelium.evaluate(REF, PRED if preds is not None else None, text=TEXTS,
                                  **kwargs)
    assert inclusive.get("by_type") == half_open.get("by_type")
    # the Accumulator too, per type included, in two batches
    acc = mycelium.Accumulator(**{k: v for k, v in OPTIONS[option][0].items()
                                  if k in ("offsets", "metrics", "type_field",
                                           "typed_matching", "params")})
    scores = {k: v for k, v in kwargs.items() if k.startswith("token_") or k == "threshold"}
    for part in (slice(0, 1), slice(1, None)):
        acc.update(data(option)["ref"][part], None if preds is None else preds[part],
                   text=TEXTS[part], **{k: v[part] if k.startswith("token_") else v
                                        for k, v in scores.items()})
    assert {k: v for k, v in acc.compute().items() if k != "meta"} == {
        k: v for k, v in half_open.items() if k != "meta"}
    assert {k: v for k, v in inclusive.items() if k != "meta"} == {
        k: v for k, v in half_open.items() if k != "meta"}
    assert "offsets:inclusive" in inclusive["meta"]["signature"]
