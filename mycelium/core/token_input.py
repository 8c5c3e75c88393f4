"""Token offsets and scores read as arrays (SPEC section 9), vouched for or refused.

`token_arrays` reads the token form without a per-token Python loop, from any of:
Python lists (one flat pass, `mycelium.core.flat`); per-example numpy arrays (an
``(m, 2)`` integer array of offsets and an ``(m,)`` array of scores per example, or one
``(batch, m, 2)`` / ``(batch, m)`` array); pyarrow arrays or chunked arrays (also
Arrow-backed pandas and Polars columns) of ``list<fixed_size_list<int, 2>>``,
``list<list<int>>`` or ``list<struct<start, end>>`` offsets and ``list<float>`` scores.
When anything is off (a null, a bool, a non-integral offset, a score outside [0, 1],
counts that differ, ...) it returns None and `mycelium.core.scores.score_input` takes
its checked path, which names the first bad token in the same words for every input
form, so the values and the messages do not depend on the form.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import SpanValidationError
from .arrow_sources import arrow_source
from .columns import I64_MAX, child_pairs
from .flat import flat_numbers, flat_pairs

__all__ = ["token_arrays", "arrow_column", "offset_arrays"]


def arrow_column(obj) -> pa.Array | None:
    """``obj`` as one pyarrow Array when it is columnar Arrow data (a pyarrow array or
    chunked array, a Polars Series, an Arrow-backed pandas Series, a ``datasets`` column),
    else None."""
    obj = arrow_source(obj)
    if isinstance(obj, pa.ChunkedArray):
        return obj.combine_chunks() if obj.num_chunks != 1 else obj.chunk(0)
    if isinstance(obj, pa.Array):
        return obj
    module = type(obj).__module__
    if module.startswith("polars") and hasattr(obj, "to_arrow"):
        return arrow_column(obj.to_arrow())
    if module.startswith("pandas"):
        import pandas as pd

        if isinstance(obj, pd.Series) and isinstance(obj.dtype, pd.ArrowDtype):
            return arrow_column(pa.array(obj.array))
    return None


def _arrow_list(arr: pa.Array) -> tuple[np.ndarray, pa.Array] | None:
    """(counts, flattened child) of a list array without nulls, else None."""
    t = arr.type
    if not (pa.types.is_list(t) or pa.types.is_large_list(t)) or arr.null_count:
        return None
    counts = pc.list_value_length(arr).to_numpy(zero_copy_only=False).astype(np.int64)
    return counts, arr.flatten()


def _rows(obj, single: bool):
    """``obj`` as a sequence of per-example rows (or one stacked numpy array)."""
    if single:
        return [obj]
    if isinstance(obj, np.ndarray):
        return list(obj) if obj.dtype == object else obj
    if not isinstance(obj, (list, tuple)) and hasattr(obj, "tolist"):
        return obj.tolist()  # a pandas Series of Python objects
    return obj


def _numpy_rows(rows, ndim: int):
    """The per-example numpy arrays (each ``ndim``-dimensional, or empty) of ``rows``,
    or None when ``rows`` are not numpy arrays."""
    if isinstance(rows, np.ndarray):
        return list(rows) if rows.ndim == ndim + 1 else None
    if not isinstance(rows, (list, tuple)) or not rows or \
            set(map(type, rows)) != {np.ndarray}:
        return None
    return [r for r in rows if r.size]


def _read(obj, single: bool, from_arrow, from_rows):
    """``from_arrow(counts, child)`` of an Arrow list column (None for one with nulls or
    of another type), else ``from_rows`` of its rows: the one dispatch of `_offsets` and
    `_scores`."""
    arr = None if single else arrow_column(obj)
    if arr is not None:
        read = _arrow_list(arr)
        return None if read is None else from_arrow(*read)
    return from_rows(_rows(obj, single))


def _arrow_offsets(counts: np.ndarray, child: pa.Array):
    offsets = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    try:
        starts, ends = child_pairs(child, "token_offsets", offsets)
    except (SpanValidationError, TypeError):
        return None
    return counts, starts.astype(np.int64), ends.astype(np.int64)


def _row_offsets(rows):
    arrays = _numpy_rows(rows, 2)
    if arrays is not None:
        if not all(r.dtype.kind in "iu" and r.ndim == 2 and r.shape[1] == 2
                   for r in arrays):
            return None
        counts = np.fromiter(map(len, rows), np.int64, len(rows))
        pairs = np.concatenate(arrays) if arrays else np.empty((0, 2), np.int64)
        if pairs.dtype.kind == "u" and pairs.size and pairs.max() > I64_MAX:
            return None
        pairs = pairs.astype(np.int64)
        return counts, pairs[:, 0], pairs[:, 1]
    read = flat_pairs(rows, numbers=True)
    if read is None:
        return None
    return read[0], read[1][:, 0], read[1][:, 1]


def _offsets(obj, single: bool):
    """``(counts, starts, ends)`` int64, or None."""
    return _read(obj, single, _arrow_offsets, _row_offsets)


def offset_arrays(obj):
    """``(counts, starts, ends)`` int64 of a batch of token offsets in any form
    `token_arrays` reads, or None when they do not read as integer pairs (nothing about
    the text is checked here)."""
    try:
        return _offsets(obj, False)
    except (TypeError, ValueError, OverflowError):
        return None


def _arrow_scores(counts: np.ndarray, child: pa.Array):
    t = child.type
    if child.null_count or not (pa.types.is_floating(t) or pa.types.is_integer(t)):
        return None
    return counts, child.to_numpy(zero_copy_only=False).astype(np.float64)


def _row_scores(rows):
    arrays = _numpy_rows(rows, 1)
    if arrays is not None:
        if not all(r.dtype.kind in "iuf" and r.ndim == 1 for r in arrays):
            return None
        counts = np.fromiter(map(len, rows), np.int64, len(rows))
        values = np.concatenate(arrays) if arrays else np.empty(0)
        return counts, values.astype(np.float64)
    return flat_numbers(rows)


def _scores(obj, single: bool):
    """``(counts, scores)`` with float64 scores, or None."""
    return _read(obj, single, _arrow_scores, _row_scores)


def token_arrays(token_offsets, token_scores, lengths: np.ndarray, single: bool, *,
                 blank: bool = False):
    """``(example, start, end, score)`` of every non-empty token of a valid batch (every
    token, zero-length ones included, with ``blank=True``), in order, or None when the
    checked path must decide (see the module docstring)."""
    try:
        offs = _offsets(token_offsets, single)
        if offs is None:
            return None
        scs = _scores(token_scores, single)
    except (TypeError, ValueError, OverflowError):
        return None
    if scs is None:
        return None
    counts, st, en = offs
    if counts.size != lengths.size or not np.array_equal(counts, scs[0]):
        return None
    sc = scs[1]
    ex = np.repeat(np.arange(counts.size, dtype=np.int64), counts)
    ok = (st >= 0) & (st <= en) & (en <= lengths[ex]) & np.isfinite(sc) & (sc >= 0) & (sc <= 1)
    if not ok.all():
        return None
    keep = en > st
    if blank or keep.all():
        return ex, st, en, sc
    return ex[keep], st[keep], en[keep], sc[keep]
