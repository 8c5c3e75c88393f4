"""``mycelium evaluate`` with intervals, granularity and soft labels: the numbers of
``df.mycelium.evaluate`` on the same rows, in every output format."""

from __future__ import annotations

import io
import json
import math

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import mycelium
from mycelium.cli.app import main

from _frames_data import SOFT_TYPE, make_rows, pandas_object, records, same_records

# An empty CSV cell is null for the command (a language code "NA" stays a string), so no
# row has an empty text here.
ROWS = [{k: (v or "x" if k == "text" else v) for k, v in r.items() if k != "typed_ref"}
        for r in make_rows(n=24, seed=8)]
SPANS = ["--ref-col", "ref", "--pred-col", "pred", "--text-col", "text"]
SOFT = ["--soft-ref-col", "soft_ref", "--soft-pred-col", "soft_pred"]
CI = ["--ci", "0.9", "--n-resamples", "40", "--seed", "7"]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path):
    """The ROWS as JSON lines, CSV (nested cells as JSON strings) and Parquet (Arrow
    list<struct> columns)."""
    jsonl = tmp_path / "data.jsonl"
    jsonl.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS),
                     encoding="utf-8")
    frame = pandas_object(ROWS)
    for name in ("ref", "pred", "soft_ref", "soft_pred"):
        frame[name] = [json.dumps(v) for v in frame[name]]
    csv = tmp_path / "data.csv"
    frame.to_csv(csv, index=False)
    columns = {name: pa.array([r[name] for r in ROWS]) for name in ROWS[0]}
    columns["ref"] = mycelium.to_spans([r["ref"] for r in ROWS])
    columns["pred"] = mycelium.to_spans([r["pred"] for r in ROWS])
    for name in ("soft_ref", "soft_pred"):
        columns[name] = pa.array([r[name] for r in ROWS], SOFT_TYPE)
    parquet = tmp_path / "data.parquet"
    pq.write_table(pa.table(columns), parquet)
    return {"jsonl": jsonl, "csv": csv, "parquet": parquet}


def accessor(**options):
    return pandas_object(ROWS).mycelium.evaluate("ref", "pred", text="text", **options)


def parse_csv(text: str) -> list[dict]:
    frame = pd.read_csv(io.StringIO(text), keep_default_na=False, na_values=[""],
                        dtype={"model": object, "lang": object, "profile": object})
    return records(frame)


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_csv_carries_intervals_and_soft_spearman(capsys, files, kind):
    # The ids key the resamples: read the CSV's integer ids as integers, as in ROWS.
    typed = ["--infer-types"] if kind == "csv" else []
    code, out, err = run(capsys, "evaluate", files[kind], *SPANS, *SOFT, *CI, "--by", "model",
                         "--id-col", "id", "--format", "csv", *typed)
    assert (code, err) == (0, "")
    want = accessor(by="model", ci=0.9, n_resamples=40, seed=7, id_col="id",
                    soft_ref_col="soft_ref", soft_pred_col="soft_pred")
    assert out.splitlines()[0] == ",".join(want.columns)
    assert "soft_spearman" in set(want.metric)
    assert same_records(parse_csv(out), records(want))


def test_table_shows_a_ci_column(capsys, files):
    code, out, err = run(capsys, "evaluate", files["jsonl"], *SPANS, *CI, "--metrics", "iou")
    assert code == 0
    header, rule, row = out.splitlines()[:3]
    assert header.split() == ["metric", "measure", "value", "ci", "examples", "average",
                              "profile"]
    want = accessor(metrics="iou", ci=0.9, n_resamples=40, seed=7)
    interval = f"[{want.ci_low[0]:.4f}, {want.ci_high[0]:.4f}]"
    assert row.split(None, 3)[:3] == ["iou", "score", f"{want.value[0]:.4f}"]
    assert interval in row
    assert "|ci:0.9|resamples:40|seed:7|" in out
    code, out, err = run(capsys, "evaluate", files["jsonl"], *SPANS, "--metrics", "iou")
    assert "ci" not in out.splitlines()[0].split()


