"""``mycelium evaluate`` in process: every input and output format gives the numbers of
``df.mycelium.evaluate`` on the same rows, bit for bit."""

from __future__ import annotations

import io
import json
import random

import pandas as pd
import pyarrow.parquet as pq
import pytest
from cli_data import ROWS, WRITERS, canonical, frame_records, write_jsonl

from mycelium import parse_signature
from mycelium.cli.app import main
from mycelium.core.signature import signature_with
from mycelium.frames.engine import SIGNATURE_KEY

SPANS = ["--ref-col", "ref", "--pred-col", "pred", "--text-col", "text"]
OPTION_SETS = [
    ([], {}),
    (["--profile", "ragtruth"], {"profile": "ragtruth"}),
    (["--profile", "mu_shroom", "--metrics", "iou,character,deteval_1d"],
     {"profile": "mu_shroom", "metrics": ["iou", "character", "deteval_1d"]}),
    (["--average", "micro", "--zero-division", "nan", "--metrics", "exact_span,cleval_1d"],
     {"average": "micro", "zero_division": "nan", "metrics": ["exact_span", "cleval_1d"]}),
    (["--zero-division", "1", "--params", '{"deteval_1d": {"merge_credit": 1.0}}'],
     {"zero_division": 1.0, "params": {"deteval_1d": {"merge_credit": 1.0}}}),
]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def csv_records(text: str) -> list[tuple]:
    """CSV rows parsed exactly: Python's float() round-trips the printed repr."""
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, na_values=[""])
    frame["value"] = [float(v) if isinstance(v, str) else v for v in frame["value"]]
    frame["examples"] = frame["examples"].astype(int)
    return frame_records(frame)


@pytest.mark.parametrize("kind", sorted(WRITERS))
@pytest.mark.parametrize("argv, options", OPTION_SETS)
def test_csv_output_equals_the_accessor(capsys, files, expected, kind, argv, options):
    code, out, err = run(capsys, "evaluate", files[kind], *SPANS, "--by", "model,lang",
                         *argv, "--format", "csv")
    assert (code, err) == (0, "")
    records, _, columns = expected(by=["model", "lang"], read_from=kind, **options)
    assert out.splitlines()[0] == ",".join(columns)
    assert csv_records(out) == records


@pytest.mark.parametrize("kind", sorted(WRITERS))
def test_json_output_equals_the_accessor(capsys, files, expected, kind):
    code, out, err = run(capsys, "evaluate", files[kind], *SPANS, "--by", "lang",
                         "--profile", "mu_shroom", "--format", "json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    records, signature, columns = expected(by="lang", profile="mu_shroom", read_from=kind)
    assert doc["signature"] == signature
    assert canonical([tuple(r[c] for c in columns) for r in doc["records"]]) == records
    assert [list(r) for r in doc["records"]] == [columns] * len(records)


@pytest.mark.parametrize("kind", sorted(WRITERS))
def test_parquet_output_equals_the_accessor(capsys, files, expected, kind, tmp_path):
    target = tmp_path / "result.parquet"
    code, out, err = run(capsys, "evaluate", files[kind], *SPANS, "--by", "model",
                         "--profile", "ragtruth", "--format", "parquet", "--output", target)
    assert (code, out, err) == (0, "", "")
    table = pq.read_table(target)
    records, signature, columns = expected(by="model", profile="ragtruth")
    assert table.column_names == columns
    assert table.schema.metadata[SIGNATURE_KEY].decode() == signature
    assert canonical(zip(*table.to_pydict().values())) == records


@pytest.mark.parametrize("suffix, fmt", [(".csv", "csv"), (".json", "json"),
                                         (".parquet", "parquet"), (".txt", "table")])
def test_the_output_suffix_chooses_the_format(capsys, files, tmp_path, suffix, fmt):
    target = tmp_path / f"result{suffix}"
    assert run(capsys, "evaluate", files["jsonl"], *SPANS, "-o", target)[0] == 0
    if fmt == "parquet":
        assert pq.read_table(target).num_rows > 0
        return
    text = target.read_text(encoding="utf-8")
    if fmt == "csv":
        assert text.startswith("metric,measure,value,examples,average,profile,signature\n")
        signature = pd.read_csv(target)["signature"]  # one signature, on every row
        assert signature.nunique() == 1 and parse_signature(signature[0])["missing"] == "error"
    elif fmt == "json":
        assert set(json.loads(text)) == {"signature", "records"}
    else:
        assert text.splitlines()[0].split() == ["metric", "precision", "recall", "f1",
                                                "score", "examples", "average", "profile"]


def test_table_pivots_measures_into_columns(capsys, files, expected, frame):
    code, out, err = run(capsys, "evaluate", files["jsonl"], *SPANS, "--by", "model,lang",
                         "--metrics", "iou,character", "--profile", "mu_shroom")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].split() == ["model", "lang", "metric", "precision", "recall", "f1",
                                "score", "examples", "average", "profile"]
    assert set(lines[1]) == {"-", " "}
    tidy = frame.mycelium.evaluate("ref", "pred", text="text", by=["model", "lang"],
                                   metrics=["iou", "character"], profile="mu_shroom")
    n_rows = len(tidy.groupby(["model", "lang", "metric"], dropna=False))
    body = lines[2:2 + n_rows]
    assert lines[2 + n_rows] == ""
    # the JSON file's numbers were read by mu_shroom's rule, which the signature records
    read = signature_with(tidy.attrs["mycelium_signature"], float_parse="pandas-fast")
    assert lines[3 + n_rows] == f"signature: {read}"
    assert len(lines) == 4 + n_rows
    # m1/<null>: row b only; the character row carries P, R, F1 with 4 decimals.
    chars = tidy[(tidy.model == "m1") & tidy.lang.isna() & (tidy.metric == "character")]
    want = ["m1", "<null>", "character"] + [f"{v:.4f}" for v in chars["value"]] + [
        "1", "macro", "mu_shroom"]
    assert want in [line.split() for line in body]
    iou = tidy[tidy.model.isna() & (tidy.metric == "iou")]
    assert ["<null>", "en", "iou", f"{iou['value'].iloc[0]:.4f}", "1", "macro",
            "mu_shroom"] in [line.split() for line in body]
    # Columns are aligned: every body line is as long as the rule, numbers right-aligned.
    assert {len(line) for line in body} <= {len(lines[1])}


