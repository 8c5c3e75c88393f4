"""The ``shroom_visions`` profile on every face against the drop-in, on the golden cases.

Each scored case of ``cases.json`` (the kit's own outputs, see ``build_visions_cases.py``)
is read as the kit reads it (pandas' fast float parser), its rows paired as the kit pairs
them (the gold cut to the predicted ids, in the kit's id order), and scored by the
profile on each face. Per item, Cor, Cor lbl and IoU are the drop-in's to the last bit
(and so the kit's, `test_shroom_visions_cases`); the means are the exact means of those
values (the drop-in's ``numpy.mean`` is the kit's summation; they agree to a few ulp);
the per-label rows are `VisionsResult.per_label`, bit for bit.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import mycelium
from mycelium.core.exactsum import exact_mean
from mycelium.io.shroom_visions import read_visions_records
from mycelium.protocols.shroom_visions import score_files

from test_shroom_visions_cases import CASES, _files
from _spark_fixture import spark  # noqa: F401  (the session fixture)

#: Scored cases the profile refuses on purpose: a reversed span (start > end), which the
#: kit skips and mycelium's spans reject (SPEC section 2).
REFUSED_BY_SPANS = {"empty_and_reversed_spans"}
SCORED = [c for c in CASES if c["kit"]["refused"] is None and c["name"] not in REFUSED_BY_SPANS]
# The random cases hold zero-length spans (scored by the kit, counted in the label
# union): each call warns of them, as SPEC section 2 asks.
pytestmark = pytest.mark.filterwarnings("ignore::mycelium.EmptySpanWarning")
PER_ITEM = {"soft_spearman": "cor", "soft_spearman_by_label": "cor_lbl", "iou": "iou"}


def paired(tmp_path, case):
    """(the drop-in's result, the rows as the kit pairs them: ref, pred, text lists)."""
    ref_path, pred_path = _files(tmp_path, case)
    result = score_files(ref_path, pred_path)
    gold = {str(r["id"]): r for r in read_visions_records(ref_path)[0]}
    pred = {str(r["id"]): r for r in read_visions_records(pred_path)[0]}
    keys = [str(i) for i in result.ids]
    return result, {"ref": [gold[k]["labels"] for k in keys],
                    "pred": [pred[k]["labels"] for k in keys],
                    "text": [gold[k]["response"] for k in keys]}


def same(a, b) -> bool:
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return b is None or (isinstance(b, float) and math.isnan(b))
    return float(a) == float(b)


def tidy_of_report(report) -> dict:
    """``{(type, metric, measure): (value, examples)}`` of a dict-face report."""
    out = {}
    for metric in PER_ITEM:
        out[(None, metric, "score")] = (report[metric]["score"], report["meta"]["examples"])
    for label, entry in report.get("by_type", {}).items():
        for metric in ("soft_spearman", "iou"):
            out[(label, metric, "score")] = (entry[metric]["score"], entry["examples"])
        for count in ("n_ref", "n_pred"):
            out[(label, "counts", count)] = (float(entry[count]), entry["examples"])
    return out


def tidy_of_frame(frame: pd.DataFrame) -> dict:
    out = {}
    for rec in frame.to_dict("records"):
        label = rec["type"]
        label = None if label is None or (isinstance(label, float) and math.isnan(label)) \
            else label
        out[(label, rec["metric"], rec["measure"])] = (rec["value"], rec["examples"])
    return out


@pytest.mark.parametrize("case", SCORED, ids=[c["name"] for c in SCORED])
def test_dict_face_equals_the_drop_in(case, tmp_path):
    result, rows = paired(tmp_path, case)
    report = mycelium.evaluate(rows["ref"], rows["pred"], text=rows["text"],
                               profile="shroom_visions", include_per_example=True)
    for metric, field in PER_ITEM.items():
        want = getattr(result, field)
        got = [r[metric]["score"] for r in report["per_example"]]
        assert all(same(a, b) for a, b in zip(got, want.tolist())), (metric, got, want)
        assert same(report[metric]["score"], exact_mean(want)) or (
            np.isnan(want).any() and math.isnan(report[metric]["score"]))
        drop_in = getattr(result, f"{field}_mean")
        if not math.isnan(drop_in):
            assert abs(report[metric]["score"] - drop_in) <= 4 * math.ulp(1.0)
    per_label = result.per_label()
    assert list(report["by_type"]) == per_label["label"].tolist()
    for row in per_label.to_dict("records"):
        entry = report["by_type"][row["label"]]
        assert same(entry["soft_spearman"]["score"], row["Cor"])
        assert same(entry["iou"]["score"], row["IoU"])
        assert (entry["examples"], entry["n_ref"], entry["n_pred"]) == (
            row["items"], row["spans"], row["pred_spans"])
    assert mycelium.parse_signature(report["meta"]["signature"])["score_rules"] == {
        "soft_labels": "spans", "soft_reference_overlap": "sum",
        "soft_prediction_overlap": "last", "soft_constant": "shroom_visions"}


@pytest.mark.parametrize("case", SCORED, ids=[c["name"] for c in SCORED])
def test_pandas_face_equals_the_dict_face(case, tmp_path):
    result, rows = paired(tmp_path, case)
    report = mycelium.evaluate(rows["ref"], rows["pred"], text=rows["text"],
                               profile="shroom_visions")
    want = tidy_of_report(report)
    for df in (pd.DataFrame(rows), _arrow_frame(rows)):
        got = tidy_of_frame(df.mycelium.evaluate("ref", "pred", text="text",
                                                 profile="shroom_visions"))
        assert got.keys() == want.keys()
        for key, (value, examples) in want.items():
            assert same(got[key][0], value) and got[key][1] == examples, key
        scores = df.mycelium.score("ref", "pred", text="text", profile="shroom_visions")
        for metric, field in PER_ITEM.items():
            assert all(same(a, b) for a, b in zip(scores[f"{metric}_score"].tolist(),
                                                  getattr(result, field).tolist()))


@pytest.mark.parametrize("case", SCORED, ids=[c["name"] for c in SCORED])
def test_lazy_score_equals_the_drop_in(case, tmp_path):
    """The LazyFrame's ``score`` under the profile, batch by batch on the streaming
    engine: per item the drop-in's Cor, Cor lbl and IoU, bit for bit, and the eager
    Polars face's frame."""
    from _optional import pl

    result, rows = paired(tmp_path, case)
    frame = pl.from_pandas(_arrow_frame(rows))
    plan = frame.lazy().mycelium.score("ref", "pred", text="text", profile="shroom_visions")
    got = plan.collect(engine="streaming")
    assert got.columns == [f"{m}_score" for m in PER_ITEM]
    for metric, field in PER_ITEM.items():
        assert all(same(a, b) for a, b in zip(got[f"{metric}_score"].to_list(),
                                              getattr(result, field).tolist())), metric
    assert got.equals(frame.mycelium.score("ref", "pred", text="text",
                                           profile="shroom_visions"))


def _arrow_frame(rows) -> pd.DataFrame:
    """The rows with typed Arrow span columns (`VISIONS_SPAN_TYPE`), as
    `mycelium.read_shroom_visions` gives them."""
    import pyarrow as pa

    from mycelium.io.shroom_visions import VISIONS_SPAN_TYPE

    def column(values):
        spans = [[{k: s[k] for k in ("start", "end", "prob", "label")} for s in item]
                 for item in values]
        return pd.Series(pa.array(spans, VISIONS_SPAN_TYPE),
                         dtype=pd.ArrowDtype(VISIONS_SPAN_TYPE))

    return pd.DataFrame({"ref": column(rows["ref"]), "pred": column(rows["pred"]),
                         "text": rows["text"]})


# ---------------------------------------------------------------- every face, by case


def all_cases(tmp_path):
    """Every scored case's rows in one frame (a ``case`` column), and per case the
    dict face's tidy rows."""
    frames, want = [], {}
    for case in SCORED:
        folder = tmp_path / case["name"]
        folder.mkdir()
        _, rows = paired(folder, case)
        frames.append(pd.DataFrame({"case": case["name"], **rows}))
        want[case["name"]] = tidy_of_report(mycelium.evaluate(
            rows["ref"], rows["pred"], text=rows["text"], profile="shroom_visions"))
    return pd.concat(frames, ignore_index=True), want


def check_by_case(got: pd.DataFrame, want: dict, face: str):
    assert sorted(set(got["case"])) == sorted(want)
    for name, rows in want.items():
        part = tidy_of_frame(got[got["case"] == name])
        assert part.keys() == rows.keys(), (face, name)
        for key, (value, examples) in rows.items():
            assert same(part[key][0], value) and part[key][1] == examples, (face, name, key)


@pytest.mark.parametrize("face", ["pandas", "polars", "polars_lazy"])
def test_frame_faces_by_case_equal_the_dict_face(face, tmp_path):
    from _optional import pl

    df, want = all_cases(tmp_path)
    if face == "pandas":
        got = df.mycelium.evaluate("ref", "pred", text="text", by="case",
                                   profile="shroom_visions")
    else:
        frame = pl.DataFrame(df.to_dict("list"))
        if face == "polars":
            got = frame.mycelium.evaluate("ref", "pred", text="text", by="case",
                                          profile="shroom_visions").to_pandas()
        else:
            plan = frame.lazy().mycelium.evaluate("ref", "pred", text="text", by="case",
                                                  profile="shroom_visions")
            got = plan.collect().to_pandas()
    check_by_case(got, want, face)


def test_spark_by_case_equals_the_dict_face(spark, tmp_path):  # noqa: F811
    from mycelium.frames import spark as spark_face

    df, want = all_cases(tmp_path)
    span = "array<struct<start: bigint, end: bigint, prob: double, label: string>>"
    records = [(r["case"], r["text"], [tuple(s[k] for k in ("start", "end", "prob", "label"))
                                       for s in r["ref"]],
                [tuple(s[k] for k in ("start", "end", "prob", "label")) for s in r["pred"]])
               for r in df.to_dict("records")]
    sdf = spark.createDataFrame(records, f"case string, text string, ref {span}, pred {span}")
    got = spark_face.evaluate(sdf, "ref", "pred", text="text", by="case",
                              profile="shroom_visions")
    check_by_case(got, want, "spark")


@pytest.mark.parametrize("case", SCORED, ids=[c["name"] for c in SCORED])
def test_accumulator_equals_the_dict_face(case, tmp_path):
    _, rows = paired(tmp_path, case)
    want = mycelium.evaluate(rows["ref"], rows["pred"], text=rows["text"],
                             profile="shroom_visions")
    acc = mycelium.Accumulator(profile="shroom_visions")
    half = len(rows["ref"]) // 2
    for part in (slice(0, half), slice(half, None)):
        if rows["ref"][part]:
            acc.update(rows["ref"][part], rows["pred"][part], text=rows["text"][part])
    again = mycelium.Accumulator.from_bytes(acc.to_bytes())
    for got in (acc.compute(), again.compute()):
        assert tidy_of_report(got).keys() == tidy_of_report(want).keys()
        for key, (value, examples) in tidy_of_report(want).items():
            g = tidy_of_report(got)[key]
            assert same(g[0], value) and g[1] == examples, key
        assert got["meta"]["signature"] == want["meta"]["signature"]


# ---------------------------------------------------------------- properties

#: Predicted labels are the kit's five (the drop-in refuses others); the gold may hold
#: another label, here one that differs from a known label only by its case.
LABELS = ["OCR", "invention", "other", "miscounting"]
GOLD_LABELS = LABELS + ["ocr"]
PROBS = [0.0, 0.1, 0.2, 0.3, 0.25, 0.5, 0.3333333333, 0.6666666667, 1.0]


def _batches():
    from hypothesis import strategies as st

    @st.composite
    def batch(draw):
        out = []
        for _ in range(draw(st.integers(1, 6))):
            n = draw(st.integers(1, 20))

            def spans(labels):
                spans = []
                for _ in range(draw(st.integers(0, 4))):
                    s = draw(st.integers(0, n - 1))
                    spans.append({"start": s, "end": draw(st.integers(s + 1, n)),
                                  "prob": draw(st.sampled_from(PROBS)),
                                  "label": draw(st.sampled_from(labels))})
                return spans
            out.append(("x" * n, spans(GOLD_LABELS), spans(LABELS)))
        return out
    return batch()


def test_profile_equals_the_drop_in_records_and_ignores_row_order():
    """Per item, the profile gives `score_records`' values (the drop-in on records)
    for any labels, case kept; the means do not depend on the rows' order."""
    from hypothesis import given, settings

    from mycelium.protocols.shroom_visions import score_records

    @settings(max_examples=60, deadline=None)
    @given(_batches())
    def check(batch):
        texts = [t for t, _, _ in batch]
        refs = [r for _, r, _ in batch]
        preds = [p for _, _, p in batch]
        ids = [f"i{k:03d}" for k in range(len(batch))]
        want = score_records(
            [{"id": i, "response": t, "labels": r} for i, t, r in zip(ids, texts, refs)],
            [{"id": i, "labels": p} for i, p in zip(ids, preds)])
        got = mycelium.evaluate(refs, preds, text=texts, profile="shroom_visions",
                                include_per_example=True)
        for metric, field in PER_ITEM.items():
            assert [r[metric]["score"] for r in got["per_example"]] == \
                getattr(want, field).tolist(), metric
        back = mycelium.evaluate(refs[::-1], preds[::-1], text=texts[::-1],
                                 profile="shroom_visions")
        assert {k: v for k, v in back.items() if k != "meta"} == {
            k: v for k, v in got.items() if k not in ("meta", "per_example")}

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mycelium.EmptySpanWarning)
        check()


