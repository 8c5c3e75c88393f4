"""``mycelium evaluate`` reads JSON lines with pyarrow.json when it can vouch for the
values; the frame then scores exactly as the line-by-line reader's, and anything else
(bad lines, floats, ragged spans, bad UTF-8) goes to the line-by-line reader."""

import io
import json

import pandas as pd
import pytest

import mycelium
from mycelium.cli.read import _read_jsonl, _read_jsonl_arrow

ROWS = [{"id": 3, "lang": "en", "ref": [[0, 4], [6, 9]], "pred": [{"start": 1, "end": 5}],
         "ok": True, "soft": [{"start": 0, "end": 4, "prob": 1}]},
        {"id": 7, "lang": None, "ref": [], "pred": None, "ok": False,
         "soft": [{"start": 0, "end": 2, "prob": 0.25}]},
        {"id": 9, "ref": [[2, 3]], "pred": [{"start": 2, "end": 3}], "soft": []}]


def _data(rows):
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def test_arrow_frame_scores_as_the_line_reader():
    data = _data(ROWS)
    fast, slow = _read_jsonl_arrow(data), _read_jsonl(io.BytesIO(data), "f.jsonl")
    assert fast is not None and list(fast.columns) == list(slow.columns)
    assert isinstance(fast["ref"].dtype, pd.ArrowDtype)
    for name in ("id", "lang", "ok"):
        pd.testing.assert_series_equal(fast[name], slow[name])
    assert fast["soft"].tolist() == slow["soft"].tolist()
    for frame in (fast, slow):
        frame["pred"] = frame["pred"].where(frame["pred"].notna(), None)
    got = [mycelium.evaluate(f["ref"], f["pred"], metrics=["iou", "character"],
                             missing="empty") for f in (fast, slow)]
    assert got[0] == got[1]


@pytest.mark.parametrize("lines", [
    ['{"ref": [[0, 1]]} {"ref": []}'],             # two objects on a line
    ['{"ref": [[0, 1]], "x": 1.5}'],               # a float (maybe an integer before)
    ['{"ref": [[0, 1]]}', '{"ref": [["a", 1]]}'],  # mixed types in spans
    ['{"ref": [{"start": 0}]}', '{"ref": [{"end": 1}]}'],  # a key missing somewhere
    ['{"ref": [[0, 1]]}', '[1, 2]'],               # not an object
    ['{"ref": [[0, 1]], "t": "a\\u00ff"}', '{"ref": [], "t": 3}'],  # mixed types
])
def test_declined(lines):
    assert _read_jsonl_arrow("\n".join(lines).encode() + b"\n") is None


def test_other_shapes_come_back_as_python_values():
    # Not well-formed span pairs: the values are json's, the span checks then report.
    data = b'{"ref": [[0, 1, 2]], "p": [{"start": 0}]}\n{"ref": [[1, 2]], "p": []}\n'
    fast, slow = _read_jsonl_arrow(data), _read_jsonl(io.BytesIO(data), "f.jsonl")
    assert fast["ref"].tolist() == slow["ref"].tolist() == [[[0, 1, 2]], [[1, 2]]]
    assert fast["p"].tolist() == slow["p"].tolist() == [[{"start": 0}], []]
    assert fast["ref"].dtype == object
