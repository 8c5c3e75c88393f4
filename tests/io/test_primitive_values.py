"""`mycelium.io.records.primitive_values` reads Arrow's values buffer as ``to_numpy``
converts the same array: sliced arrays, struct fields of sliced lists, chunked arrays,
empty arrays, and (by falling back) arrays with nulls or of other types."""

import numpy as np
import pyarrow as pa
from hypothesis import given, strategies as st

from mycelium.io.records import primitive_values

TYPES = [pa.int32(), pa.int64(), pa.uint64(), pa.float64()]


def _same(arr):
    got = primitive_values(arr)
    want = (arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr).to_numpy(
        zero_copy_only=False)
    assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True)


@given(st.lists(st.integers(0, 2**31 - 1), max_size=40), st.integers(0, 45),
       st.integers(0, 45), st.sampled_from(TYPES))
def test_slices_read_as_to_numpy(values, a, b, type_):
    arr = pa.array(values, type=type_)
    _same(arr[a:b])
    _same(pa.chunked_array([arr[:a], arr[a:]], type=type_))


@given(st.lists(st.lists(st.tuples(st.integers(0, 99), st.floats(0, 1)), max_size=4),
                max_size=12), st.integers(0, 13), st.integers(0, 13))
def test_fields_of_sliced_lists_read_as_to_numpy(rows, a, b):
    kind = pa.list_(pa.struct([("start", pa.int64()), ("prob", pa.float64())]))
    arr = pa.array([[{"start": s, "prob": p} for s, p in row] for row in rows], type=kind)
    inner = arr[a:b].flatten()
    _same(inner.field("start"))
    _same(inner.field("prob"))


def test_nulls_and_other_types_are_converted_by_arrow():
    _same(pa.array([1, None, 3], type=pa.int64()))
    _same(pa.array([1.5, 2.5], type=pa.float32()))
    assert primitive_values(pa.array([], type=pa.int64())).dtype == np.int64


def test_the_values_are_a_read_only_view():
    arr = pa.array([1, 2, 3], type=pa.int64())
    out = primitive_values(arr)
    assert not out.flags.writeable
