"""Exit statuses: 0 success, 1 bad data (exactly one ``mycelium: error: ...`` line on
stderr, no traceback unless ``--debug``), 2 usage errors (argparse's behaviour)."""

from __future__ import annotations

import json

import pytest
from cli_data import ROWS, write_jsonl

import mycelium
from mycelium.cli.app import main

SPANS = ["--ref-col", "ref", "--pred-col", "pred"]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def data_error(capsys, *argv) -> str:
    """Run, check exit status 1 with one error line and no output; return the message."""
    code, out, err = run(capsys, *argv)
    assert code == 1, err
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("mycelium: error: ")
    assert "Traceback" not in err
    return err[len("mycelium: error: "):-1]


def rows_with(tmp_path, name="d.jsonl", **changes):
    rows = [dict(r) for r in ROWS]
    for key, (index, value) in changes.items():
        rows[index][key] = value
    return write_jsonl(tmp_path / name, rows)


# ----------------------------------------------------------------- exit status 1

def test_missing_file(capsys, tmp_path):
    msg = data_error(capsys, "evaluate", tmp_path / "nope.jsonl", *SPANS)
    assert msg == f"No such file or directory: {tmp_path / 'nope.jsonl'}"


def test_missing_columns_list_the_columns(capsys, files):
    msg = data_error(capsys, "evaluate", files["jsonl"], "--ref-col", "refs",
                     "--pred-col", "pred")
    assert msg == (f"--ref-col column 'refs' not found in REFS; {files['jsonl']} has columns "
                   "['id', 'model', 'lang', 'text', 'ref', 'pred']")
    msg = data_error(capsys, "evaluate", files["csv"], *SPANS, "--by", "model,language")
    assert msg.startswith("--by column 'language' not found in REFS; ")
    msg = data_error(capsys, "evaluate", files["csv"], *SPANS, "--text-col", "txt")
    assert msg.startswith("--text-col column 'txt' not found in REFS; ")


def test_bad_span_names_the_file_row_and_id(capsys, tmp_path, files):
    refs = files["jsonl"]
    preds = write_jsonl(tmp_path / "p.jsonl",
                        [{"id": r["id"], "pred": [[0, 99]] if r["id"] == "c" else r["pred"]}
                         for r in ROWS][::-1])
    msg = data_error(capsys, "evaluate", refs, preds, "--id-col", "id", *SPANS,
                     "--text-col", "text")
    # File rows and spans are counted from 1, on the file that holds the span.
    assert msg == (f"PREDS {preds}, row 4, id 'c', column 'pred' (--pred-col), span 1: end 99 "
                   "is past the end of the text (len(text) = 20) in [0, 99); expected end <= "
                   "len(text). Offsets are Python str code points, half-open; fix the span or "
                   "the text (inclusive ends need +1 only when converting from [start, end] "
                   "conventions).")


def test_bad_span_in_a_single_file(capsys, tmp_path):
    path = rows_with(tmp_path, ref=(4, [[5, 2]]))
    msg = data_error(capsys, "evaluate", path, *SPANS)
    assert msg.startswith(f"REFS {path}, row 5, column 'ref' (--ref-col), span 1: start 5 > "
                          "end 2; expected 0 <= start <= end")


def test_null_spans_are_errors_by_default(capsys, tmp_path):
    path = rows_with(tmp_path, pred=(1, None))
    msg = data_error(capsys, "evaluate", path, *SPANS)
    # The remedy is the command's option, not the Python keyword.
    assert msg == (f"REFS {path}, row 2, column 'pred' (--pred-col) is null (None/NaN) "
                   "instead of a span list; fix by passing --missing empty to score it as "
                   "an example without spans, or --missing drop to leave it out.")


