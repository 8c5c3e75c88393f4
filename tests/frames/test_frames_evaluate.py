"""Frame evaluate and score with soft labels, granularity and bootstrap intervals: every
number equals a direct core call on the group's rows, bit for bit, on every face."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _optional import pl  # polars, or a stand-in that skips the test using it

import mycelium
from mycelium.evaluate import compute_statistics, intervals, prepare
from mycelium.metrics.soft_spearman import soft_statistics
from mycelium.core.settings import resolve_settings

from _frames_data import (FACES, column, flat, group_rows, key_of, make_rows,
                          pandas_object, polars_frame, records, same, same_records)

ROWS = make_rows()
SOFT = dict(soft_ref_col="soft_ref", soft_pred_col="soft_pred")
R, SEED = 60, 11


def core(rows, idx, **options):
    """`mycelium.evaluate` on the rows ``idx`` (lists of pairs and dicts)."""
    pick = lambda name: [rows[i][name] for i in idx]  # noqa: E731
    soft = {}
    if options.pop("soft", True):
        soft = dict(soft_references=pick("soft_ref"), soft_predictions=pick("soft_pred"))
    return mycelium.evaluate(pick("ref"), pick("pred"), text=pick("text"), **soft, **options)


def core_intervals(rows, idx, *, average="macro", ids=None, metrics=None):
    """`mycelium.evaluate.intervals` on the group's rows, keyed by their frame positions
    (or by ``ids``): what `evaluate` computes, with the frame's example keys."""
    pick = lambda name: [rows[i][name] for i in idx]  # noqa: E731
    settings = resolve_settings(average=average, metrics=metrics, soft=True, ci=0.9,
                                n_resamples=R, seed=SEED)
    prepared = prepare(pick("ref"), pick("pred"), text=pick("text"))
    stats = compute_statistics(prepared.refs, prepared.preds, settings.span_metrics,
                               settings.params)
    stats["soft_spearman"] = soft_statistics(pick("soft_ref"), pick("soft_pred"), prepared,
                                             text=pick("text"))
    report = core(rows, idx, average=average, metrics=metrics)
    return intervals(stats, settings, np.asarray(idx), ids=ids, estimates=report)


def check_values(result, rows, by, **options):
    got = records(result)
    want = []
    for key, idx in group_rows(rows, by).items():
        report = core(rows, idx, **options)
        for (metric, measure), value in flat(report).items():
            want.append((key, metric, measure, value, report["meta"]["examples"]))
    assert len(got) == len(want)
    for g, (key, metric, measure, value, examples) in zip(got, want):
        assert (key_of(g, by), g["metric"], g["measure"]) == (key, metric, measure)
        assert same(g["value"], value), (g, value)
        assert g["examples"] == examples
        assert g["average"] == ("macro" if metric == "soft_spearman"
                                else options.get("average", "macro"))


# ------------------------------------------------------------------ soft labels

@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize("by", [[], ["model"], ["model", "lang"]])
@pytest.mark.parametrize("average", ["macro", "micro"])
def test_soft_labels_equal_evaluate_per_group(face, by, average):
    df = FACES[face](ROWS)
    out = df.mycelium.evaluate("ref", "pred", text="text", by=by or None, average=average,
                               **SOFT)
    assert list(out.columns) == [*by, "metric", "measure", "value", "examples", "average",
                                 "profile", "signature"]
    soft_rows = [r for r in records(out) if r["metric"] == "soft_spearman"]
    assert soft_rows and all(r["measure"] == "score" for r in soft_rows)
    check_values(out, ROWS, by, average=average)


def test_soft_spearman_nan_of_an_empty_text_reaches_its_group():
    out = pandas_object(ROWS).mycelium.evaluate("ref", "pred", text="text", by="model",
                                                metrics="soft_spearman", **SOFT)
    nan_group = ROWS[5]["model"]
    values = {r["model"]: r["value"] for r in records(out)}
    assert np.isnan(values.pop(nan_group))
    assert not any(np.isnan(v) for v in values.values())


@pytest.mark.parametrize("face", FACES)
def test_score_soft_column_equals_per_example(face):
    out = FACES[face](ROWS).mycelium.score("ref", "pred", text="text",
                                           metrics=["iou", "soft_spearman"], **SOFT)
    report = core(ROWS, range(len(ROWS)), metrics=["iou", "soft_spearman"],
                  include_per_example=True)
    got = out["soft_spearman_score"].to_list()
    want = [ex["soft_spearman"]["score"] for ex in report["per_example"]]
    assert all(same(a, b) for a, b in zip(got, want))
    assert list(out.columns) == ["iou_score", "soft_spearman_score"]