def test_json_and_parquet_carry_intervals(capsys, files, tmp_path):
    want = accessor(by="lang", ci=0.9, n_resamples=40, seed=7)
    code, out, err = run(capsys, "evaluate", files["parquet"], *SPANS, *CI, "--by", "lang",
                         "--format", "json")
    assert code == 0
    doc = json.loads(out)
    got = [{k: (math.nan if v is None and k in ("value", "ci_low", "ci_high") else v)
            for k, v in r.items()} for r in doc["records"]]
    assert same_records(got, records(want))
    assert doc["signature"] == want.attrs["mycelium_signature"]
    path = tmp_path / "out.parquet"
    code, out, err = run(capsys, "evaluate", files["parquet"], *SPANS, *CI, "--by", "lang",
                         "-o", path)
    assert code == 0
    table = pq.read_table(path)
    assert table.schema.field("ci_low").type == pa.float64()
    assert same_records(records(mycelium.read_parquet(path)), records(want))
    assert mycelium.read_parquet(path).attrs["mycelium_signature"] == \
        want.attrs["mycelium_signature"]


@pytest.mark.parametrize("granularity", ["word", "sentence"])
def test_granularity_option(capsys, files, granularity):
    code, out, err = run(capsys, "evaluate", files["csv"], *SPANS, "--granularity",
                         granularity, "--by", "lang", "--format", "csv")
    assert code == 0
    assert same_records(parse_csv(out), records(accessor(by="lang",
                                                         granularity=granularity)))


def test_ids_key_resamples_across_paired_files(capsys, files, tmp_path):
    """With --id-col, intervals depend on the ids, not on how the rows are ordered."""
    shuffled = tmp_path / "preds.jsonl"
    rows = ROWS[::-1]
    shuffled.write_text("".join(json.dumps({"id": r["id"], "pred": r["pred"],
                                            "soft_pred": r["soft_pred"]}) + "\n"
                                for r in rows), encoding="utf-8")
    code, paired, err = run(capsys, "evaluate", files["jsonl"], shuffled, *SPANS, *SOFT, *CI,
                            "--id-col", "id", "--format", "csv")
    assert (code, err) == (0, "")
    code, single, err = run(capsys, "evaluate", files["jsonl"], *SPANS, *SOFT, *CI,
                            "--id-col", "id", "--format", "csv")
    assert code == 0 and paired == single
    want = accessor(ci=0.9, n_resamples=40, seed=7, id_col="id", soft_ref_col="soft_ref",
                    soft_pred_col="soft_pred")
    assert same_records(parse_csv(single), records(want))


@pytest.mark.parametrize("argv, fragment", [
    (SOFT[:2], "--soft-ref-col and --soft-pred-col go together"),
    (["--ci", "1.5"], "argument --ci: expected a confidence level in (0, 1)"),
    (["--ci", "x"], "argument --ci: expected a confidence level"),
    (["--granularity", "token"], "argument --granularity: invalid choice"),
    (["--n-resamples", "many"], "argument --n-resamples/--resamples: expected an integer >= 2"),
    (["--ci", "0.9", "--resamples", "1"],
     "argument --n-resamples/--resamples: expected an integer >= 2"),
    (["--metrics", "soft_spearman"], "--metrics soft_spearman needs soft labels: give "
                                     "--soft-ref-col and --soft-pred-col"),
])
def test_usage_errors_exit_2(capsys, files, argv, fragment):
    code, out, err = run(capsys, "evaluate", files["jsonl"], *SPANS, *argv)
    assert code == 2 and out == ""
    assert fragment in err


@pytest.mark.parametrize("argv, fragment", [
    (["--soft-ref-col", "soft_ref", "--soft-pred-col", "nope"],
     "--soft-pred-col column 'nope' not found in REFS"),
])
def test_data_errors_exit_1(capsys, files, argv, fragment):
    code, out, err = run(capsys, "evaluate", files["jsonl"], *SPANS, *argv)
    assert code == 1 and out == ""
    assert err.startswith("mycelium: error: ") and fragment in err
