"""Conversion of every accepted input form into a `SpanBatch`, with precise errors.

Accepted per SPEC sections 2-3: Python sequences of spans (one example) or of span sets
(a batch); spans as ``[s, e]``, ``(s, e)`` or ``{"start": s, "end": e}``; numpy arrays;
Arrow arrays of ``list<struct<start, end>>`` (``large_list``, int32 fields, extra fields,
Parquet's ``element`` child name, lists of pairs); pandas and Polars Series; JSON strings.
Nothing is clipped, dropped or reordered here: bad values raise `SpanValidationError`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import SpanValidationError
from .spans import SpanBatch

_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1


@dataclass(frozen=True)
class Side:
    """One converted side: its spans, which examples were null, and its input form."""

    batch: SpanBatch
    nulls: np.ndarray  # bool per example: the input held a null instead of a span set
    single: bool       # the input was one example rather than a batch


# --------------------------------------------------------------------- dispatch

def convert(obj, side: str) -> Side:
    """Turn ``obj`` (any accepted form) into a `Side`; raise on anything else."""
    if obj is None:
        raise TypeError(f"{side} is None; expected spans of one example (e.g. [[0, 10]]) "
                        "or a batch of span sets (e.g. [[[0, 10]], []]).")
    if isinstance(obj, (str, bytes)):
        raise TypeError(f"{side} is a {type(obj).__name__}; expected a list of spans or a "
                        "batch of span lists. JSON strings are accepted as elements of a "
                        "batch (e.g. ['[[0, 10]]']), or convert with json.loads first.")
    if isinstance(obj, (pa.Array, pa.ChunkedArray)):
        return _batch_side(from_arrow(obj, side))
    module = type(obj).__module__
    if module.startswith("polars"):
        return _batch_side(from_arrow(obj.to_arrow(), side))
    if module.startswith("pandas"):
        return _from_pandas(obj, side)
    if isinstance(obj, np.ndarray):
        return _from_numpy(obj, side)
    if isinstance(obj, Mapping) or not isinstance(obj, Sequence):
        raise TypeError(f"{side} is a {type(obj).__name__}; expected a list of spans "
                        "[[start, end], ...] for one example, a list of such lists for a "
                        "batch, or a pyarrow/pandas/Polars column of span lists.")
    return _from_sequence(obj, side)


def _batch_side(pair: tuple[SpanBatch, np.ndarray]) -> Side:
    return Side(pair[0], pair[1], False)


def _from_pandas(obj, side: str) -> Side:
    import pandas as pd

    if isinstance(obj, pd.DataFrame):
        raise TypeError(f"{side} is a DataFrame; pass one column (df['spans']) or use "
                        "df.mycelium.evaluate(ref_col, pred_col).")
    if isinstance(obj, pd.Index):
        obj = pd.Series(obj)
    if isinstance(obj.dtype, pd.ArrowDtype):
        return _batch_side(from_arrow(pa.array(obj.array), side))
    return _batch_side(from_python(obj.tolist(), side))


def _from_numpy(arr: np.ndarray, side: str) -> Side:
    if arr.dtype != object and arr.ndim == 2 and arr.shape[1] == 2:
        return Side(from_python([arr.tolist()], side)[0], np.zeros(1, bool), True)
    if arr.dtype != object and arr.ndim == 3 and arr.shape[2] == 2:
        return _batch_side(from_python(arr.tolist(), side))
    if arr.dtype == object and arr.ndim == 1:
        return _from_sequence(list(arr), side)
    if arr.size == 0 and arr.ndim == 1:
        return Side(SpanBatch.empty(1), np.zeros(1, bool), True)
    raise TypeError(f"{side} is a numpy array of shape {arr.shape} and dtype {arr.dtype}; "
                    "expected shape (n, 2) for one example's spans or (batch, n, 2).")


def _from_sequence(obj: Sequence, side: str) -> Side:
    if _is_batch(obj):
        return _batch_side(from_python(obj, side))
    batch, nulls = from_python([obj], side, single=True)
    return Side(batch, nulls, True)


def _is_batch(obj: Sequence) -> bool:
    """A sequence of span sets (batch) rather than a sequence of spans (one example).

    Decided by the first element: a span is a mapping or a sequence whose first item is
    a scalar; an empty inner sequence is always an empty span set (SPEC section 3).
    """
    if len(obj) == 0:
        return False
    first = obj[0]
    if isinstance(first, Mapping):
        return False
    if first is None or isinstance(first, (str, bytes)) or _is_null(first):
        return True
    if isinstance(first, np.ndarray):
        return first.ndim == 2 or first.size == 0 or first.dtype == object
    if isinstance(first, Sequence):
        if len(first) == 0:
            return True
        inner = first[0]
        return isinstance(inner, (Mapping, Sequence, np.ndarray)) and not isinstance(
            inner, (str, bytes))
    return False


def _is_null(x) -> bool:
    if x is None:
        return True
    if isinstance(x, float) and math.isnan(x):
        return True
    return type(x).__name__ in ("NAType", "NaTType")


# ------------------------------------------------------------------ Python path

def from_python(examples, side: str, *, single: bool = False) -> tuple[SpanBatch, np.ndarray]:
    """Convert a sequence of span sets (Python objects) into a raw `SpanBatch`.

    Well-formed lists take Arrow's C converter (several times faster than a Python
    loop); anything it cannot type, or any bad value, goes through the checked Python
    loop, whose errors name the side, example and span precisely.
    """
    fast = _via_arrow(examples, side)
    if fast is not None:
        return fast
    return _checked_loop(examples, side, single)


def _via_arrow(examples, side: str):
    try:
        arr = pa.array(examples)
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return None
    t = arr.type
    if not pa.types.is_list(t):
        return None
    child = t.value_type
    ok = (pa.types.is_struct(child)
          or (pa.types.is_list(child) and (pa.types.is_integer(child.value_type)
                                           or pa.types.is_floating(child.value_type))))
    if not ok:
        return None
    try:
        return from_arrow(arr, side)
    except (SpanValidationError, TypeError):
        return None  # let the checked loop report it in the user's terms


def _checked_loop(examples, side: str, single: bool) -> tuple[SpanBatch, np.ndarray]:
    starts: list[int] = []
    ends: list[int] = []
    counts = np.zeros(len(examples), dtype=np.int64)
    nulls = np.zeros(len(examples), dtype=bool)
    for k, spans in enumerate(examples):
        if isinstance(spans, (str, bytes)):
            spans = _parse_json(spans, side, k)
        if spans is None or _is_null(spans):
            nulls[k] = True
            continue
        if isinstance(spans, np.ndarray):
            spans = list(spans) if spans.dtype == object else spans.tolist()
        if isinstance(spans, Mapping) or not isinstance(spans, Sequence):
            raise SpanValidationError(
                f"{side} example {k}: expected a span set (a list of [start, end] pairs), "
                f"got {_show(spans)}. Wrap a single span in a list: [[start, end]].",
                side=side, example=k)
        for j, span in enumerate(spans):
            s, e = _span_pair(span, side, k, j, single)
            starts.append(s)
            ends.append(e)
        counts[k] = len(spans)
    offsets = np.zeros(len(examples) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return SpanBatch(offsets, np.array(starts, dtype=np.int64),
                     np.array(ends, dtype=np.int64)), nulls


def _parse_json(text, side: str, k: int):
    try:
        return json.loads(text)
    except (ValueError, TypeError) as exc:
        raise SpanValidationError(
            f"{side} example {k}: could not parse the JSON string {_show(text)} as a span "
            f"list ({exc}); expected e.g. '[[0, 10], [12, 15]]' or "
            "'[{\"start\": 0, \"end\": 10}]'.", side=side, example=k) from None


def _span_pair(span, side: str, k: int, j: int, single: bool) -> tuple[int, int]:
    where = f"{side} example {k}, span {j}"
    if isinstance(span, Mapping):
        if "start" not in span or "end" not in span:
            raise SpanValidationError(
                f"{where}: expected a mapping with 'start' and 'end' keys, got keys "
                f"{sorted(map(str, span))}.", side=side, example=k, span=j)
        pair = (span["start"], span["end"])
    elif isinstance(span, (Sequence, np.ndarray)) and not isinstance(span, (str, bytes)):
        if len(span) != 2:
            raise SpanValidationError(
                f"{where}: expected a pair [start, end], got {len(span)} values "
                f"{_show(span)}.", side=side, example=k, span=j)
        pair = (span[0], span[1])
    else:
        hint = (" A single example is a list of spans: wrap it, e.g. [[0, 10]]."
                if single else "")
        raise SpanValidationError(
            f"{where}: expected a span [start, end] or {{'start': s, 'end': e}}, got "
            f"{_show(span)}.{hint}", side=side, example=k, span=j)
    return (_offset(pair[0], "start", where, side, k, j),
            _offset(pair[1], "end", where, side, k, j))


def _offset(v, name: str, where: str, side: str, k: int, j: int) -> int:
    if isinstance(v, (bool, np.bool_)):
        problem = "a bool"
    elif isinstance(v, (int, np.integer)):
        v = int(v)
        if _I64_MIN <= v <= _I64_MAX:
            return v
        problem = "beyond the int64 range"
    elif isinstance(v, (float, np.floating)):
        if math.isnan(v):
            problem = "NaN"
        elif not math.isfinite(v) or v != int(v):
            problem = "not an integral number"
        else:
            return _offset(int(v), name, where, side, k, j)
    else:
        problem = f"of type {type(v).__name__}"
    raise SpanValidationError(
        f"{where}: {name} {_show(v)} is {problem}; expected an integer character offset "
        "(integral floats such as 3.0 are accepted).", side=side, example=k, span=j)


def _show(x) -> str:
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


# ------------------------------------------------------------------- Arrow path

def from_arrow(arr, side: str) -> tuple[SpanBatch, np.ndarray]:
    """Convert an Arrow list column of spans into a raw `SpanBatch` (zero-copy reads)."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    t = arr.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return from_python(arr.to_pylist(), side)
    if not (pa.types.is_list(t) or pa.types.is_large_list(t)
            or pa.types.is_fixed_size_list(t)):
        raise TypeError(f"{side} is an Arrow array of type {t}; expected "
                        "list<struct<start: int64, end: int64>> (mycelium.SPAN_TYPE).")
    nulls = arr.is_null().to_numpy(zero_copy_only=False)
    counts = pc.fill_null(pc.list_value_length(arr), 0).to_numpy(zero_copy_only=False)
    counts = counts.astype(np.int64)
    child = arr.flatten()
    offsets = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    starts, ends = _child_pairs(child, side, offsets)
    return SpanBatch(offsets, starts, ends), nulls


