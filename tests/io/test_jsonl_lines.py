"""The benchmark loaders split JSON lines at "\\n" only and name bad bytes by file and
line (shared with the command line: `mycelium.io.records.json_objects`)."""

from __future__ import annotations

import json

import pytest

import mycelium

RECORD = {"id": "1", "source_id": "s", "labels": [{"start": 0, "end": 3}],
          "response": "a\u2028b\u2029c\x85d"}


def test_ragtruth_records_end_at_newline_only(tmp_path):
    path = tmp_path / "response.jsonl"
    # A lone "\r" between tokens is JSON whitespace, not a line end; the separators are
    # legal raw inside a string.
    line = json.dumps(RECORD, ensure_ascii=False).replace(', "response"', ',\r "response"')
    path.write_bytes((line + "\r\n" + line.replace('"1"', '"2"') + "\n").encode("utf-8"))
    df = mycelium.read_ragtruth(path)
    assert df["id"].tolist() == ["1", "2"]
    assert df["response"].tolist() == [RECORD["response"]] * 2


def test_mushroom_loader_names_a_bad_byte(tmp_path):
    path = tmp_path / "mushroom.en-val.v1.jsonl"
    path.write_bytes(b'\n{"id": "val-en-1", "model_output_text": "\xff"}\n')
    with pytest.raises(ValueError) as info:
        mycelium.read_mushroom(path)
    assert str(info.value) == (f"{path}:2: not valid UTF-8 (byte 0xff at byte 42 of the "
                               "line); expected UTF-8 text; fix by saving the file as UTF-8.")