def test_null_keys_form_their_own_groups(capsys, files, expected):
    for kind in sorted(WRITERS):
        code, out, _ = run(capsys, "evaluate", files[kind], *SPANS, "--by", "lang",
                           "--metrics", "iou", "--format", "json")
        records = json.loads(out)["records"]
        assert [r["lang"] for r in records] == ["de", "en", None], kind
        assert [r["examples"] for r in records] == [2, 2, 2]
        assert sum(r["examples"] for r in records) == len(ROWS)


def test_refs_only_defaults_to_one_group(capsys, files, frame):
    code, out, _ = run(capsys, "evaluate", files["csv"], "--ref-col", "ref", "--pred-col",
                       "pred", "--format", "json")
    doc = json.loads(out)
    want = frame.mycelium.evaluate("ref", "pred")
    assert [r["value"] for r in doc["records"]] == want["value"].tolist()
    assert {r["examples"] for r in doc["records"]} == {len(ROWS)}


# ------------------------------------------------------------------ REFS + PREDS

def split(rows, seed=3):
    refs = [{k: v for k, v in r.items() if k != "pred"} for r in rows]
    preds = [{"id": r["id"], "spans": r["pred"], "model": r["model"]} for r in rows]
    random.Random(seed).shuffle(preds)
    return refs, preds


@pytest.mark.parametrize("ref_kind", sorted(WRITERS))
@pytest.mark.parametrize("pred_kind", sorted(WRITERS))
def test_refs_and_preds_paired_by_id(capsys, tmp_path, expected, ref_kind, pred_kind):
    refs, preds = split(ROWS)
    ref_path = WRITERS[ref_kind](tmp_path / f"refs.{ref_kind}", refs)
    pred_path = WRITERS[pred_kind](tmp_path / f"preds.{pred_kind}", preds)
    code, out, err = run(capsys, "evaluate", ref_path, pred_path, "--id-col", "id",
                         "--ref-col", "ref", "--pred-col", "spans", "--text-col", "text",
                         "--by", "model,lang", "--format", "csv")
    assert (code, err) == (0, "")
    assert csv_records(out) == expected(by=["model", "lang"])[0]


def test_group_and_text_columns_may_come_from_preds(capsys, tmp_path, expected):
    refs = [{"id": r["id"], "ref": r["ref"]} for r in ROWS]
    preds = [{"id": r["id"], "pred": r["pred"], "text": r["text"], "lang": r["lang"]}
             for r in ROWS][::-1]
    ref_path, pred_path = write_jsonl(tmp_path / "r.jsonl", refs), write_jsonl(
        tmp_path / "p.jsonl", preds)
    code, out, _ = run(capsys, "evaluate", ref_path, pred_path, "--id-col", "id", *SPANS,
                       "--by", "lang", "--format", "csv")
    assert code == 0
    assert csv_records(out) == expected(by="lang")[0]


