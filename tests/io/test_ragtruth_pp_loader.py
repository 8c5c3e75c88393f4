"""`read_ragtruth_pp` on records written here in RAGTruth++'s published CSV layout (two
files joined by ``message_stable_id``); no RAGTruth++ data is used."""

from __future__ import annotations

import csv
import hashlib

import pytest

import mycelium
from mycelium import SpanValidationError
from mycelium.io import RAGTRUTH_PP_LABEL_TYPE

SPAN_HEADER = ["start_pos", "end_pos", "span_text", "label", "reasoning", "stable_id",
               "message_stable_id"]
MESSAGE_HEADER = ["stable_id", "meta", "role", "position", "text",
                  "message_thread_stable_id"]
ANSWER = "The bridge opened in 1932,\nand it was painted green in 1990."
MESSAGES = [
    ["u1", "{}", "user", "0", "When did the bridge open?", "t1"],
    ["a1", '{"original_id": "1472", "model": "gpt-4-0613"}', "assistant", "1", ANSWER, "t1"],
    ["u2", "{}", "user", "0", "Summarize, please.", "t2"],
    ["a2", '{"original_id": "1473"}', "assistant", "1", "Nothing is wrong here.", "t2"],
]
SPANS = [
    ["21", "25", "1932", "hallucination", "the passage says 1931", "s1", "a1"],
    ["46", "51", "green", "hallucination", "colour not given", "s2", "a1"],
]


