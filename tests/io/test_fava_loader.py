"""`mycelium.read_fava` on small records in FAVA's published format (annotations.json of
the Hugging Face dataset fava-uw/fava-data: a JSON array of {prompt, output, annotated,
model}; JSON lines of the same records)."""

import hashlib
import json

import pytest

import mycelium
from mycelium.io.fava import FAVA_ERROR_TYPES, fava_spans

ANNOTATED = ("Messi is an <entity><mark>Argentine</mark><delete>American</delete></entity> "
             "player. <invented>He owns a moon base.</invented> He is <subjective>the best"
             "</subjective>.")
RECORD = {"prompt": "Tell me about Messi.", "model": "llama-2-70b-chat",
          "output": "Messi is an American player. He owns a moon base. He is the best.",
          "annotated": ANNOTATED}


def _array(tmp_path, records):
    p = tmp_path / "annotations.json"
    p.write_text(json.dumps(records), encoding="utf-8")
    return p


def test_published_array_gives_typed_spans_into_the_original_text(tmp_path):
    df = mycelium.read_fava(_array(tmp_path, [RECORD]))
    text = df.loc[0, "text"]
    assert text == RECORD["output"] and bool(df.loc[0, "text_matches_output"])
    spans = df.loc[0, "labels"]
    assert [(s["type"], text[s["start"]:s["end"]]) for s in spans] == [
        ("entity", "American"), ("invented", "He owns a moon base."),
        ("subjective", "the best")]
    assert [(e["op"], e["start"], e["end"], e["text"]) for e in df.loc[0, "edits"]] == [
        ("insert", 12, 12, "Argentine"), ("delete", 12, 20, "American")]
    r = mycelium.evaluate(df["labels"], df["labels"], text=df["text"], metrics="iou")
    assert r["iou"]["score"] == 1.0


def test_jsonl_reads_the_same_and_output_mismatch_is_flagged(tmp_path):
    p = tmp_path / "annotations.jsonl"
    other = {**RECORD, "output": RECORD["output"] + " "}
    p.write_text(json.dumps(RECORD) + "\n" + json.dumps(other) + "\n", encoding="utf-8")
    df = mycelium.read_fava(p)
    assert df["text_matches_output"].tolist() == [True, False]
    assert df.loc[1, "text"] == RECORD["output"]  # never replaced by output


def test_unlisted_tag_names_stay_in_the_text_unless_given():
    tagged = "<sentence><delete>Cats bark.</delete></sentence> Dogs bark."
    assert fava_spans(tagged)[0] == "<sentence>Cats bark.</sentence> Dogs bark."
    text, spans, _ = fava_spans(tagged, types=FAVA_ERROR_TYPES + ("sentence",))
    assert (text, spans) == ("Cats bark. Dogs bark.", [(0, 10, "sentence")])


def test_marks_inside_a_span_shift_later_offsets():
    text, spans, edits = fava_spans(
        "A <relation><delete>is</delete><mark>was</mark></relation> B "
        "<entity><mark>X</mark></entity>C")
    assert text == "A is B C"
    assert spans == [(2, 4, "relation"), (7, 7, "entity")]
    assert edits == [(2, 4, "delete", "is"), (4, 4, "insert", "was"),
                     (7, 7, "insert", "X")]


@pytest.mark.parametrize("bad, message", [
    ({"output": "x"}, r":2: field 'annotated': is missing; expected a string"),
    ({"annotated": ["x"]}, r":2: field 'annotated': expected a string, got list"),
    ({"annotated": "<entity>a<delete>b</entity></delete>"},
     r":2: field 'annotated': Expected each closing tag to match the open one, got "
     r"</entity> closing <delete>"),
    ({"annotated": "<invented>a"}, r":2: field 'annotated': Expected every tag closed"),
    ({"annotated": "ok", "model": 3}, r":2: field 'model': expected a string, got int"),
    ("not an object", r":2: expected a JSON object per record, got str"),
])
def test_malformed_records_name_file_record_and_field(tmp_path, bad, message):
    path = _array(tmp_path, [RECORD, bad])
    with pytest.raises(ValueError, match=str(path).replace("\\", r"\\") + message):
        mycelium.read_fava(path)


def test_bad_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="expected FAVA's annotations.json"):
        mycelium.read_fava(tmp_path / "annotations.json")
    p = tmp_path / "annotations.json"
    p.write_text('[{"annotated": "a"},\n {"annotated": ]', encoding="utf-8")
    with pytest.raises(ValueError, match=r"annotations.json:2: not valid JSON"):
        mycelium.read_fava(p)
    p.write_text('{"annotated": "a"}\n{"annotated": 1}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"annotations.json:2: field 'annotated'"):
        mycelium.read_fava(p)


def test_the_loaded_file_is_in_the_signature(tmp_path):
    path = _array(tmp_path, [RECORD])
    df = mycelium.read_fava(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    got = mycelium.parse_signature(mycelium.evaluate(
        df["labels"], df["labels"], text=df["text"])["meta"]["signature"])["dataset"]
    assert (got["name"], got["sha256"], got["files"]) == ("fava", digest[:12], [path.name])