def _child_pairs(child, side: str, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = child.type
    if pa.types.is_struct(t):
        names = [t.field(i).name for i in range(t.num_fields)]
        if "start" not in names or "end" not in names:
            raise TypeError(f"{side}: span structs have fields {names}; expected fields "
                            "'start' and 'end'.")
        _no_null_items(child, side, offsets, "span")
        return (_int_column(child.field("start"), side, offsets, "start"),
                _int_column(child.field("end"), side, offsets, "end"))
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        _no_null_items(child, side, offsets, "span")
        lengths = pc.list_value_length(child).to_numpy(zero_copy_only=False)
        if (lengths != 2).any():
            i = int(np.flatnonzero(lengths != 2)[0])
            _fail(side, offsets, i, f"expected a pair [start, end], got {lengths[i]} values")
        flat = _int_column(child.flatten(), side, offsets, "offset", stride=2)
        return flat[0::2].copy(), flat[1::2].copy()
    raise TypeError(f"{side}: span list items have Arrow type {t}; expected "
                    "struct<start: int64, end: int64> or a [start, end] pair.")


def _no_null_items(child, side, offsets, what):
    if child.null_count:
        i = int(np.flatnonzero(child.is_null().to_numpy(zero_copy_only=False))[0])
        _fail(side, offsets, i, f"the {what} is null; expected [start, end]")


def _int_column(col, side: str, offsets: np.ndarray, name: str,
                stride: int = 1) -> np.ndarray:
    """int64 values of an Arrow column (``stride`` values per span: ``[start, end]``
    pairs, flattened), with errors naming the example, span and field."""
    def fail(i: int, what: str):
        field = name if stride == 1 else ("start", "end")[i % 2]
        _fail(side, offsets, i // stride, f"{field} {what}")

    if col.null_count:
        fail(int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0]),
             "is null; expected an integer offset")
    t = col.type
    if pa.types.is_integer(t):
        if pa.types.is_uint64(t) and len(col) and pc.max(col).as_py() > _I64_MAX:
            i = int(np.flatnonzero(col.to_numpy() > _I64_MAX)[0])
            fail(i, f"{col[i].as_py()} is beyond the int64 range; expected an offset "
                 f"below 2**63 (the column is uint64)")
        return col.cast(pa.int64()).to_numpy(zero_copy_only=False)
    if pa.types.is_floating(t):
        values = col.to_numpy(zero_copy_only=False).astype(np.float64)
        bad = ~np.isfinite(values) | (values != np.trunc(values)) | (np.abs(values) >= 2.0**63)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            fail(i, f"{float(values[i])!r} is not an integral offset in the int64 range; "
                 "expected an integer character offset (integral floats such as 3.0 are "
                 "accepted)")
        return values.astype(np.int64)
    if len(col):  # bools, strings, ...: the first value is already wrong
        fail(0, f"{_show(col[0].as_py())} is of Arrow type {t}; expected an integer "
             "character offset (cast the span fields to int64)")
    raise TypeError(f"{side}: span field '{name}' has Arrow type {t}; expected an integer.")


