"""Arrow, pandas and Polars columns: span fields as checked int64 offsets, and texts.

The columnar half of the input conversion (`mycelium.core.inputs` dispatches every
input form and owns the Python-object path): the fields of an Arrow span list column
(``struct<start, end>`` or ``[start, end]`` pairs, any integer width, integral floats)
become int64 arrays, with errors naming the example, span and field; text columns
become code-point lengths per example (`text_lengths`) or the texts themselves
(`text_values`). Nothing is clipped, dropped or reordered here.
"""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import SpanValidationError
from .arrow_sources import arrow_source

__all__ = ["child_pairs", "text_lengths", "text_values", "arrow_or_python", "is_null",
           "zero_batch"]

#: The int64 range: offsets beyond it are refused by every reader.
I64_MIN, I64_MAX = -(2**63), 2**63 - 1


def is_null(x) -> bool:
    """Whether a cell is a null: None, a float NaN, ``pd.NA`` or ``pd.NaT`` (the one test
    of every face and loader; a list or an array is a value, never a null).

    Examples
    --------
    >>> import pandas as pd
    >>> [is_null(v) for v in (None, float("nan"), pd.NA, pd.NaT, 0.0, [float("nan")], "")]
    [True, True, True, True, False, False, False]
    """
    if x is None:
        return True
    if isinstance(x, float) and math.isnan(x):
        return True
    return type(x).__name__ in ("NAType", "NaTType")


def show_value(x) -> str:
    """``repr(x)`` cut to 60 characters: how an error message quotes a bad value."""
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


# ------------------------------------------------------- span fields

def child_pairs(child, side: str, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
        if pa.types.is_uint64(t) and len(col) and pc.max(col).as_py() > I64_MAX:
            i = int(np.flatnonzero(col.to_numpy() > I64_MAX)[0])
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
        fail(0, f"{show_value(col[0].as_py())} is of Arrow type {t}; expected an integer "
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
    text = arrow_source(text)
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
    anything else is returned unchanged (a ``datasets`` column: its Arrow array)."""
    col = arrow_source(col)
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
    text = arrow_source(text)
    module = type(text).__module__
    if module.startswith("polars"):
        return text.to_list()
    if isinstance(text, (pa.Array, pa.ChunkedArray)):
        return text.to_pylist()
    if module.startswith("pandas") and hasattr(text, "tolist"):
        return [None if is_null(t) else t for t in text.tolist()]
    return list(text)


def _arrowish(series) -> bool:
    import pandas as pd

    return isinstance(series.dtype, pd.ArrowDtype)


def _text_len(t, k: int) -> int:
    if isinstance(t, str):
        return len(t)
    if t is None or is_null(t):
        return -1
    raise TypeError(f"text example {k} is a {type(t).__name__}; expected a str (or None "
                    "when the text is unknown).")


def zero_batch(obj, text):
    """``obj``, or an empty span column when ``obj`` is an empty Python sequence and
    ``text`` an empty batch of texts.

    ``[]`` alone is one example without spans (SPEC section 3); beside ``text=[]`` it is
    a batch of zero examples, which scores as a 0-row frame does. The faces call this
    before reading the spans, so every form (spans, scores, sweeps) sees a batch.

    Examples
    --------
    >>> len(zero_batch([], text=[])), zero_batch([], text=None)
    (0, [])
    """
    if not (isinstance(obj, (list, tuple)) and len(obj) == 0):
        return obj
    text = arrow_source(text)
    if text is None or isinstance(text, (str, bytes)) or not hasattr(text, "__len__") \
            or len(text) != 0:
        return obj
    from .spans import SPAN_TYPE

    return pa.array([], type=SPAN_TYPE)