def _write(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([header, *rows])
    return path


@pytest.fixture
def files(tmp_path):
    return (_write(tmp_path / "hallucination_spans.csv", SPAN_HEADER, SPANS),
            _write(tmp_path / "messages.csv", MESSAGE_HEADER, MESSAGES))


def test_one_row_per_assistant_response_with_its_spans(files):
    df = mycelium.read_ragtruth_pp(*files)
    assert df.columns.tolist() == ["id", "thread_id", "position", "original_id", "model",
                                   "prompt", "response", "meta", "labels"]
    assert df["id"].tolist() == ["a1", "a2"]
    assert df["original_id"].tolist() == ["1472", "1473"]
    assert df["model"].tolist()[0] == "gpt-4-0613" and df["model"].isna().tolist()[1]
    assert df["prompt"].tolist() == ["When did the bridge open?", "Summarize, please."]
    assert df["position"].tolist() == [1, 1]
    assert df["labels"].dtype.pyarrow_dtype == RAGTRUTH_PP_LABEL_TYPE
    first = df.loc[0, "labels"]
    assert [(x["start"], x["end"], x["text"]) for x in first] == [(21, 25, "1932"),
                                                                  (46, 51, "green")]
    assert all(ANSWER[x["start"]:x["end"]] == x["text"] for x in first)
    assert first[0]["label_type"] == "hallucination" and first[0]["span_id"] == "s1"
    assert list(df.loc[1, "labels"]) == []


def test_scores_and_records_both_files(files):
    df = mycelium.read_ragtruth_pp(*files)
    report = mycelium.evaluate(df["labels"], [[[21, 25]], []], text=df["response"],
                               profile="ragtruth", metrics=["character", "response_level"])
    assert report["character"] == {"precision": 1.0, "recall": 4 / 9, "f1": 8 / 13}
    assert report["response_level"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    digests = sorted(hashlib.sha256(p.read_bytes()).hexdigest() for p in files)
    want = hashlib.sha256("".join(d + "\n" for d in digests).encode()).hexdigest()
    assert report["meta"]["dataset"] == f"ragtruth_pp@sha256:{want[:12]}"
    assert report["meta"]["signature"].endswith(
        "|dataset_files:hallucination_spans.csv,messages.csv")


def test_inclusive_end_is_read_when_asked(tmp_path):
    spans = _write(tmp_path / "s.csv", SPAN_HEADER,
                   [["21", "24", "1932", "h", "", "s1", "a1"]])
    messages = _write(tmp_path / "m.csv", MESSAGE_HEADER, MESSAGES)
    with pytest.raises(SpanValidationError, match=r"s\.csv:2: field 'span_text': expected "
                       r"text\[21:24\] == '1932', got '193', at span 's1'; the inclusive "
                       r"reading matches; fix by passing end='inclusive'\."):
        mycelium.read_ragtruth_pp(spans, messages)
    df = mycelium.read_ragtruth_pp(spans, messages, end="inclusive")
    assert (df.loc[0, "labels"][0]["start"], df.loc[0, "labels"][0]["end"]) == (21, 25)


@pytest.mark.parametrize("row, field, message", [
    (["21", "x", "1932", "h", "", "s1", "a1"], "end_pos", "expected an integer, got 'x'"),
    (["21", "25", "1932", "h", "", "s1", "zz"], "message_stable_id",
     "'zz' is not a stable_id of messages.csv"),
    (["0", "4", "When", "h", "", "s1", "u1"], "message_stable_id", "'u1' is a user message"),
    (["21", "99", "1932", "h", "", "s1", "a1"], "end_pos",
     r"\[21, 99\) is not a span of the response \(length 60\)"),
    (["21", "25", "1931", "h", "", "s1", "a1"], "span_text",
     "expected text\\[21:25\\] == '1931', got '1932'.*fix by checking the offsets"),
])
def test_malformed_spans_name_file_line_and_field(tmp_path, row, field, message):
    spans = _write(tmp_path / "spans.csv", SPAN_HEADER, [SPANS[1], row])
    messages = _write(tmp_path / "messages.csv", MESSAGE_HEADER, MESSAGES)
    with pytest.raises(ValueError, match=rf"spans\.csv:3: field '{field}'.*{message}"):
        mycelium.read_ragtruth_pp(spans, messages)


def test_line_numbers_count_quoted_line_breaks(tmp_path):
    # message a1's text spans two physical lines, so u2 starts on line 4
    rows = [MESSAGES[0], MESSAGES[1], ["u2", "[1]", "user", "0", "x", "t2"]]
    messages = _write(tmp_path / "messages.csv", MESSAGE_HEADER, rows)
    spans = _write(tmp_path / "spans.csv", SPAN_HEADER, SPANS)
    with pytest.raises(ValueError, match=r"messages\.csv:5: field 'meta': expected a JSON "
                       r"object, got \[1\]"):
        mycelium.read_ragtruth_pp(spans, messages)


def test_repeated_ids_and_missing_columns_are_errors(tmp_path):
    messages = _write(tmp_path / "messages.csv", MESSAGE_HEADER, MESSAGES)
    spans = _write(tmp_path / "spans.csv", SPAN_HEADER, [SPANS[0], SPANS[0]])
    with pytest.raises(ValueError, match=r"spans\.csv:3: field 'stable_id': 's1' already "
                       r"appeared on line 2"):
        mycelium.read_ragtruth_pp(spans, messages)
    bad = _write(tmp_path / "bad.csv", SPAN_HEADER[:-1], [SPANS[0][:-1]])
    with pytest.raises(ValueError, match=r"bad\.csv:1: expected the columns .*; missing "
                       r"message_stable_id"):
        mycelium.read_ragtruth_pp(bad, messages)
    with pytest.raises(ValueError, match="Expected end='exclusive' or 'inclusive'"):
        mycelium.read_ragtruth_pp(spans, messages, end="closed")
    with pytest.raises(FileNotFoundError, match="RAGTruth\\+\\+'s messages.csv"):
        mycelium.read_ragtruth_pp(spans, tmp_path / "none.csv")


@pytest.mark.parametrize("name", ["messages.csv", "hallucination_spans.csv"])
def test_a_byte_that_is_not_utf8_names_file_and_line(files, name):
    """A Latin-1 'é' (0xe9) on the third line: told with the file, the line and the byte,
    not as a raw UnicodeDecodeError."""
    path = files[0].parent / name
    lines = path.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b"1", b"\xe9", 1)
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(ValueError) as info:
        mycelium.read_ragtruth_pp(*files)
    assert not isinstance(info.value, UnicodeDecodeError)
    column = lines[2].index(b"\xe9") + 1
    assert str(info.value) == (f"{path}:3: not valid UTF-8 (byte 0xe9 at byte {column} of "
                               "the line); expected UTF-8 text; fix by saving the file as "
                               "UTF-8.")


def test_a_byte_order_mark_is_still_dropped(files):
    for path in files:
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert mycelium.read_ragtruth_pp(*files)["id"].tolist() == ["a1", "a2"]
