"""`read_lettucedetect` on samples written here in LettuceDetect's RAGTruth-derived
format (the layout of the published HaluEval span sets); no third-party data is used."""

from __future__ import annotations

import json

import pytest

import mycelium
from mycelium import SpanValidationError
from mycelium.io import LETTUCEDETECT_LABEL_TYPE

ANSWER = "The fox ran home and ate three apples."
SAMPLES = [
    {"prompt": "Summarize the following text within 150 words:\n\nThe fox slept.",
     "answer": ANSWER,
     "labels": [{"start": 8, "end": 16, "label": "Evident Conflict"},
                {"start": 25, "end": 37, "label": "Evident Baseless Info"}],
     "split": "test", "task_type": "Summary", "dataset": "halueval", "language": "en"},
    {"prompt": "Summarize: A calm day.", "answer": "It was a calm day.", "labels": [],
     "split": "test", "task_type": "Summary", "dataset": "halueval", "language": "en",
     "metadata": {"source_id": 7}},
]


def test_json_array_and_json_lines_read_alike(tmp_path):
    array = tmp_path / "halueval.json"
    array.write_text(json.dumps(SAMPLES, indent=2), encoding="utf-8")
    lines = tmp_path / "halueval.jsonl"
    lines.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES), encoding="utf-8")
    a, b = mycelium.read_lettucedetect(array), mycelium.read_lettucedetect(lines)
    assert a.drop(columns="file").equals(b.drop(columns="file"))
    assert a.columns.tolist() == ["prompt", "answer", "labels", "split", "task_type",
                                  "dataset", "language", "context", "question", "category",
                                  "subcategory", "metadata", "file"]
    assert a["labels"].dtype.pyarrow_dtype == LETTUCEDETECT_LABEL_TYPE
    spans = [(x["start"], x["end"]) for x in a.loc[0, "labels"]]
    assert [ANSWER[s:e] for s, e in spans] == ["ran home", "three apples"]
    assert a["metadata"].isna().tolist() == [True, False]
    assert a.loc[1, "metadata"] == '{"source_id": 7}'
    assert a.attrs["mycelium_dataset"]["name"] == "halueval"


def test_scored_under_ragtruth_with_the_dataset_in_the_signature(tmp_path):
    path = tmp_path / "halueval.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES), encoding="utf-8")
    df = mycelium.read_lettucedetect(path, name="halueval_llm_spans")
    out = df.mycelium.evaluate("labels", "labels", text="answer", profile="ragtruth",
                               metrics=["character"])
    assert out["value"].tolist() == [1.0, 1.0, 1.0]
    assert "|dataset:halueval_llm_spans@sha256:" in out.attrs["mycelium_signature"]


def test_mixed_datasets_get_the_generic_name(tmp_path):
    other = dict(SAMPLES[1], dataset="e2e")
    path = tmp_path / "mixed.jsonl"
    path.write_text(json.dumps(SAMPLES[0]) + "\n" + json.dumps(other) + "\n")
    assert mycelium.read_lettucedetect(path).attrs["mycelium_dataset"]["name"] == \
        "lettucedetect"


def test_malformed_samples_name_file_line_and_field(tmp_path):
    bad = dict(SAMPLES[0], labels=[{"start": 8, "end": 99, "label": "x"}])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([SAMPLES[1], bad], indent=2), encoding="utf-8")
    starts = [i for i, x in enumerate(path.read_text().splitlines()) if x == "  {"]
    line = starts[1] + 1  # the line of the second sample's "{"
    with pytest.raises(SpanValidationError, match=rf"bad\.json:{line}: field 'labels', "
                       r"span 0: end 99 is past the end of the text \(length 38\)"):
        mycelium.read_lettucedetect(path)
    lines = tmp_path / "bad.jsonl"
    lines.write_text(json.dumps(SAMPLES[0]) + "\n" + json.dumps({"labels": []}) + "\n")
    with pytest.raises(ValueError, match=r"bad\.jsonl:2: field 'answer': is missing; expected a string"):
        mycelium.read_lettucedetect(lines)
    nolabels = tmp_path / "nolabels.jsonl"
    nolabels.write_text(json.dumps({"answer": "x"}) + "\n")
    with pytest.raises(ValueError, match=r"nolabels\.jsonl:1: field 'labels': is missing"):
        mycelium.read_lettucedetect(nolabels)
    notobj = tmp_path / "notobj.json"
    notobj.write_text('[\n  {"answer": "a", "labels": []},\n  3\n]')
    with pytest.raises(ValueError, match=r"notobj\.json:3: expected a sample object, got "
                       r"int 3"):
        mycelium.read_lettucedetect(notobj)
    broken = tmp_path / "broken.json"
    broken.write_text('[\n  {"answer": "a", "labels": []}\n  {"answer": "b"}\n]')
    with pytest.raises(ValueError, match=r"broken\.json:3: expected ',' or '\]'"):
        mycelium.read_lettucedetect(broken)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        mycelium.read_lettucedetect(tmp_path / "none.json")
