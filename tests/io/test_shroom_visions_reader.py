"""`read_shroom_visions`: SHROOM-Visions files as a typed frame with their provenance."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from mycelium.io import VISIONS_SPAN_TYPE, read_shroom_visions
from mycelium.io.provenance import file_sha256
from mycelium.io.shroom_visions import VisionsInputError
from tests._data_dirs import SHROOM_VISIONS_ENV, data_folder

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "data" / "shroom_visions"


def test_gold_frame_types_and_provenance():
    df = read_shroom_visions(EXAMPLE / "gold.jsonl")
    assert list(df.columns) == ["id", "response", "language", "labels"]
    assert df["labels"].dtype == pd.ArrowDtype(VISIONS_SPAN_TYPE)
    assert len(df) == 6
    # overlapping gold spans are kept as given, in list order; 1/3 read as pandas does
    assert df["labels"][1][:2] == [
        {"start": 2, "end": 5, "prob": 0.33333333330000003, "label": "mischaracterization"},
        {"start": 2, "end": 10, "prob": 0.33333333330000003, "label": "mischaracterization"}]
    meta = df.attrs["mycelium_dataset"]
    assert meta["sha256"] == file_sha256(EXAMPLE / "gold.jsonl")
    assert meta["float_parse"] == "pandas-fast" and meta["name"] == "shroom_visions"


def test_exact_floats_on_request():
    df = read_shroom_visions(EXAMPLE / "gold.jsonl", float_parse="exact")
    assert df["labels"][1][0]["prob"] == 0.3333333333


def test_prediction_checked_as_the_kit_and_ignore_case(tmp_path):
    path = tmp_path / "pred.jsonl"
    path.write_text(json.dumps({"id": "x", "labels": [
        {"start": 0, "end": 2, "prob": 0.5, "label": "ocr"}]}) + "\n", encoding="utf-8")
    with pytest.raises(VisionsInputError) as err:
        read_shroom_visions(path)
    assert err.value.rule == "label-set" and "line 1: id 'x', labels span 0" in str(err.value)
    df = read_shroom_visions(path, labels_ignore_case=True)
    assert df["labels"][0] == [{"start": 0, "end": 2, "prob": 0.5, "label": "OCR"}]


@pytest.mark.skipif(data_folder(SHROOM_VISIONS_ENV)[0] is None,
                    reason=data_folder(SHROOM_VISIONS_ENV)[1] or "")
def test_real_gold_counts():
    folder = data_folder(SHROOM_VISIONS_ENV)[0]
    counts = {lang: len(read_shroom_visions(
        folder / "gold" / f"shroom-vision.test.{lang}.labeled.jsonl"))
        for lang in ("en", "fr", "it", "zh")}
    assert counts == {"en": 573, "fr": 533, "it": 556, "zh": 619}