def test_refs_and_preds_paired_by_position(capsys, tmp_path, expected):
    refs = [{k: v for k, v in r.items() if k != "pred"} for r in ROWS]
    preds = [{"pred": r["pred"]} for r in ROWS]
    ref_path, pred_path = write_jsonl(tmp_path / "r.jsonl", refs), write_jsonl(
        tmp_path / "p.jsonl", preds)
    code, out, _ = run(capsys, "evaluate", ref_path, pred_path, *SPANS, "--by", "model",
                       "--format", "csv")
    assert code == 0
    assert csv_records(out) == expected(by="model")[0]


def test_a_group_key_named_like_the_internal_span_columns(capsys, tmp_path):
    rows = [{"__ref__": "x", "__pred__": "y", "r": [[0, 2]], "p": [[0, 2]]},
            {"__ref__": None, "__pred__": "y", "r": [[0, 4]], "p": [[0, 2]]}]
    path = write_jsonl(tmp_path / "d.jsonl", rows)
    code, out, _ = run(capsys, "evaluate", path, "--ref-col", "r", "--pred-col", "p",
                       "--by", "__ref__,__pred__", "--metrics", "iou", "--format", "json")
    assert code == 0
    records = json.loads(out)["records"]
    assert [(r["__ref__"], r["__pred__"], r["value"]) for r in records] == [
        ("x", "y", 1.0), (None, "y", 0.5)]


def test_by_may_repeat_and_mix_commas(capsys, files, expected):
    code, out, _ = run(capsys, "evaluate", files["jsonl"], *SPANS, "--by", "model",
                       "--by", "lang", "--format", "csv")
    assert code == 0
    assert csv_records(out) == expected(by=["model", "lang"])[0]


def test_jsonl_from_standard_input(capsys, monkeypatch, files, expected):
    monkeypatch.setattr("sys.stdin", io.StringIO(files["jsonl"].read_text("utf-8")))
    code, out, _ = run(capsys, "evaluate", "-", *SPANS, "--by", "lang", "--format", "csv")
    assert code == 0
    assert csv_records(out) == expected(by="lang")[0]


def test_gzipped_jsonl_and_a_byte_order_mark(capsys, tmp_path, files, expected):
    import gzip

    packed = tmp_path / "data.jsonl.gz"
    packed.write_bytes(gzip.compress(files["jsonl"].read_bytes()))
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbf" + files["csv"].read_bytes())
    for path in (packed, bom):
        code, out, _ = run(capsys, "evaluate", path, *SPANS, "--by", "lang",
                           "--format", "csv")
        assert code == 0
        assert csv_records(out) == expected(by="lang")[0]


def test_missing_policy(capsys, tmp_path, frame):
    rows = [dict(r) for r in ROWS]
    rows[1]["pred"] = None
    path = write_jsonl(tmp_path / "d.jsonl", rows)
    assert run(capsys, "evaluate", path, *SPANS)[0] == 1
    for policy in ("empty", "drop"):
        code, out, _ = run(capsys, "evaluate", path, *SPANS, "--missing", policy,
                           "--format", "json")
        want = pd.DataFrame(rows).mycelium.evaluate("ref", "pred", text="text",
                                                    missing=policy)
        assert code == 0
        assert [r["value"] for r in json.loads(out)["records"]] == want["value"].tolist()
        assert json.loads(out)["records"][0]["examples"] == (6 if policy == "empty" else 5)


def test_table_columns_stay_aligned_with_wide_characters(capsys, tmp_path):
    rows = [{"g": "长城", "r": [[0, 2]], "p": [[0, 2]]},
            {"g": "a", "r": [[0, 4]], "p": [[0, 2]]}]
    path = write_jsonl(tmp_path / "d.jsonl", rows)
    code, out, _ = run(capsys, "evaluate", path, "--ref-col", "r", "--pred-col", "p",
                       "--by", "g", "--metrics", "iou")
    assert code == 0
    lines = out.splitlines()
    assert lines[:4] == ["g     metric   score  examples  average  profile",
                         "----  ------  ------  --------  -------  -------",
                         "a     iou     0.5000         1  macro    -",
                         "长城  iou     1.0000         1  macro    -"]