def _fail(side: str, offsets: np.ndarray, i: int, what: str):
    k = int(np.searchsorted(offsets, i, side="right") - 1)
    j = i - int(offsets[k])
    raise SpanValidationError(f"{side} example {k}, span {j}: {what}.",
                              side=side, example=k, span=j)


# ------------------------------------------------------------------------ texts

def text_lengths(text, *, single: bool, n_examples: int) -> np.ndarray | None:
    """``len(text)`` in code points per example, -1 where the text is None."""
    if text is None:
        return None
    if single:
        if not isinstance(text, str):
            raise TypeError(f"text is a {type(text).__name__}; for one example pass the "
                            "output text as a str (or None).")
        return np.array([len(text)], dtype=np.int64)
    if isinstance(text, str):
        raise TypeError("text is a str but the spans are a batch; pass one text per "
                        "example (a list of str, or a column).")
    module = type(text).__module__
    if module.startswith("polars"):
        text = text.to_arrow()
    elif module.startswith("pandas") and hasattr(text, "array"):
        text = pa.array(text.array, from_pandas=True) if _arrowish(text) else text.tolist()
    if isinstance(text, pa.ChunkedArray):
        text = text.combine_chunks()
    if isinstance(text, pa.Array):
        if not (pa.types.is_string(text.type) or pa.types.is_large_string(text.type)):
            raise TypeError(f"text is an Arrow array of type {text.type}; expected strings.")
        lengths = pc.fill_null(pc.utf8_length(text), -1).to_numpy(zero_copy_only=False)
    else:
        lengths = np.array([_text_len(t, k) for k, t in enumerate(text)], dtype=np.int64)
    if lengths.size != n_examples:
        raise ValueError(f"text has {lengths.size} entries but the batch has {n_examples} "
                         "examples; pass one text per example.")
    return lengths.astype(np.int64)


