"""`read_mushroom`: the real Mu-SHROOM files (from MYCELIUM_MUSHROOM_DIR) and bad records."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import mycelium
from mycelium import SPAN_TYPE, SpanValidationError
from mycelium.io import ANNOTATIONS_TYPE, SOFT_SPAN_TYPE
from mycelium.io.float_parse import pandas_fast_float

VAL_LANGS = ["ar", "de", "en", "es", "fi", "fr", "hi", "it", "sv", "zh"]
# Records per labeled test file (notes/mushroom_scorer.md, section 4).
TEST_COUNTS = {"ar": 150, "ca": 100, "cs": 100, "de": 150, "en": 154, "es": 152, "eu": 99,
               "fa": 100, "fi": 150, "fr": 150, "hi": 150, "it": 150, "sv": 147, "zh": 150}
FILES = (
    [(f"splits/val/v1/mushroom.{lang}-val.v1.jsonl", 50, "val", "v1") for lang in VAL_LANGS]
    + [(f"splits/val/v2/mushroom.{lang}-val.v2.extra.jsonl", 49 if lang == "sv" else 50,
        "val", "v2") for lang in VAL_LANGS]
    + [(f"splits/test_labeled/v1/mushroom.{lang}-tst.v1.extra.jsonl", n, "test", "v1")
       for lang, n in TEST_COUNTS.items()]
)
IDS = [Path(f[0]).name for f in FILES]


def _json_records(path: Path, parse_float=None) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line, parse_float=parse_float) for line in fh if line.strip()]


def _soft(records) -> list:
    return [[{"start": x["start"], "end": x["end"], "prob": x["prob"]}
             for x in r["soft_labels"]] for r in records]


# ------------------------------------------------------------------ real files

@pytest.mark.parametrize("relpath, count, split, version", FILES, ids=IDS)
def test_real_file(mushroom_dir, relpath, count, split, version):
    path = mushroom_dir / relpath
    df = mycelium.read_mushroom(path)
    records = _json_records(path)
    assert len(df) == count == len(records)
    assert df["id"].tolist() == [r["id"] for r in records]
    assert df["model_output_text"].tolist() == [r["model_output_text"] for r in records]
    assert df["hard_labels"].tolist() == [
        [{"start": s, "end": e} for s, e in r["hard_labels"]] for r in records]
    # file order (the official Cor lets later spans overwrite earlier ones); numbers as
    # the official reader reads them, bit for bit pandas.read_json's, or exactly
    assert df["soft_labels"].tolist() == _soft(_json_records(path, pandas_fast_float))
    official = pd.read_json(path, lines=True)
    assert [[s["prob"] for s in row] for row in df["soft_labels"]] == \
        [[s["prob"] for s in row] for row in official["soft_labels"]]
    exact = mycelium.read_mushroom(path, float_parse="exact")
    assert exact["soft_labels"].tolist() == _soft(records)
    assert set(df["file"]) == {path.name}
    assert set(df["split"]) == {split} and set(df["version"]) == {version}
    lang = path.name.split(".")[1].split("-")[0].upper()
    assert set(df["lang"]) == {lang}
    has_annotations = "annotations" in df.columns
    assert has_annotations == (version == "v2" or split == "test")
    if has_annotations:
        assert df["annotations"].tolist() == [
            [{"annotator": a, "spans": [{"start": s, "end": e} for s, e in spans]}
             for a, spans in r["annotations"].items()] for r in records]
    report = mycelium.evaluate(df["hard_labels"], df["hard_labels"],
                               text=df["model_output_text"], profile="mu_shroom",
                               metrics="iou")
    assert report["iou"]["score"] == 1.0 and report["meta"]["examples"] == count


def test_dtypes(mushroom_dir):
    df = mycelium.read_mushroom(mushroom_dir / FILES[10][0])  # ar val v2
    assert list(df.columns) == [
        "id", "lang", "model_id", "model_input", "model_output_text", "hard_labels",
        "soft_labels", "annotations", "wikipedia_url", "file", "split", "version"]
    assert df["hard_labels"].dtype == pd.ArrowDtype(SPAN_TYPE)
    assert df["soft_labels"].dtype == pd.ArrowDtype(SOFT_SPAN_TYPE)
    assert df["annotations"].dtype == pd.ArrowDtype(ANNOTATIONS_TYPE)
    assert pd.api.types.is_string_dtype(df["id"]) and isinstance(df.index, pd.RangeIndex)
    v1 = mycelium.read_mushroom(mushroom_dir / FILES[0][0])
    assert "annotations" not in v1.columns and "wikipedia_url" not in v1.columns


def test_whole_directory(mushroom_dir):
    df = mycelium.read_mushroom(mushroom_dir)
    assert len(df) == 2901  # 500 val v1 + 499 val v2 + 1,902 test
    counts = df.groupby(["split", "version"]).size().to_dict()
    assert counts == {("test", "v1"): 1902, ("val", "v1"): 500, ("val", "v2"): 499}
    files = list(dict.fromkeys(df["file"]))
    assert files == [Path(p).name for p in sorted(f[0] for f in FILES)]  # sorted by path
    assert df["annotations"].isna().sum() == 500  # only the val v1 rows lack them
    by_lang = df[df["split"] == "test"].groupby("lang").size().to_dict()
    assert by_lang == {k.upper(): v for k, v in TEST_COUNTS.items()}


def test_several_files_in_given_order(mushroom_dir):
    a, b = mushroom_dir / FILES[1][0], mushroom_dir / FILES[0][0]
    df = mycelium.read_mushroom([a, b])
    assert list(dict.fromkeys(df["file"])) == [a.name, b.name] and len(df) == 100


def test_raw_annotations_kept_as_given(mushroom_dir):
    """Zero-length spans and a span past the text stay (the loader neither clips nor drops)."""
    df = mycelium.read_mushroom(mushroom_dir / "splits/val/v2/mushroom.en-val.v2.extra.jsonl")
    row = df[df["id"] == "val-en-34"].iloc[0]
    spans = {a["annotator"]: a["spans"] for a in row["annotations"]}
    assert len(row["model_output_text"]) == 372
    assert {"start": 301, "end": 373} in spans["annotator_1fbf607dd218221a"]
    zero = sum(s["start"] == s["end"] for anns in df["annotations"] for a in anns
               for s in a["spans"])
    assert zero == 16


def test_keep_extra(mushroom_dir):
    path = mushroom_dir / "splits/test_labeled/v1/mushroom.ca-tst.v1.extra.jsonl"
    df = mycelium.read_mushroom(path, keep_extra=True)
    records = _json_records(path)
    # Quirk of the official Catalan test file: tokens and logits are list literals in
    # strings; they are parsed into lists like every other file's.
    assert isinstance(records[0]["model_output_tokens"], str)
    assert df["model_output_tokens"].dtype == pd.ArrowDtype(pa.list_(pa.string()))
    assert df["model_output_logits"].dtype == pd.ArrowDtype(pa.list_(pa.float64()))
    assert df["model_output_tokens"][0][:2] == ["K", "asp"]
    assert df["model_output_logits"][0][:2] == [16.018232345581055, 19.1270694732666]
    # A string holding a list literal is not JSON numbers: read exactly (pandas keeps the
    # string); JSON lists of numbers follow float_parse.
    other = mycelium.read_mushroom(mushroom_dir / FILES[10][0], keep_extra=True)
    assert other["model_output_logits"].tolist() == [r["model_output_logits"] for r in
                                                     _json_records(mushroom_dir / FILES[10][0],
                                                                   pandas_fast_float)]
    assert "model_output_tokens" not in mycelium.read_mushroom(path).columns


# --------------------------------------------------------------- written records

def _record(**changes) -> dict:
    base = {"id": "val-xx-1", "lang": "XX", "model_input": "Q?", "model_id": "m",
            "model_output_text": "Paris is in Italy.", "hard_labels": [[12, 17]],
            "soft_labels": [{"start": 12, "prob": 0.5000000000000001, "end": 17}]}
    base.update(changes)
    return {k: v for k, v in base.items() if v is not ...}


def _write(tmp_path, *lines, name="mushroom.xx-val.v1.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(line if isinstance(line, str) else json.dumps(line) + "\n"
                            for line in lines), encoding="utf-8")
    return path


def test_float_parse_and_blank_lines(tmp_path):
    path = _write(tmp_path, _record(), "\n", _record(id="val-xx-2",
                  soft_labels=[{"start": 0, "end": 5, "prob": 0.3}]))
    df = mycelium.read_mushroom(path, float_parse="exact")
    assert df["soft_labels"][0][0]["prob"] == 0.5000000000000001
    assert df["soft_labels"][1][0]["prob"] == 0.3
    assert df["id"].tolist() == ["val-xx-1", "val-xx-2"]
    # by default as pandas.read_json (the official reader) reads them
    df = mycelium.read_mushroom(path)
    assert df["soft_labels"][0][0]["prob"] == 0.5
    assert df["soft_labels"][1][0]["prob"] == 0.30000000000000004
    assert df.attrs["mycelium_dataset"]["float_parse"] == "pandas-fast"


def test_prediction_style_records(tmp_path):
    """Participant files may carry only an id and one label field: the other is null."""
    path = _write(tmp_path, {"id": "a", "hard_labels": [[0, 3]]},
                  {"id": "b", "soft_labels": []}, name="preds.jsonl")
    df = mycelium.read_mushroom(path)
    assert df["hard_labels"].isna().tolist() == [False, True]
    assert df["soft_labels"].isna().tolist() == [True, False]
    assert df["model_output_text"].isna().all()
    assert df["split"].isna().all() and df["version"].isna().all()


def test_annotations_zero_overlap_past_text(tmp_path):
    raw = {"a1": [[3, 3], [0, 5], [2, 7]], "a2": [], "a3": [[10, 99]]}
    df = mycelium.read_mushroom(_write(tmp_path, _record(annotations=raw)))
    assert [(a["annotator"], [(s["start"], s["end"]) for s in a["spans"]])
            for a in df["annotations"][0]] == [
        ("a1", [(3, 3), (0, 5), (2, 7)]), ("a2", []), ("a3", [(10, 99)])]


def test_directory_without_files(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"No \*\.jsonl"):
        mycelium.read_mushroom(tmp_path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        mycelium.read_mushroom(tmp_path / "missing.jsonl")


BAD = [
    ("{not json\n", ValueError, r":2: not valid JSON"),
    ("[1, 2]\n", ValueError, r":2: expected a JSON object"),
    (_record(id=...), ValueError, r":2: field 'id': is missing"),
    (_record(hard_labels=..., soft_labels=...), ValueError, r":2: field 'hard_labels': missing"),
    (_record(hard_labels=[[12, 19]]), SpanValidationError,
     r":2: field 'hard_labels', span 0: end 19 is past the end of the text \(length 18\)"),
    (_record(hard_labels=[[0, 2], [5, 3]]), SpanValidationError,
     r":2: field 'hard_labels', span 1: \[5, 3\) is not a span"),
    (_record(hard_labels=[[0.5, 2]]), SpanValidationError,
     r":2: field 'hard_labels', span 0: start 0.5 is not an integral number"),
    (_record(hard_labels=[[0, 2, 3]]), SpanValidationError,
     r":2: field 'hard_labels', span 0: expected a span \[start, end\]"),
    (_record(hard_labels="[[0, 2]]"), SpanValidationError,
     r":2: field 'hard_labels': expected a list of spans"),
    (_record(soft_labels=[{"start": 0, "end": 2, "prob": 1.5}]), SpanValidationError,
     r":2: field 'soft_labels', span 0: prob 1.5 is not a probability"),
    (_record(soft_labels=[[0, 2]]), SpanValidationError,
     r":2: field 'soft_labels', span 0: expected \{'start', 'end', 'prob'\}"),
    (_record(model_output_text=3), ValueError, r":2: field 'model_output_text': expected a "),
    (_record(annotations=[[0, 1]]), ValueError, r":2: field 'annotations': expected an object"),
    (_record(annotations={"a1": [[0, "x"]]}), SpanValidationError,
     r":2: field 'annotations.a1', span 0: end 'x' is of type str"),
]


@pytest.mark.parametrize("line, error, message", BAD, ids=[b[2] for b in BAD])
def test_malformed_record_names_file_line_field(tmp_path, line, error, message):
    path = _write(tmp_path, _record(id="ok"), line)
    with pytest.raises(error, match=message) as info:
        mycelium.read_mushroom(path)
    assert str(info.value).startswith(str(path) + ":2: ")


def test_span_error_is_a_value_error(tmp_path):
    path = _write(tmp_path, _record(hard_labels=[[-1, 2]]))
    with pytest.raises(ValueError, match=r"mushroom\.xx-val\.v1\.jsonl:1: field 'hard_labels'"):
        mycelium.read_mushroom(path)
