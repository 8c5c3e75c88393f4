"""Input files are read as written: exact integers, CSV cells as text, JSON lines split
at "\\n" only, and every unreadable file named with its line."""

from __future__ import annotations

import gzip
import json

import pandas as pd
from cli_data import write_jsonl
from test_cli_errors import SPANS, data_error, run

from mycelium.cli.app import read_frame

BIG = 2**53


def test_jsonl_integer_keys_stay_exact_around_a_null(tmp_path):
    path = write_jsonl(tmp_path / "k.jsonl", [
        {"k": BIG, "ref": [], "pred": []}, {"k": BIG + 1, "ref": [], "pred": []},
        {"k": None, "ref": [], "pred": []}, {"k": 3, "ref": [], "pred": []}])
    frame = read_frame(str(path))
    assert str(frame["k"].dtype) == "Int64"
    assert frame["k"].tolist()[:2] == [BIG, BIG + 1]
    assert frame["k"].isna().tolist() == [False, False, True, False]
    assert frame["k"].tolist()[3] == 3 and type(frame["k"].tolist()[3]) is int


def test_jsonl_integer_keys_beyond_int64_stay_exact(tmp_path):
    path = write_jsonl(tmp_path / "k.jsonl", [{"k": 2**64 - 1}, {"k": None}, {"k": 2**63}])
    assert read_frame(str(path))["k"].tolist()[::2] == [2**64 - 1, 2**63]
    path = write_jsonl(tmp_path / "m.jsonl", [{"k": 2**70}, {"k": -1}, {"k": BIG + 1},
                                                {"k": 0.5}])
    assert read_frame(str(path))["k"].tolist() == [2**70, -1, BIG + 1, 0.5]


def test_jsonl_keys_above_2_53_form_their_own_groups(capsys, tmp_path):
    path = write_jsonl(tmp_path / "k.jsonl", [
        {"k": BIG, "ref": [[0, 1]], "pred": [[0, 1]]}, {"k": BIG + 1, "ref": [], "pred": [[0, 1]]},
        {"k": None, "ref": [[0, 1]], "pred": []}, {"k": 3, "ref": [], "pred": []}])
    code, out, err = run(capsys, "evaluate", path, *SPANS, "--by", "k", "--metrics", "iou",
                         "--format", "json")
    assert (code, err) == (0, "")
    records = json.loads(out)["records"]
    assert [(r["examples"], r["value"]) for r in records] == [(1, 1.0), (1, 1.0), (1, 0.0),
                                                              (1, 0.0)]


def test_csv_cells_are_text_by_default(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text('id,k,flag,ref\n007,007,true,"[[0, 1]]"\n7,7,,"[]"\n', "utf-8")
    frame = read_frame(str(path))
    assert frame["id"].tolist() == ["007", "7"]
    assert frame["k"].tolist() == ["007", "7"]
    assert frame["flag"].tolist()[0] == "true" and pd.isna(frame["flag"].tolist()[1])
    typed = read_frame(str(path), infer_types=True)
    assert typed["id"].tolist() == [7, 7]


def test_csv_ids_007_and_7_do_not_pair(capsys, tmp_path):
    refs = tmp_path / "r.csv"
    refs.write_text('id,ref\n007,"[[0, 1]]"\n8,"[]"\n', "utf-8")
    preds = tmp_path / "p.csv"
    preds.write_text('id,pred\n7,"[[0, 1]]"\n8,"[]"\n', "utf-8")
    msg = data_error(capsys, "evaluate", refs, preds, "--id-col", "id", *SPANS)
    assert msg == ("ids in column 'id' do not match: 1 REFS id(s) missing from PREDS "
                   "('007') and 1 PREDS id(s) not in REFS ('7'); every REFS id needs "
                   "exactly one PREDS row and vice versa.")
    code, out, err = run(capsys, "evaluate", refs, preds, "--id-col", "id", *SPANS,
                         "--infer-types", "--format", "json", "--metrics", "iou")
    assert (code, err) == (0, "") and json.loads(out)["records"][0]["value"] == 1.0


def test_csv_keys_007_and_7_are_two_groups(capsys, tmp_path):
    path = tmp_path / "d.csv"
    path.write_text('k,ref,pred\n007,"[[0, 1]]","[[0, 1]]"\n7,"[]","[[0, 1]]"\n', "utf-8")
    code, out, err = run(capsys, "evaluate", path, *SPANS, "--by", "k", "--metrics", "iou",
                         "--format", "json")
    assert (code, err) == (0, "")
    assert [(r["k"], r["value"]) for r in json.loads(out)["records"]] == [("007", 1.0),
                                                                          ("7", 0.0)]


def test_jsonl_splits_lines_at_newline_only(capsys, tmp_path):
    text = "a\u2028b\u2029c\x85d"
    path = tmp_path / "d.jsonl"
    lines = [json.dumps({"text": text, "ref": [[0, 7]], "pred": [[0, 7]]},
                        ensure_ascii=False), '{"text": "xy",\r "ref": [], "pred": []}']
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode("utf-8"))
    frame = read_frame(str(path))
    assert frame["text"].tolist() == [text, "xy"]
    packed = tmp_path / "d.jsonl.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    assert read_frame(str(packed))["text"].tolist() == [text, "xy"]


def test_invalid_utf8_names_the_file_and_line(capsys, tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"ref": [], "pred": []}\n{"ref": [], "pred": [], "t": "\xff"}\n')
    assert data_error(capsys, "evaluate", path, *SPANS) == (
        f"{path}:2: not valid UTF-8 (byte 0xff at byte 31 of the line); expected UTF-8 "
        "text; fix by saving the file as UTF-8.")
    path = tmp_path / "d.csv"
    path.write_bytes(b'ref,pred\n"[]","[]"\n"[]","[]" \xe9\n')
    assert data_error(capsys, "evaluate", path, *SPANS) == (
        f"{path}:3: not valid UTF-8 (byte 0xe9 at byte 11 of the line); expected UTF-8 "
        "text; fix by saving the file as UTF-8.")


def test_empty_files_say_they_are_empty(capsys, tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text("\n\n", "utf-8")
    assert data_error(capsys, "evaluate", path, *SPANS) == (
        f"{path}: the file is empty (no JSON lines); expected one JSON object per line.")
    path = tmp_path / "d.csv"
    path.write_text("", "utf-8")
    assert data_error(capsys, "evaluate", path, *SPANS) == (
        f"{path}: the file is empty (no header line); expected a header with the column "
        "names, then one row per example.")


def test_unreadable_parquet_names_the_file(capsys, tmp_path):
    path = tmp_path / "d.parquet"
    path.write_text("not parquet", "utf-8")
    msg = data_error(capsys, "evaluate", path, *SPANS)
    assert msg.startswith(f"{path}: ") and "Parquet" in msg