def test_refusals_name_what_to_fix():
    ref = [{"start": 0, "end": 2, "prob": 1.0, "label": "OCR"}]
    pred = [{"start": 0, "end": 2, "prob": 0.5}]  # no label
    with pytest.raises(mycelium.SpanValidationError,
                       match="soft_predictions example 0, span 0: expected a 'label'"):
        mycelium.evaluate(ref, pred, text="abcd", profile="shroom_visions")
    with pytest.raises(ValueError, match="Expected the SHROOM-Visions rules .* fix by "
                                         "passing profile='shroom_visions'"):
        mycelium.evaluate([[0, 2]], [[0, 2]], text="abcd", soft_references=ref,
                          soft_predictions=ref, metrics=["soft_spearman_by_label"])
    with pytest.raises(ValueError, match="Expected no type_field with metric "
                                         "'soft_spearman_by_label'"):
        mycelium.evaluate(ref, ref, text="abcd", profile="shroom_visions",
                          type_field="label")
    with pytest.raises(ValueError, match="or call without type_field"):
        pd.DataFrame({"r": [ref], "t": ["abcd"]}).mycelium.evaluate(
            "r", "r", text="t", profile="shroom_visions", type_field="label")


def test_mu_shroom_rules_stay_the_default_for_soft_labels():
    """Soft labels without the profile: soft_spearman alone, last writer on both sides,
    Mu-SHROOM's constant rule (the gold here sums to 0.75 under the kit's rule)."""
    ref = [{"start": 0, "end": 4, "prob": 0.5, "label": "OCR"},
           {"start": 2, "end": 6, "prob": 0.25, "label": "OCR"}]
    pred = [{"start": 0, "end": 3, "prob": 0.9, "label": "OCR"}]
    plain = mycelium.evaluate([[0, 6]], [[0, 3]], text="abcdefgh", soft_references=ref,
                              soft_predictions=pred)
    assert "soft_spearman_by_label" not in plain
    visions = mycelium.evaluate(ref, pred, text="abcdefgh", profile="shroom_visions")
    assert plain["soft_spearman"] != visions["soft_spearman"]
    from mycelium.metrics.typed_soft import visions_cor
    from mycelium.metrics.soft_spearman import cor

    a_last = np.array([0.5, 0.5, 0.25, 0.25, 0.25, 0.25, 0, 0])
    a_sum = np.array([0.5, 0.5, 0.75, 0.75, 0.25, 0.25, 0, 0])
    b = np.array([0.9, 0.9, 0.9, 0, 0, 0, 0, 0])
    assert plain["soft_spearman"]["score"] == cor(a_last, b)
    assert visions["soft_spearman"]["score"] == visions_cor(a_sum, b)