def test_soft_labels_need_both_columns_and_text():
    df = pandas_object(ROWS)
    with pytest.raises(ValueError, match="soft_references was given alone"):
        df.mycelium.evaluate("ref", "pred", text="text", soft_ref_col="soft_ref")
    with pytest.raises(ValueError, match="needs the text"):
        df.mycelium.evaluate("ref", "pred", **SOFT)
    with pytest.raises(KeyError, match="soft_pred_col column 'nope' not found"):
        df.mycelium.evaluate("ref", "pred", text="text", soft_ref_col="soft_ref",
                             soft_pred_col="nope")
    with pytest.raises(KeyError, match="soft_pred_col column 'nope' not found"):
        polars_frame(ROWS).mycelium.evaluate("ref", "pred", text="text",
                                             soft_ref_col="soft_ref", soft_pred_col="nope")


# ------------------------------------------------------------------ granularity

@pytest.mark.parametrize("face", ["pandas_arrow", "polars"])
@pytest.mark.parametrize("granularity", ["word", "sentence"])
def test_granularity_equals_evaluate_per_group(face, granularity):
    df = FACES[face](ROWS)
    out = df.mycelium.evaluate("ref", "pred", text="text", by="lang",
                               granularity=granularity)
    check_values(out, ROWS, ["lang"], granularity=granularity, soft=False)
    scores = df.mycelium.score("ref", "pred", text="text", granularity=granularity,
                               metrics="character")
    report = core(ROWS, range(len(ROWS)), soft=False, granularity=granularity,
                  metrics="character", include_per_example=True)
    want = [ex["character"]["f1"] for ex in report["per_example"]]
    assert all(same(a, b) for a, b in zip(scores["character_f1"].to_list(), want))
    if isinstance(out, pd.DataFrame):
        signature = out.attrs["mycelium_signature"]
    else:
        signature = df.mycelium.evaluate("ref", "pred", text="text", granularity=granularity,
                                         with_signature=True)["signature"][0]
    assert mycelium.parse_signature(signature)["granularity"] == granularity


def test_granularity_needs_text_and_a_known_unit():
    df = pandas_object(ROWS)
    with pytest.raises(ValueError, match="needs the text"):
        df.mycelium.evaluate("ref", "pred", granularity="word")
    with pytest.raises(ValueError, match="granularity='token' is not supported"):
        df.mycelium.evaluate("ref", "pred", text="text", granularity="token")


# -------------------------------------------------------------------- intervals

@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize("average", ["macro", "micro"])
def test_interval_of_the_whole_frame_equals_evaluate(face, average):
    out = FACES[face](ROWS).mycelium.evaluate("ref", "pred", text="text", average=average,
                                              ci=0.9, n_resamples=R, seed=SEED, **SOFT)
    assert list(out.columns) == ["metric", "measure", "value", "ci_low", "ci_high",
                                 "examples", "average", "profile", "signature"]
    report = core(ROWS, range(len(ROWS)), average=average, ci=0.9, n_resamples=R,
                  seed=SEED)
    got = records(out)
    assert len(got) == len(flat(report))
    for g in got:
        want = report["ci"][g["metric"]][g["measure"]]
        assert same(g["ci_low"], want["low"]) and same(g["ci_high"], want["high"]), g
        assert same(g["value"], report[g["metric"]][g["measure"]])


@pytest.mark.parametrize("face", ["pandas_object", "pandas_arrow", "polars"])
def test_grouped_intervals_are_keyed_by_frame_position(face):
    by = ["model", "lang"]
    out = FACES[face](ROWS).mycelium.evaluate("ref", "pred", text="text", by=by, ci=0.9,
                                              n_resamples=R, seed=SEED, **SOFT)
    got = records(out)
    expected = {key: core_intervals(ROWS, idx) for key, idx in group_rows(ROWS, by).items()}
    for g in got:
        want = expected[key_of(g, by)][g["metric"]][g["measure"]]
        assert same(g["ci_low"], want["low"]) and same(g["ci_high"], want["high"]), g
    plain = FACES[face](ROWS).mycelium.evaluate("ref", "pred", text="text", by=by, **SOFT)
    assert all(same(a["value"], b["value"]) for a, b in zip(got, records(plain)))


def test_first_group_at_the_top_equals_evaluate_on_its_rows():
    rows = sorted(ROWS, key=lambda r: r["model"] != "a")  # group "a" at positions 0..k-1
    idx = [i for i, r in enumerate(rows) if r["model"] == "a"]
    assert idx == list(range(len(idx)))
    out = pandas_object(rows).mycelium.evaluate("ref", "pred", text="text", by="model",
                                                ci=0.9, n_resamples=R, seed=SEED, **SOFT)
    report = core(rows, idx, ci=0.9, n_resamples=R, seed=SEED)
    for g in records(out):
        if g["model"] == "a":
            want = report["ci"][g["metric"]][g["measure"]]
            assert (g["ci_low"], g["ci_high"]) == (want["low"], want["high"])