def arrow_or_python(col):
    """A pandas / Polars column as an Arrow array (Arrow-backed) or a Python list;
    anything else is returned unchanged."""
    module = type(col).__module__
    if module.startswith("polars"):
        return col.to_arrow()
    if module.startswith("pandas") and hasattr(col, "dtype"):
        import pandas as pd

        return pa.array(col.array) if isinstance(col.dtype, pd.ArrowDtype) else col.tolist()
    return col


def text_values(text, *, single: bool) -> list:
    """The texts themselves (str or None per example), from any accepted text form."""
    if single:
        return [text]
    module = type(text).__module__
    if module.startswith("polars"):
        return text.to_list()
    if isinstance(text, (pa.Array, pa.ChunkedArray)):
        return text.to_pylist()
    if module.startswith("pandas") and hasattr(text, "tolist"):
        return [None if _is_null(t) else t for t in text.tolist()]
    return list(text)


def _arrowish(series) -> bool:
    import pandas as pd

    return isinstance(series.dtype, pd.ArrowDtype)


def _text_len(t, k: int) -> int:
    if isinstance(t, str):
        return len(t)
    if t is None or _is_null(t):
        return -1
    raise TypeError(f"text example {k} is a {type(t).__name__}; expected a str (or None "
                    "when the text is unknown).")


# ---------------------------------------------------------------------- to_spans

def to_spans(obj) -> pa.Array:
    """Convert span lists of any accepted form into a ``pa.Array`` of `SPAN_TYPE`.

    Parameters
    ----------
    obj : batch of span sets
        Lists of pairs or dicts, JSON strings, numpy object arrays, pandas or Polars
        Series, or Arrow arrays (``list``/``large_list``, int32 fields, extra struct
        fields such as RAGTruth's ``label_type``, Parquet's ``element`` child name).
        A single example (a list of spans) gives an array of length one.

    Returns
    -------
    pyarrow.ListArray
        ``list<struct<start: int64, end: int64>>``; spans keep the order given (nothing
        is sorted, merged or dropped); null span lists stay null.

    Raises
    ------
    SpanValidationError
        Malformed spans, negative starts or ``start > end`` (with example and span).

    Examples
    --------
    >>> to_spans([[[0, 4], {"start": 6, "end": 9}], [], None]).to_pylist()
    [[{'start': 0, 'end': 4}, {'start': 6, 'end': 9}], [], None]
    """
    from .spans import SPAN_TYPE, validate

    side = convert(obj, "spans")
    validate(side.batch, "spans", None)
    b = side.batch
    values = pa.StructArray.from_arrays([pa.array(b.starts, pa.int64()),
                                         pa.array(b.ends, pa.int64())], names=["start", "end"])
    offsets = pa.array(b.offsets.astype(np.int32), pa.int32())
    arr = pa.ListArray.from_arrays(offsets, values, type=SPAN_TYPE,
                                   mask=pa.array(side.nulls) if side.nulls.any() else None)
    return arr
