"""Errors of ``mycelium evaluate`` speak in the command's terms: its flags (never a
Python keyword), the file, the 1-based row and span, and the column."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_data import ROWS, write_jsonl
from test_cli_errors import SPANS, data_error, run

SOFT = ["--soft-ref-col", "soft", "--soft-pred-col", "soft"]


@pytest.mark.parametrize("options, message", [
    (["--granularity", "word"], "--granularity word needs --text-col: the units are found "
                                "in the texts"),
    (SOFT, "--soft-ref-col and --soft-pred-col need --text-col: soft_spearman compares "
           "per-character probability vectors"),
    (SOFT + ["--text-col", "text", "--granularity", "sentence"],
     "soft_spearman has no word or sentence granularity; score the soft labels with "
     "--granularity char, in a separate run"),
    (["--metrics", "iou,soft_spearman"], "--metrics soft_spearman needs soft labels: give "
                                         "--soft-ref-col and --soft-pred-col"),
])
def test_options_that_need_others_name_the_flags(capsys, files, options, message):
    code, out, err = run(capsys, "evaluate", files["jsonl"], *SPANS, *options)
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == f"mycelium evaluate: error: {message}"
    assert "pass " not in err and "=..." not in err


def test_soft_label_errors_name_the_predictions_file(capsys, tmp_path):
    rows = [dict(r, soft=[]) for r in ROWS]
    refs = write_jsonl(tmp_path / "r.jsonl", rows)
    bad = [{"id": r["id"], "pred": r["pred"], "soft": []} for r in ROWS][::-1]
    bad[1]["soft"] = [{"start": 0, "end": 4, "prob": 1.5}]  # id "e", REFS row 5
    preds = write_jsonl(tmp_path / "p.jsonl", bad)
    msg = data_error(capsys, "evaluate", refs, preds, *SPANS, *SOFT, "--text-col", "text",
                     "--id-col", "id")
    assert msg == (f"PREDS {preds}, row 2, id 'e', column 'soft' (--soft-pred-col), span 1: "
                   "prob 1.5 is not a probability in [0, 1].")


def test_a_text_error_names_the_file_holding_the_texts(capsys, tmp_path):
    refs = write_jsonl(tmp_path / "r.jsonl", [{"ref": r["ref"]} for r in ROWS])
    preds = write_jsonl(tmp_path / "p.jsonl", [{"pred": [], "text": 123 if i == 3 else None}
                                               for i in range(len(ROWS))])
    msg = data_error(capsys, "evaluate", refs, preds, *SPANS, "--text-col", "text")
    assert msg == (f"PREDS {preds}, row 4, column 'text' (--text-col): expected a string (or "
                   "null when the text is unknown), got int 123; fix by quoting the text in "
                   "the file.")


def test_uint64_parquet_spans_name_the_file_and_column(capsys, tmp_path):
    span = pa.list_(pa.struct([("start", pa.uint64()), ("end", pa.uint64())]))
    spans = pa.array([[{"start": 0, "end": 1}], [{"start": 2**63 + 5, "end": 2**63 + 6}]],
                     span)
    path = tmp_path / "u.parquet"
    pq.write_table(pa.table({"ref": spans, "pred": spans}), path)
    msg = data_error(capsys, "evaluate", path, *SPANS)
    assert msg.startswith(f"{path}: ")  # the reader's conversion names column and row
    assert "9223372036854775813" in msg


def test_no_python_keywords_in_data_errors(capsys, tmp_path):
    rows = [dict(r) for r in ROWS]
    rows[2]["ref"] = None
    path = write_jsonl(tmp_path / "d.jsonl", rows)
    msg = data_error(capsys, "evaluate", path, *SPANS)
    assert "missing='empty'" not in msg and "--missing empty" in msg
    assert msg.startswith(f"REFS {path}, row 3, column 'ref' (--ref-col) is null")


def test_span_errors_carry_the_problem_without_the_location():
    from mycelium import SpanValidationError, evaluate

    with pytest.raises(SpanValidationError) as info:
        evaluate([[[0, 1]], None], [[[0, 1]], []])
    exc = info.value
    assert (exc.side, exc.example, exc.span, exc.fix) == ("references", 1, None, "missing")
    assert exc.problem == "is null (None/NaN) instead of a span list"
    assert str(exc).startswith("references example 1 is null")  # the Python message
    exc = SpanValidationError("predictions example 2, span 0: end 9 is past the end",
                              side="predictions", example=2, span=0)
    assert (exc.problem, exc.fix) == ("end 9 is past the end", None)


@pytest.mark.parametrize("options, message", [
    (["--ci", "0.9", "--n-resamples", "1"],
     "argument --n-resamples/--resamples: expected an integer >= 2 (1000 or more for a "
     "95% interval), got '1'"),
    (["--ci", "0.9", "--seed", "-1"], "argument --seed: expected an integer in [0, 2**64), "
                                      "got '-1'"),
])
def test_bootstrap_options_are_checked_as_flags(capsys, files, options, message):
    code, out, err = run(capsys, "evaluate", files["jsonl"], *SPANS, *options)
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == f"mycelium evaluate: error: {message}"


@pytest.mark.parametrize("options, need", [
    (("--granularity", "word"), "granularity='word' needs the text of every example"),
    (("--soft-ref-col", "soft", "--soft-pred-col", "soft"), "soft_spearman needs the text"),
])
def test_a_null_text_names_the_file_row_and_flag(capsys, tmp_path, options, need):
    rows = [dict(r, soft=[]) for r in ROWS]
    rows[3]["text"] = None
    path = write_jsonl(tmp_path / "d.jsonl", rows)
    msg = data_error(capsys, "evaluate", path, *SPANS, "--text-col", "text", *options)
    assert msg.startswith(f"REFS {path}, row 4, column 'text' (--text-col) is None")
    assert need in msg and "kept example" not in msg and "text=" not in msg
    assert msg.endswith("; fix by giving the row a text in the --text-col column.")


@pytest.mark.parametrize("soft", [False, True])
def test_a_null_text_is_reported_at_its_input_position(soft):
    # The position is the input's, not the position among the examples kept.
    import mycelium

    opts = (dict(soft_references=[[]] * 3, soft_predictions=[[]] * 3) if soft
            else dict(granularity="word"))
    with pytest.raises(mycelium.SpanValidationError) as info:
        mycelium.evaluate([None, [[0, 1]], [[0, 1]]], [[[0, 1]]] * 3, text=["ab", "ab", None],
                          missing="drop", **opts)
    assert (info.value.side, info.value.example, info.value.fix) == ("text", 2, "text")
    assert str(info.value).startswith("text example 2: is None")


def test_mixed_key_types_are_refused_in_plain_words(capsys, tmp_path):
    rows = [dict(r, g=1 if i % 2 else "1") for i, r in enumerate(ROWS)]
    path = write_jsonl(tmp_path / "d.jsonl", rows)
    msg = data_error(capsys, "evaluate", path, *SPANS, "--by", "g")
    assert msg == ("Expected by column 'g' to hold values of one type, got a mix of int, "
                   "str; fix by giving it one type (e.g. every key a string) in the frame "
                   "or file.")


def test_json_keys_one_one_point_oh_and_true_are_refused(capsys, tmp_path):
    keys = [1, 1.0, True]
    rows = [dict(r, g=keys[i % 3]) for i, r in enumerate(ROWS)]
    path = write_jsonl(tmp_path / "d.jsonl", rows)
    msg = data_error(capsys, "evaluate", path, *SPANS, "--by", "g")
    assert msg.startswith("Expected by column 'g' to hold values of one type, got a mix of "
                          "bool, ")
