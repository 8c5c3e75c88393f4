"""Arrow result tables as pandas frames, and pandas-side error locations: key columns
keep their dtype and values exactly (an int64 key with nulls becomes ``Int64``, never a
float), and a span error names the row's index label (SPEC section 8)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from ..core.groups import NULLABLE_INTS, key_series
from ..errors import SpanValidationError
from . import engine as frames

__all__ = ["SIGNATURE_ATTR", "key_series", "with_index_label", "with_signature_column"]

#: The ``DataFrame.attrs`` key holding a result's settings signature.
SIGNATURE_ATTR = "mycelium_signature"


def tidy_to_pandas(table: pa.Table, key_dtypes: dict[str, Any] | None = None, *,
               signature_column: bool = False) -> pd.DataFrame:
    """The result frame. Key columns (the names of ``key_dtypes``) keep their values
    exactly: in the given dtype (the input column's), or for a dtype of None in
    Arrow's default, except that integer keys with nulls become ``Int64``, not floats.
    With ``signature_column``, a last column ``signature`` repeats the signature on
    every row (`with_signature_column`)."""
    out = table.to_pandas()
    for name, dtype in (key_dtypes or {}).items():
        column = table.column(name)
        if dtype is None:
            if not (pa.types.is_integer(column.type) and column.null_count):
                continue
            dtype = NULLABLE_INTS[str(column.type)]
        out[name] = key_series(column, dtype)
    if frames.TYPE_COLUMN in out.columns and table.column(frames.TYPE_COLUMN).null_count:
        # a null type (typed_span's rows over all types, or the "no type" group) is None,
        # as in the dict face, and the types keep their values (no NaN, no float ints)
        out[frames.TYPE_COLUMN] = pd.Series(table.column(frames.TYPE_COLUMN).to_pylist(),
                                            index=out.index, dtype=object)
    if "profile" in out.columns:
        out["profile"] = out["profile"].astype(object).where(out["profile"].notna(), None)
    out.attrs[SIGNATURE_ATTR] = frames.signature_of(table)
    return with_signature_column(out) if signature_column else out


def with_signature_column(out: pd.DataFrame) -> pd.DataFrame:
    """``out`` with a last column ``signature`` (its ``attrs`` signature on every row):
    ``attrs`` are lost by ``pd.concat`` of results with different settings, a column is
    not, and `mycelium.parse_signature` reads it back."""
    signature = out.attrs.get(SIGNATURE_ATTR)
    dtype = out["metric"].dtype if "metric" in out.columns else object  # the text dtype
    out[frames.SIGNATURE_COLUMN] = _repeated(signature, out.index, dtype)
    return out


def _repeated(value: str | None, index: pd.Index, dtype: Any) -> pd.Series:
    """``value`` on every row of ``index``, in ``dtype``: built in Arrow for an Arrow
    text dtype (a list of one string per row of a large result took a second)."""
    if value is not None and hasattr(dtype, "__from_arrow__"):
        rows = pa.array(np.zeros(len(index), dtype=np.int64))
        column = pa.chunked_array([pa.array([value], pa.string()).take(rows)])
        try:
            return pd.Series(dtype.__from_arrow__(column), index=index, copy=False)
        except (TypeError, ValueError, pa.ArrowException):
            pass
    return pd.Series([value] * len(index), index=index, dtype=dtype)


def with_index_label(exc: SpanValidationError, index: pd.Index) -> SpanValidationError:
    """``exc`` naming, beside its example position, the row's index label (SPEC 8), unless
    the index is the positions themselves."""
    k = exc.example
    where = f"{exc.side} example {k}"
    if k is None or not 0 <= k < len(index) or where not in str(exc):
        return exc
    if isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1:
        return exc
    label = index[k]
    label = label.item() if hasattr(label, "item") and not isinstance(label, str) else label
    message = str(exc).replace(where, f"{where} (index label {label!r})", 1)
    return SpanValidationError(message, side=exc.side, example=k, span=exc.span)
