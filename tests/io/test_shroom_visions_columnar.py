"""The columnar reading of SHROOM-Visions files (``pyarrow.json``, checked by columns)
against the reading by `json`, record by record: the same side, bit for bit, or no
columnar side at all (then the file is read by `json`, which names what is wrong)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mycelium.io import shroom_visions as sv
from tests._data_dirs import SHROOM_VISIONS_ENV, data_folder

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "data" / "shroom_visions"
DATA, _ = data_folder(SHROOM_VISIONS_ENV)


def _by_json(data: bytes, role: str, names=None):
    try:
        return sv._json_side(data, Path("f.jsonl"), role=role, names=names,
                             ignore_case=False)
    except sv.VisionsInputError as err:
        return err


def _same(fast: sv.VisionsSide, slow: sv.VisionsSide) -> None:
    assert fast.ids == slow.ids
    assert [type(i) for i in fast.ids] == [type(i) for i in slow.ids]
    assert fast.lines == slow.lines
    assert fast.names == slow.names
    for key in ("offsets", "starts", "ends", "labels"):
        np.testing.assert_array_equal(getattr(fast, key), getattr(slow, key))
    # bit for bit, -0.0 included
    assert getattr(fast, "probs").view(np.int64).tolist() == slow.probs.view(np.int64).tolist()
    if slow.texts is not None:
        assert fast.text_lengths.tolist() == [len(t) for t in slow.texts]
    if slow.raw_annots is None:
        assert fast.annotated is None
    else:
        assert fast.annotated.tolist() == [sum(v != "|" for v in r.values()) > len(r) / 2
                                           for r in slow.raw_annots]


def _check(data: bytes, role: str, *, fast: bool, names=None) -> None:
    """The columnar side equals the one `json` reads (``fast``), or there is none."""
    slow = _by_json(data, role, None if names is None else list(names))
    side = sv._arrow_side(data, role=role, names=None if names is None else list(names))
    if not fast:
        assert side is None
        return
    assert side is not None and not isinstance(slow, Exception)
    _same(side, slow)


def _lines(*records, sep="\n") -> bytes:
    return sep.join(json.dumps(r, ensure_ascii=False) for r in records).encode() + b"\n"


GOLD = {"id": "a", "response": "Two red buses. ☃😀", "labels": [
    {"start": 0, "end": 3, "prob": 1, "label": "miscounting"},
    {"start": 2, "end": 9, "prob": 0.3333333333, "label": "mischaracterization"}]}
PRED = {"id": "a", "labels": [{"start": 0, "end": 3, "prob": 0.8, "label": "OCR"},
                              {"start": 5, "end": 2, "prob": -0.0, "label": "other"}]}


def test_example_files_read_alike():
    for name, role in (("gold.jsonl", "reference"), ("pred_good.jsonl", "prediction")):
        path = EXAMPLE / name
        if path.exists():
            _check(path.read_bytes(), role, fast=True)


def test_plain_files_are_read_by_columns():
    _check(_lines(GOLD, {**GOLD, "id": "b", "labels": []}), "reference", fast=True)
    _check(_lines(PRED, {"id": "b", "labels": []}), "prediction", fast=True)
    # white space: blank lines, CRLF, lines led by spaces, no final newline, a BOM
    _check(b"\n  \n" + _lines(PRED, {"id": "b", "labels": []}, sep="\r\n\n ") + b"\n\t\n",
           "prediction", fast=True)
    _check(b"\xef\xbb\xbf" + _lines(PRED)[:-1], "prediction", fast=True)
    # integer-looking ids become ints, on each side by itself; integer ids too
    _check(_lines({**PRED, "id": "007"}, {**PRED, "id": "-3"}), "prediction", fast=True)
    _check(_lines({**PRED, "id": 7}, {**PRED, "id": 8}), "prediction", fast=True)
    # no span at all; extra fields of any kind; gold labels outside the five, numbered
    # in order of first appearance after the names already known
    _check(_lines({"id": "a", "labels": []}), "prediction", fast=True)
    _check(_lines({**PRED, "meta": {"x": [1, 2.5, None]}, "n": 1e300}), "prediction",
           fast=True)
    odd = {**GOLD, "labels": GOLD["labels"] + [
        {"start": 1, "end": 2, "prob": 0.5, "label": "zeta"},
        {"start": 1, "end": 2, "prob": 0.5, "label": "alpha", "note": "x"}]}
    _check(_lines(odd, {**odd, "id": "b"}), "reference", fast=True)
    _check(_lines(odd), "reference", fast=True, names=["invention", "mischaracterization",
                                                       "OCR", "miscounting", "other",
                                                       "alpha"])
    # raw_annots on every line, with the same string-valued keys (or none at all)
    _check(_lines({**GOLD, "raw_annots": {"a1": "|", "a2": "x", "a3": "y|z"}},
                  {**GOLD, "id": "b", "raw_annots": {"a1": "|", "a2": "|", "a3": "w"}}),
           "reference", fast=True)
    _check(_lines({**GOLD, "raw_annots": {}}), "reference", fast=True)
    # numbers pandas' fast parser reads differently, and exponents
    probs = ["0.30000000000000004", "0.8812335261248792", "1e-5", "2.5E+0", "0.1"]
    text = "\n".join('{"id": %d, "labels": [{"start": 0, "end": 1, "prob": %s, "label": '
                     '"OCR"}]}' % (k, p) for k, p in enumerate(probs))
    _check(text.encode(), "prediction", fast=True)


@pytest.mark.parametrize("data, role", [
    (b'{"id": "a", "labels": [], "x": Inf}\n', "prediction"),  # arrow reads Inf; json no
    (b'{"id": "a", "labels": [], "x": NaN}\n', "prediction"),  # json reads NaN, as null?
    (b'{"id": "a", "labels": []} {"id": "b", "labels": []}\n', "prediction"),  # 2 on a line
    (b'{"id": "a", "id": "b", "labels": []}\n', "prediction"),  # a repeated key
    (b'{"id": "a", "labels": [{"start": 0, "end": 1, "prob": 1, "label": "OCR"}]}\n',
     "prediction"),  # an int prob
    (b'{"id": "a", "labels": [{"start": 0, "end": 1.0, "prob": 0.5, "label": "OCR"}]}\n',
     "prediction"),  # a float offset
    (b'{"id": "a", "labels": [{"start": 0, "end": 1, "prob": 0.5, "label": "ocr"}]}\n',
     "prediction"),  # outside the closed set
    (b'{"id": "a", "labels": [{"start": 0, "end": 1, "prob": 0.5}]}\n', "prediction"),
    (b'{"id": "a", "labels": [null]}\n', "prediction"),
    (b'{"id": "a", "labels": ""}\n', "prediction"),  # the kit reads it as no spans
    (b'{"id": "a"}\n{"id": "b", "labels": []}\n', "prediction"),
    (b'{"id": "a", "labels": []}\n{"id": 1, "labels": []}\n', "prediction"),
    (b'{"id": true, "labels": []}\n', "prediction"),
    (b'{"id": "a", "labels": [{"start": 0, "end": 1, "prob": 0.5, "label": "OCR"}], '
     b'"raw": {"prob": 0.5}}\n', "prediction"),  # a "prob" key outside the spans
    (b'{"id": "a", "response": "x", "labels": [], "raw_annots": {"a": "|"}}\n'
     b'{"id": "b", "response": "x", "labels": []}\n', "reference"),
    (b'{"id": "a", "response": "x", "labels": [], "raw_annots": {"a": "|"}}\n'
     b'{"id": "b", "response": "x", "labels": [], "raw_annots": {"b": "|"}}\n', "reference"),
    (b'{"id": "a", "labels": []}\n', "reference"),  # no response
    (b'{"id": "a", "response": 3, "labels": []}\n', "reference"),
    (b'{"id": "a", "response": "x\\ud800", "labels": []}\n', "reference"),  # lone surrogate
    (b'', "prediction"),
    (b'[1]\n', "prediction"),
])
def test_anything_else_is_left_to_json(data, role):
    _check(data, role, fast=False)


_SPAN = st.fixed_dictionaries({
    "start": st.integers(0, 12), "end": st.integers(0, 12),
    "prob": st.one_of(st.floats(0, 1), st.sampled_from([0.0, -0.0, 1 / 3, 0.1 + 0.2])),
    "label": st.sampled_from(sv.VISIONS_LABELS)})


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=3), st.lists(_SPAN, max_size=4),
                          st.text("ab☃😀", max_size=12)), min_size=1, max_size=5),
       st.booleans())
def test_random_files_read_alike(items, gold):
    records = []
    for k, (tag, spans, text) in enumerate(items):
        record = {"id": f"{tag}{k}", "labels": spans}
        if gold:
            record["response"] = text
        records.append(record)
    _check(_lines(*records), "reference" if gold else "prediction", fast=True)


@pytest.mark.skipif(DATA is None, reason="MYCELIUM_SHROOM_VISIONS_DIR is not set")
def test_real_files_read_alike():
    read = 0
    for path in sorted(DATA.rglob("*.jsonl")):
        role = "reference" if "gold" in path.parent.name else "prediction"
        data = path.read_bytes()
        side = sv._arrow_side(data, role=role, names=None)
        slow = _by_json(data, role)
        if isinstance(slow, Exception):
            assert side is None, path
            continue
        assert side is not None, path
        _same(side, slow)
        read += 1
    assert read == 55  # 8 gold files, 47 predictions the kit scores
