"""Frame evaluate with ``type_field``: the per-type rows equal ``evaluate(...)["by_type"]``
on each group's rows, bit for bit, for pandas and Polars."""

from __future__ import annotations

import pandas as pd
import pytest
from _optional import pl  # polars, or a stand-in that skips the test using it

import mycelium

from _frames_data import (FACES, column, group_rows, key_of, make_rows, pandas_object,
                          records, same)

ROWS = make_rows()
COLUMNS = ["metric", "measure", "value", "examples", "average", "profile", "signature"]


def want_rows(rows, by, **options):
    """``by_type`` of `mycelium.evaluate` on each group's rows, as tidy tuples."""
    out = []
    for key, idx in group_rows(rows, by).items():
        by_type = _by_type([rows[i]["typed_ref"] for i in idx], [rows[i]["pred"] for i in idx],
                           text=[rows[i]["text"] for i in idx], **options)
        for t, entry in by_type.items():
            for metric, measures in entry.items():
                if isinstance(measures, dict):
                    for measure, value in measures.items():
                        out.append((key, t, metric, measure, value, entry["examples"],
                                    options.get("average", "macro")))
            out.append((key, t, "counts", "n_ref", float(entry["n_ref"]), entry["examples"],
                        "sum"))
    return out


def _by_type(refs, preds, **options):
    """``evaluate(...)["by_type"]``. evaluate refuses spans whose type is null in every
    span ("no span has a field"); a frame group can hold only such spans while other
    groups carry types, so the frame gives them the null type: here, the same numbers
    from a stand-in type name."""
    if any(s["label_type"] is not None for ex in refs for s in ex):
        return mycelium.evaluate(refs, preds, type_field="label_type", **options)["by_type"]
    named = [[dict(s, label_type="none") for s in ex] for ex in refs]
    by_type = mycelium.evaluate(named, preds, type_field="label_type", **options)["by_type"]
    return {None: entry for entry in by_type.values()}


@pytest.mark.parametrize("face", ["pandas_object", "pandas_arrow", "polars"])
@pytest.mark.parametrize("by", [[], ["model"], ["model", "lang"]])
@pytest.mark.parametrize("average", ["macro", "micro"])
def test_per_type_rows_equal_by_type_per_group(face, by, average):
    df = FACES[face](ROWS)
    out = df.mycelium.evaluate("typed_ref", "pred", text="text", by=by or None,
                               type_field="label_type", average=average)
    assert list(out.columns) == [*by, "type", *COLUMNS]
    got = records(out)
    want = want_rows(ROWS, by, average=average)
    assert len(got) == len(want)
    for g, (key, t, metric, measure, value, examples, avg) in zip(got, want):
        assert (key_of(g, by), g["type"], g["metric"], g["measure"]) == \
            (key, t, metric, measure)
        assert same(g["value"], value), (g, value)
        assert (g["examples"], g["average"]) == (examples, avg)
        assert g["signature"] == mycelium.evaluate(
            [[]], [[]], average=average)["meta"]["signature"]  # type_field: not recorded


def test_typed_matching_reports_every_measure_per_type():
    rows = [dict(r, typed_pred=[dict(s, label_type=s["label_type"]) for s in r["typed_ref"]])
            for r in ROWS]
    for r in rows[::3]:
        r["typed_pred"] = [{"start": s, "end": e, "label_type": "Evident Conflict"}
                           for s, e in r["pred"]]
    df = pd.DataFrame({name: column(rows, name) for name in rows[0]})
    out = records(df.mycelium.evaluate("typed_ref", "typed_pred", by="model",
                                       type_field="label_type", typed_matching=True,
                                       metrics=["iou", "character"]))
    want = []
    for key, idx in group_rows(rows, ["model"]).items():
        report = mycelium.evaluate([rows[i]["typed_ref"] for i in idx],
                                   [rows[i]["typed_pred"] for i in idx],
                                   type_field="label_type", typed_matching=True,
                                   metrics=["iou", "character"])
        for t, entry in report["by_type"].items():
            want += [(key[0], t, "iou", "score", entry["iou"]["score"])]
            want += [(key[0], t, "character", k, v) for k, v in entry["character"].items()]
            want += [(key[0], t, "counts", "n_ref", float(entry["n_ref"]))]
    assert [(g["model"], g["type"], g["metric"], g["measure"]) for g in out] == \
        [w[:4] for w in want]
    assert all(same(g["value"], w[4]) for g, w in zip(out, want))


def test_counts_add_up_to_the_reference_spans():
    """Per group, the n_ref rows sum to the group's distinct (span, type) pairs (exact
    duplicates of one type collapse, as everywhere)."""
    df = pandas_object(ROWS)
    out = records(df.mycelium.evaluate("typed_ref", "pred", by="lang",
                                       type_field="label_type", metrics="span_coverage"))
    for key, idx in group_rows(ROWS, ["lang"]).items():
        total = sum(len({(s["start"], s["end"], s["label_type"]) for s in ROWS[i]["typed_ref"]})
                    for i in idx)
        counts = [g["value"] for g in out if g["lang"] == key[0] and g["metric"] == "counts"]
        assert sum(counts) == total > 0


def test_type_field_errors():
    df = pandas_object(ROWS)
    with pytest.raises(ValueError, match="no soft_spearman and no intervals"):
        df.mycelium.evaluate("typed_ref", "pred", type_field="label_type", ci=0.9)
    with pytest.raises(ValueError, match="character granularity only"):
        df.mycelium.evaluate("typed_ref", "pred", text="text", type_field="label_type",
                             granularity="word")
    with pytest.raises(KeyError, match="no span has a 'kind' field"):
        df.mycelium.evaluate("typed_ref", "pred", type_field="kind")


def test_polars_type_column_is_a_string():
    out = FACES["polars"](ROWS).mycelium.evaluate("typed_ref", "pred", by="model",
                                                  type_field="label_type")
    assert out.schema["type"] == pl.String and out.columns[1] == "type"
    assert out.filter(pl.col("metric") == "counts")["average"].unique().to_list() == ["sum"]
