"""`read_ragtruth` on records written here in the published RAGTruth format.

No RAGTruth data is used: the responses are our own text, laid out like the README
sample (id "1472", a label [219, 229) whose text is "Gaza Strip").
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import mycelium
from mycelium import SpanValidationError
from mycelium.io import RAGTRUTH_LABEL_TYPE

PREFIX = ("According to the passages, the aid convoy left the border crossing early on "
          "Monday after two days of delays. Officials said the trucks carried flour, "
          "medicine and oil, and that a second convoy would go on Friday to the ")
RESPONSE = PREFIX + "Gaza Strip, where the shelters are full."
SAMPLE = {
    "id": "1472", "source_id": "15592", "model": "gpt-4-0613", "temperature": 0.7,
    "labels": [{"start": 219, "end": 229, "text": "Gaza Strip",
                "meta": "HIGH INTRO OF NEW INFO\nThe passages name no destination.",
                "label_type": "Evident Baseless Info"}],
    "split": "test", "quality": "good", "response": RESPONSE,
}
SECOND = {
    "id": "1473", "source_id": "15593", "model": "llama-2-7b-chat", "temperature": 1,
    "labels": [{"start": 4, "end": 10, "text": "museum", "meta": "",
                "label_type": "Subtle Conflict", "implicit_true": True,
                "due_to_null": False},
               {"start": 4, "end": 10, "text": "museum", "meta": "",
                "label_type": "Evident Conflict", "implicit_true": False,
                "due_to_null": True}],
    "split": "train", "quality": "truncated", "response": "The museum opened in",
}
EMPTY = {"id": "1474", "source_id": "15592", "model": "mistral-7B-instruct",
         "temperature": 0.7, "labels": [], "split": "test", "quality": "incorrect_refusal",
         "response": "I cannot answer from the context."}
SOURCES = [
    {"source_id": "15592", "task_type": "QA", "source": "MARCO",
     "source_info": {"question": "Where will the convoy go?", "passages": "..."},
     "prompt": "Answer the question."},
    {"source_id": "15593", "task_type": "Summary", "source": "CNN/DM",
     "source_info": "An article.", "prompt": "Summarize."},
]


def _write(path: Path, *records) -> Path:
    path.write_text("".join(r if isinstance(r, str) else json.dumps(r) + "\n"
                            for r in records), encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path):
    return (_write(tmp_path / "response.jsonl", SAMPLE, SECOND, EMPTY),
            _write(tmp_path / "source_info.jsonl", *SOURCES))


def test_offsets_are_exclusive_in_the_sample():
    assert len(PREFIX) == 219
    assert RESPONSE[219:229] == "Gaza Strip"
    assert RESPONSE[219:230] == "Gaza Strip,"  # the inclusive reading would be wrong


def test_columns_and_values(files):
    df = mycelium.read_ragtruth(files[0])
    assert list(df.columns) == ["id", "source_id", "model", "temperature", "split",
                                "quality", "response", "labels"]
    assert df["id"].tolist() == ["1472", "1473", "1474"]
    assert df["temperature"].dtype == "float64" and df["temperature"].tolist() == [0.7, 1.0,
                                                                                 0.7]
    assert df["labels"].dtype == pd.ArrowDtype(RAGTRUTH_LABEL_TYPE)
    first = df["labels"][0][0]
    assert first == {"start": 219, "end": 229, "label_type": "Evident Baseless Info",
                     "implicit_true": False, "due_to_null": False, "text": "Gaza Strip",
                     "meta": SAMPLE["labels"][0]["meta"]}
    assert df["response"][0][first["start"]:first["end"]] == first["text"]
    # duplicate spans with different types are kept, in file order
    assert [(x["label_type"], x["implicit_true"], x["due_to_null"])
            for x in df["labels"][1]] == [("Subtle Conflict", True, False),
                                         ("Evident Conflict", False, True)]
    assert df["labels"][2] == [] and df["quality"].tolist() == [
        "good", "truncated", "incorrect_refusal"]
    assert isinstance(df.index, pd.RangeIndex)


def test_join_with_source_info(files):
    df = mycelium.read_ragtruth(*files)
    assert list(df.columns)[-2:] == ["task_type", "source"]
    assert df["task_type"].tolist() == ["QA", "Summary", "QA"]
    assert df["source"].tolist() == ["MARCO", "CNN/DM", "MARCO"]


def test_unknown_source_id_gets_null_task_type(tmp_path, files):
    responses = _write(tmp_path / "r.jsonl", dict(SAMPLE, source_id="999"), SECOND)
    df = mycelium.read_ragtruth(responses, files[1])
    assert df["task_type"].isna().tolist() == [True, False]
    assert len(df) == 2  # nothing dropped


def test_missing_optional_fields(tmp_path):
    minimal = {"id": 7, "labels": [{"start": 0, "end": 3}], "response": "abc def"}
    df = mycelium.read_ragtruth(_write(tmp_path / "r.jsonl", minimal))
    assert df["id"].tolist() == ["7"]  # an integer id is kept as its string
    for column in ("source_id", "model", "split", "quality"):
        assert df[column].isna().all(), column
    assert df["temperature"].isna().all()
    assert df["labels"][0] == [{"start": 0, "end": 3, "label_type": None,
                                "implicit_true": False, "due_to_null": False,
                                "text": None, "meta": None}]


def test_labels_evaluate_directly(files):
    """The typed labels column is a span column for evaluate and the accessor."""
    df = mycelium.read_ragtruth(*files)
    df["pred"] = [[[219, 235]], [], [[0, 6]]]
    report = mycelium.evaluate(df["labels"], df["pred"], text=df["response"],
                               profile="ragtruth", metrics="character")
    # micro over responses: tp 10, pred 16 + 6 chars, gold 10 + 6 (duplicates merge)
    assert report["character"]["precision"] == 10 / 22
    assert report["character"]["recall"] == 10 / 16
    tidy = df.mycelium.evaluate("labels", "pred", text="response", by="task_type",
                                profile="ragtruth", metrics="character")
    qa = tidy[(tidy["task_type"] == "QA") & (tidy["measure"] == "recall")]
    assert qa["value"].tolist() == [1.0] and qa["examples"].tolist() == [2]
    summary = tidy[(tidy["task_type"] == "Summary") & (tidy["measure"] == "precision")]
    assert summary["value"].tolist() == [0.0]
    self_score = mycelium.evaluate(df["labels"], df["labels"], metrics="iou")
    assert self_score["iou"]["score"] == 1.0


def _bad_label(**label):
    return dict(SAMPLE, labels=[{"start": 219, "end": 229, **label}])


BAD = [
    ("{oops\n", ValueError, r":2: not valid JSON"),
    (dict(SAMPLE, labels=[{"start": "219", "end": 229}]), SpanValidationError,
     r":2: field 'labels', span 0: start '219' is of type str"),
    (dict(SAMPLE, labels=[{"start": 219, "end": 260}]), SpanValidationError,
     r":2: field 'labels', span 0: end 260 is past the end of the text \(length 259\)"),
    (dict(SAMPLE, labels=[{"start": 219}]), SpanValidationError,
     r":2: field 'labels', span 0: expected keys 'start' and 'end'"),
    (dict(SAMPLE, labels=[[219, 229]]), SpanValidationError,
     r":2: field 'labels', span 0: expected a label object"),
    (_bad_label(implicit_true="yes"), ValueError,
     r":2: field 'labels', span 0: expected true or false"),
    (_bad_label(label_type=3), ValueError, r":2: field 'labels', span 0: label_type 3"),
    ({k: v for k, v in SAMPLE.items() if k != "labels"}, ValueError,
     r":2: field 'labels': is missing"),
    ({k: v for k, v in SAMPLE.items() if k != "response"}, ValueError,
     r":2: field 'response': is missing"),
    (dict(SAMPLE, temperature="hot"), ValueError, r":2: field 'temperature': expected a num"),
    (dict(SAMPLE, id=None), ValueError, r":2: field 'id': is null"),
]


@pytest.mark.parametrize("line, error, message", BAD, ids=[b[2] for b in BAD])
def test_malformed_line_names_file_line_field(tmp_path, line, error, message):
    path = _write(tmp_path / "response.jsonl", SECOND, line)
    with pytest.raises(error, match=message) as info:
        mycelium.read_ragtruth(path)
    assert str(info.value).startswith(f"{path}:2: ")


def test_bad_source_info(tmp_path, files):
    dup = _write(tmp_path / "s.jsonl", SOURCES[0], SOURCES[1], SOURCES[0])
    with pytest.raises(ValueError, match=r"s\.jsonl:3: field 'source_id': '15592' already "
                                         r"appeared on line 1"):
        mycelium.read_ragtruth(files[0], dup)
    with pytest.raises(FileNotFoundError, match="source_info"):
        mycelium.read_ragtruth(files[0], tmp_path / "nope.jsonl")
    with pytest.raises(FileNotFoundError, match="response.jsonl"):
        mycelium.read_ragtruth(tmp_path / "nope.jsonl")