def test_type_table_reads_the_per_label_rows_of_every_form(tmp_path):
    """`mycelium.report.type_table` of the profile's result: per label its spans on
    each side, examples, Cor and IoU, the same from the dict and from the frame."""
    from mycelium.report import type_table

    case = next(c for c in SCORED if c["name"] == "pred_overlap_labels")
    result, rows = paired(tmp_path, case)
    report = mycelium.evaluate(rows["ref"], rows["pred"], text=rows["text"],
                               profile="shroom_visions")
    frame = pd.DataFrame(rows).mycelium.evaluate("ref", "pred", text="text",
                                                 profile="shroom_visions")
    tables = [type_table(report).frame, type_table(frame).frame]
    for table in tables:
        per_label = result.per_label()
        assert table["type"].tolist() == per_label["label"].tolist()
        assert table["reference spans"].tolist() == per_label["spans"].tolist()
        assert table["predicted spans"].tolist() == per_label["pred_spans"].tolist()
        assert table["soft_spearman score"].tolist() == per_label["Cor"].tolist()
    assert str(type_table(report)) == str(type_table(frame))


@pytest.mark.parametrize("bad", [{"prob": 1.5}, {"end": 9}, {"start": 3, "end": 2},
                                 {"prob": float("nan")}])
def test_arrow_columns_are_refused_as_the_lists_are(bad):
    """An Arrow-backed column is read column-wise; a bad span there is named exactly as
    in the same column of Python lists (the span-by-span path reads it then)."""
    ok = {"start": 0, "end": 2, "prob": 0.5, "label": "OCR"}
    rows = {"ref": [[ok], [ok]], "pred": [[ok], [ok, {**ok, **bad}]], "text": ["abcd"] * 2}
    messages = []
    for df in (pd.DataFrame(rows), _arrow_frame(rows)):
        with pytest.raises(mycelium.SpanValidationError) as err:
            df.mycelium.evaluate("ref", "pred", text="text", profile="shroom_visions")
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    assert "predictions example 1, span 1" in messages[0]