def test_unreadable_json(capsys, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"ref": [], "pred": []}\n\n{"ref": [[0, 1]], "pred": \n', "utf-8")
    msg = data_error(capsys, "evaluate", path, *SPANS)
    assert msg == (f"{path}:3: not valid JSON (Expecting value at column 27); expected one "
                   "JSON object per line.")
    path.write_text('[1, 2]\n', "utf-8")
    assert data_error(capsys, "evaluate", path, *SPANS) == (
        f"{path}:1: expected a JSON object per line, got list [1, 2].")


def test_unparsable_json_cell_in_csv(capsys, tmp_path):
    path = tmp_path / "d.csv"
    path.write_text('ref,pred\n"[[0, 2]]","[[0, 2]"\n', "utf-8")
    msg = data_error(capsys, "evaluate", path, *SPANS)
    assert msg.startswith(f"REFS {path}, row 1, column 'pred' (--pred-col): could not "
                          "parse the JSON string '[[0, 2]' as a span list")


def test_unknown_extension(capsys, tmp_path):
    path = tmp_path / "d.txt"
    path.write_text("", "utf-8")
    assert data_error(capsys, "evaluate", path, *SPANS).startswith(
        f"cannot tell the format of '{path}' from its extension")


def test_not_a_parquet_file(capsys, tmp_path):
    path = tmp_path / "d.parquet"
    path.write_text("not parquet", "utf-8")
    assert data_error(capsys, "evaluate", path, *SPANS)


@pytest.mark.parametrize("case, message", [
    ("rows", "REFS ({r}) has 6 rows but PREDS ({p}) has 5; pass files with the same rows "
             "in the same order, or pair them by an id column with --id-col."),
    ("missing", "ids in column 'id' do not match: 1 REFS id(s) missing from PREDS ('f'); "
                "every REFS id needs exactly one PREDS row and vice versa."),
    ("extra", "ids in column 'id' do not match: 1 PREDS id(s) not in REFS ('zz'); every "
              "REFS id needs exactly one PREDS row and vice versa."),
    ("duplicate", "--id-col 'id': PREDS ({p}) has 1 duplicate id(s): 'b'; each id must "
                  "occur once."),
    ("null", "--id-col 'id': PREDS ({p}) has no id in row 2; every row needs one."),
    ("types", "ids in column 'id' do not match: 6 REFS id(s) missing from PREDS ('a', 'b', "
              "'c', ...) and 6 PREDS id(s) not in REFS (0, 1, 2, ...); no id matched: REFS "
              "ids look like 'a' (str), PREDS ids like 0 (int); every REFS id needs exactly "
              "one PREDS row and vice versa."),
])
def test_ids_must_align(capsys, tmp_path, files, case, message):
    preds = [{"id": r["id"], "pred": r["pred"]} for r in ROWS]
    if case in ("rows", "missing"):
        preds = preds[:-1]
    elif case == "extra":
        preds.append({"id": "zz", "pred": []})
    elif case == "duplicate":
        preds[3]["id"] = "b"
    elif case == "null":
        preds[1]["id"] = None
    elif case == "types":
        preds = [{"id": i, "pred": p["pred"]} for i, p in enumerate(preds)]
    path = write_jsonl(tmp_path / "p.jsonl", preds)
    id_col = [] if case == "rows" else ["--id-col", "id"]
    msg = data_error(capsys, "evaluate", files["jsonl"], path, *id_col, *SPANS)
    assert msg == message.format(r=files["jsonl"], p=path)


def test_debug_prints_the_traceback_then_the_line(capsys, tmp_path):
    path = rows_with(tmp_path, ref=(0, [[5, 2]]))
    for argv in (["--debug", "evaluate", path, *SPANS], ["evaluate", path, *SPANS, "--debug"]):
        code, out, err = run(capsys, *argv)
        assert code == 1
        assert err.startswith("Traceback (most recent call last):")
        assert "SpanValidationError" in err
        assert err.splitlines()[-1].startswith(
            f"mycelium: error: REFS {path}, row 1, column 'ref' (--ref-col), span 1: ")


# ----------------------------------------------------------------- exit status 2

@pytest.mark.parametrize("argv, fragment", [
    ([], "the following arguments are required: COMMAND"),
    (["score"], "invalid choice: 'score'"),
    (["evaluate", "{data}"], "the following arguments are required: --ref-col"),
    (["evaluate", "{data}", "--ref-col", "ref"], "give the predictions: --pred-col (predicted "
                                                 "spans), or scores with --soft-pred-col"),
    (["evaluate", "{data}", *SPANS, "--metrics", "iuo"],
     "argument --metrics: Unknown metric 'iuo'. Did you mean 'iou'?"),
    (["evaluate", "{data}", *SPANS, "--profile", "shroom"], "argument --profile: invalid choice"),
    (["evaluate", "{data}", *SPANS, "--average", "weighted"], "argument --average"),
    (["evaluate", "{data}", *SPANS, "--zero-division", "0.5"],
     "argument --zero-division: expected 0, 1, nan or warn, got '0.5'"),
    (["evaluate", "{data}", *SPANS, "--params", "{oops"], "argument --params: not valid JSON"),
    (["evaluate", "{data}", *SPANS, "--params", "[1]"], "argument --params: expected a JSON "),
    (["evaluate", "{data}", *SPANS, "--format", "xlsx"], "argument --format: invalid choice"),
    (["evaluate", "{data}", *SPANS, "--format", "parquet"],
     "--format parquet writes a binary file: give it with --output FILE"),
    (["evaluate", "{data}", *SPANS, "--id-col", "id"],
     "--id-col pairs REFS with PREDS rows; give a PREDS file as well"),
    (["evaluate", "{data}", *SPANS, "--by", ","], "argument --by: expected comma-separated"),
    (["evaluate", "-", "-", *SPANS], "standard input can be read once"),
])
def test_usage_errors_exit_2(capsys, files, argv, fragment):
    argv = [a.replace("{data}", str(files["jsonl"])) for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("usage: mycelium")
    assert fragment in err
    assert "Traceback" not in err


def test_help_and_version_exit_0(capsys):
    code, out, _ = run(capsys, "--version")
    assert (code, out) == (0, f"mycelium {mycelium.__version__}\n")
    code, out, _ = run(capsys, "evaluate", "--help")
    assert code == 0 and "--id-col" in out and "REFS" in out


def test_success_writes_nothing_to_stderr(capsys, files):
    code, out, err = run(capsys, "evaluate", files["parquet"], *SPANS, "--format", "json")
    assert (code, err) == (0, "")
    assert json.loads(out)["records"]


def test_a_span_error_without_an_example_names_the_file_and_column_only():
    """A SpanValidationError naming no example (example=None) is told without a row,
    instead of failing on ``None + 1`` while formatting the message."""
    import argparse

    import pandas as pd

    from mycelium.cli.evaluate import Source, _at
    from mycelium.errors import SpanValidationError

    source = Source("REFS", "d.jsonl", pd.DataFrame({"ref": [[[0, 1]]]}))
    exc = SpanValidationError("references: expected a span column, got a number.",
                              side="references",
                              problem="expected a span column, got a number.")
    args = argparse.Namespace(id_col="id")
    assert _at(source, None, "ref", "--ref-col", exc, args) == (
        "REFS d.jsonl, column 'ref' (--ref-col): expected a span column, got a number.")
    assert _at(source, 0, "ref", "--ref-col", exc, args).startswith(
        "REFS d.jsonl, row 1, column 'ref' (--ref-col)")


def test_write_result_as_parquet_without_a_file_is_a_data_error():
    import pandas as pd

    from mycelium.cli.output import write_result

    with pytest.raises(ValueError, match=r"^Expected an output file for --format parquet, "
                                         r"got none; fix by giving --output FILE\.$"):
        write_result(pd.DataFrame({"value": [1.0]}), "parquet", None, by=[])
