"""Span lists read by Arrow at a given type (pairs at ``list<list<float64>>``, mappings
at ``list<struct<start, end: float64>>``; no type inference) give exactly what the
inferring read gives, and whatever a typed read cannot vouch for goes the inferring
way: integers past 2**53, Python and numpy bools, 1.5, NaN, sets, missing fields."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mycelium.core import inputs
from mycelium.errors import SpanValidationError

offset = st.one_of(st.integers(0, 100), st.integers(2**52, 2**53 + 8),
                   st.integers(2**60, 2**63 - 1))
pair = st.tuples(offset, offset).map(lambda t: [min(t), max(t)])
mapping = pair.map(lambda p: {"start": p[0], "end": p[1]})
examples = st.one_of(*(st.lists(st.one_of(st.lists(span, max_size=4), st.none()),
                                min_size=1, max_size=8) for span in (pair, mapping)))


def _inferring(batch):
    """The conversion without the typed read: Arrow inferring the type, then the flat
    reader, then the checked loop."""
    read = inputs._arrow_read(batch, "references", None)
    if read is None:
        read = inputs._via_flat(batch)
    return read if read is not None else inputs._checked_loop(batch, "references", False)


@settings(max_examples=300, deadline=None)
@given(examples)
def test_typed_read_equals_the_inferring_read(batch):
    got, nulls = inputs.from_python(batch, "references")
    want, want_nulls = _inferring(batch)
    assert got.offsets.tolist() == want.offsets.tolist()
    assert got.starts.tolist() == want.starts.tolist()
    assert got.ends.tolist() == want.ends.tolist()
    assert nulls.tolist() == want_nulls.tolist()
    assert got.starts.dtype == got.ends.dtype == np.int64


def test_plain_integer_pairs_take_the_typed_read():
    batch = [[[0, 5], [7, 9]], [], [[2**53 - 1, 2**53]]]
    read = inputs._arrow_read(batch, "references", inputs._TYPED[0])
    assert read is not None
    assert read[0].to_lists() == [[(0, 5), (7, 9)], [], [(2**53 - 1, 2**53)]]
    # an integer a float64 cannot hold: Arrow refuses it, the inferring read takes it
    assert inputs._arrow_read([[[0, 2**53 + 1]]], "references", inputs._TYPED[0]) is None
    assert inputs.from_python([[[0, 2**53 + 1]]], "references")[0].ends.tolist() == [
        2**53 + 1]


def test_mappings_take_their_typed_read_and_ignore_other_keys():
    batch = [[{"start": 0, "end": 5, "label": "x"}], [{"end": 9, "start": 7}]]
    read = inputs._arrow_read(batch, "references", inputs._TYPED[1])
    assert read is not None and read[0].to_lists() == [[(0, 5)], [(7, 9)]]
    assert inputs._arrow_read(batch, "references", inputs._TYPED[0]) is None


@pytest.mark.parametrize("span", [[True, 3], [0, False], [np.bool_(True), 3], [1.5, 3],
                                  [float("nan"), 3], {3, 7}, [0, 1, 2],
                                  {"start": True, "end": 3}, {"start": 1.5, "end": 3},
                                  {"start": 0}],
                         ids=["bool", "false", "numpy-bool", "1.5", "nan", "set", "three",
                              "bool-field", "1.5-field", "missing-end"])
def test_what_the_typed_read_cannot_vouch_for_is_refused_by_the_checked_loop(span):
    with pytest.raises(SpanValidationError) as err:
        first = {"start": 0, "end": 2} if isinstance(span, dict) else [0, 2]
        inputs.from_python([[first], [span]], "references")
    assert "example 1" in str(err.value) and "span 0" in str(err.value)