@pytest.mark.parametrize("face", ["pandas_object", "polars"])
def test_intervals_keyed_by_ids(face):
    by = ["model"]
    df = FACES[face](ROWS)
    out = records(df.mycelium.evaluate("ref", "pred", text="text", by=by, ci=0.9,
                                       n_resamples=R, seed=SEED, id_col="id", **SOFT))
    groups = group_rows(ROWS, by)
    for g in out:
        idx = groups[key_of(g, by)]
        want = core_intervals(ROWS, idx, ids=[ROWS[i]["id"] for i in idx])
        want = want[g["metric"]][g["measure"]]
        assert same(g["ci_low"], want["low"]) and same(g["ci_high"], want["high"]), g
    # with ids, a group's interval depends on its rows only: not on their order, nor on
    # the other groups' rows
    shuffled = [ROWS[i] for i in np.random.default_rng(0).permutation(len(ROWS))]
    again = records(FACES[face](shuffled).mycelium.evaluate(
        "ref", "pred", text="text", by=by, ci=0.9, n_resamples=R, seed=SEED, id_col="id",
        **SOFT))
    assert same_records(again, out)
    alone = [r for r in ROWS if r["model"] == "b"]
    single = records(FACES[face](alone).mycelium.evaluate(
        "ref", "pred", text="text", ci=0.9, n_resamples=R, seed=SEED, id_col="id", **SOFT))
    assert same_records(single, [{k: v for k, v in g.items() if k != "model"} for g in out
                                 if g["model"] == "b"])


def test_interval_options_signature_and_errors():
    df = pandas_object(ROWS)
    out = df.mycelium.evaluate("ref", "pred", metrics="iou", ci=0.8, n_resamples=50,
                               seed=3)
    parsed = mycelium.parse_signature(out.attrs["mycelium_signature"])
    assert (parsed["ci"], parsed["n_resamples"], parsed["seed"]) == (0.8, 50, 3)
    other = df.mycelium.evaluate("ref", "pred", metrics="iou", ci=0.8, n_resamples=50,
                                 seed=4)
    assert out["ci_low"].tolist() != other["ci_low"].tolist()
    assert out["value"].tolist() == other["value"].tolist()
    with pytest.raises(ValueError, match="not a confidence level"):
        df.mycelium.evaluate("ref", "pred", ci=1.5)
    dup = df.assign(id=[1] * len(df))
    with pytest.raises(ValueError, match="occurs more than once"):
        dup.mycelium.evaluate("ref", "pred", ci=0.9, n_resamples=10, id_col="id")
    # ids repeat across groups (e.g. one row per detector and example): fine
    across = df.assign(id=list(range(len(df) // 2)) * 2, half=[0, 1] * (len(df) // 2))
    across["id"] = [i // 2 for i in range(len(df))]
    across.mycelium.evaluate("ref", "pred", by="half", ci=0.9, n_resamples=10, id_col="id")
    with pytest.raises(ValueError, match="id of row 2 is null"):
        df.assign(id=[1, 2, None] + list(range(3, len(df)))).mycelium.evaluate(
            "ref", "pred", ci=0.9, n_resamples=10, id_col="id")


def test_intervals_with_dropped_rows_use_frame_positions():
    rows = [dict(r) for r in ROWS]
    rows[3]["pred"] = None
    df = pd.DataFrame({"ref": column(rows, "ref"), "pred": column(rows, "pred"),
                       "g": [i % 2 for i in range(len(rows))]})
    out = df.mycelium.evaluate("ref", "pred", missing="drop", metrics="iou", ci=0.9,
                               n_resamples=R, seed=SEED)
    refs, preds = column(rows, "ref"), column(rows, "pred")
    report = mycelium.evaluate(refs, preds, missing="drop", metrics="iou", ci=0.9,
                               n_resamples=R, seed=SEED)
    assert (out.ci_low[0], out.ci_high[0]) == (report["ci"]["iou"]["score"]["low"],
                                               report["ci"]["iou"]["score"]["high"])
    assert out.examples[0] == len(rows) - 1


def test_progress_bar_only_when_asked(capsys):
    df = pandas_object(ROWS)
    df.mycelium.evaluate("ref", "pred", by="model", metrics="iou", ci=0.9, n_resamples=70,
                         progress=True)
    err = capsys.readouterr().err
    assert "bootstrap" in err and f"{70 * 3}/{70 * 3}" in err
    df.mycelium.evaluate("ref", "pred", by="model", metrics="iou", ci=0.9, n_resamples=70,
                         progress=False)
    assert capsys.readouterr().err == ""


def test_polars_keeps_key_types_and_signature():
    df = polars_frame(ROWS)
    out = df.mycelium.evaluate("ref", "pred", by="lang", metrics="iou", ci=0.9,
                               n_resamples=20, with_signature=True)
    assert out.schema["lang"] == pl.String
    assert out.columns[-1] == "signature" and out.schema["ci_low"] == pl.Float64
    assert mycelium.parse_signature(out["signature"][0])["n_resamples"] == 20
