"""``mycelium evaluate`` reads JSON lines with pyarrow.json when it can vouch for the
values; the frame then scores exactly as the line-by-line reader's, and anything else
(bad lines, floats, ragged spans, bad UTF-8) goes to the line-by-line reader."""

import io
import json

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


@pytest.mark.parametrize("data", [b'{"a": 1}\n{"a": 2}\n', b'{"a": 1}\n{"a": 2}',
                                  b'{"a": 1}\n\n{"a": 2}\n', b'{"a": 1}\n \n{"a": 2}',
                                  b'\n{"a": 1}', b'{"a": 1}{"a": 2}\n', b''])
@pytest.mark.parametrize("chunk", [1, 3, 1 << 20])
def test_object_lines_in_a_file_read_in_chunks(tmp_path, data, chunk):
    from mycelium.io.records import object_lines, object_lines_in

    path = tmp_path / "f.jsonl"
    path.write_bytes(data)
    lines = [line for line in data.split(b"\n") if line.strip()]
    assert object_lines_in(path, chunk) == object_lines(data) == len(lines)


def test_file_reader_in_blocks_is_the_bytes_reader(tmp_path):
    from mycelium.cli.read import _read_jsonl_file_arrow

    path = tmp_path / "f.jsonl"
    rows = ROWS * 3000  # several Arrow blocks
    path.write_bytes(_data(rows))
    fast, whole = _read_jsonl_file_arrow(path), _read_jsonl_arrow(path.read_bytes())
    assert fast is not None and list(fast.columns) == list(whole.columns)
    for name in fast.columns:
        assert fast[name].tolist() == whole[name].tolist()
    # A later block that changes a column's type: read whole, or by lines if need be.
    path.write_bytes(_data(rows) + b'{"id": "x", "ref": []}\n')
    assert _read_jsonl_file_arrow(path) is None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"{", b"}", b"a", b" ", b"\t", b"\r", b"\n", b"\n"]),
                max_size=40).map(b"".join), st.integers(1, 8))
def test_object_lines_counts_the_non_blank_lines(tmp_path_factory, data, chunk):
    from mycelium.io.records import object_lines, object_lines_in

    want = sum(1 for line in data.split(b"\n") if line.strip(b" \t\r"))
    path = tmp_path_factory.mktemp("lines") / "f.jsonl"
    path.write_bytes(data)
    assert object_lines(data) == object_lines_in(path, chunk) == want


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"{", b"}", b"a", b" ", b"\t", b"\r", b"\n", b"\n"]),
                max_size=40).map(b"".join), st.integers(1, 8), st.booleans())
def test_line_scan_in_blocks_is_the_whole_scan(data, scan, first):
    """The newline scan compares ``scan`` bytes at a time: a line whose first byte
    lies in the next block is checked all the same."""
    import numpy as np

    from mycelium.io.records import _plain_lines

    raw = np.frombuffer(data, dtype=np.uint8)
    heads = [i + 1 for i, byte in enumerate(data) if byte == 10 and i + 1 < len(data)]
    heads += [0] if first and data else []
    may_be_blank = any(data[i] in b" \t\r\n" for i in heads)
    want = None if may_be_blank else data.count(b"\n")
    assert _plain_lines(raw, first=first, scan=scan) == want
