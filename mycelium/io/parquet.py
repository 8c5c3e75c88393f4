"""Parquet files that every reader opens: span columns, result signatures, pandas and Polars.

pandas writes the dtype of an ``ArrowDtype`` column into the file's ``pandas`` metadata
as a string (``"list<item: struct<start: int64, end: int64>>[pyarrow]"``) that its own
default reader cannot parse back, so ``pd.read_parquet`` crashes on nested Arrow
columns. `write_parquet` writes the same data and metadata with those entries marked
``object`` (what the default reader makes of any list column anyway) and records
mycelium's own facts under two keys of the schema metadata:

- ``b"mycelium"``: JSON ``{"format": 1, "span_columns": [...], "arrow_columns": [...],
  "object_text_columns": [...]}``; span columns are the ``list<struct<start, end, ...>>``
  columns (integer ``start`` and ``end``), listed for other tools; arrow columns are the
  pandas ``ArrowDtype`` columns, which `read_parquet` restores as such (span columns it
  recognises by type); object text columns are pandas ``object`` columns of strings and
  None (a result's ``type`` and ``profile``), which pandas 3 would read back as ``str``
  with NaN, and which `read_parquet` restores as ``object`` with None.
- ``b"mycelium.signature"``: the settings signature of a result frame (the key
  `mycelium.frames.engine` uses on Arrow result tables).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any, Literal, Union

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..core.inputs import to_spans
from ..core.spans import SPAN_TYPE
from ..errors import SpanValidationError
from ..frames.engine import SIGNATURE_KEY
from ..frames.to_pandas import SIGNATURE_ATTR

if TYPE_CHECKING:
    import polars

__all__ = ["read_parquet", "write_parquet", "METADATA_KEY"]

#: A file name, path or open binary file (what pyarrow.parquet reads and writes).
PathOrFile = Union[str, os.PathLike[str], IO[bytes]]

METADATA_KEY = b"mycelium"
FORMAT = 1


def write_parquet(df: pd.DataFrame | pa.Table | polars.DataFrame, path: PathOrFile, *,
                  index: bool | None = None, signature: str | None = None,
                  **kwargs: Any) -> None:
    """Write a frame to Parquet so that every reader can open it.

    Parameters
    ----------
    df : pandas.DataFrame, polars.DataFrame or pyarrow.Table
        Span columns may be ``pd.ArrowDtype(SPAN_TYPE)`` (or any ``list<struct<start,
        end, ...>>``), object columns of lists of ``{"start", "end"}`` dicts, or Polars
        ``List(Struct)`` columns.
    path : str, path or writable binary file
        Destination.
    index : bool, optional
        As in ``DataFrame.to_parquet``: None stores a ``RangeIndex`` as metadata only and
        any other index as columns; True always stores it; False drops it.
    signature : str, optional
        Result signature to record; by default ``df.attrs["mycelium_signature"]`` (pandas
        result frames) or the ``b"mycelium.signature"`` metadata (Arrow result tables).
    **kwargs
        Passed to ``pyarrow.parquet.write_table`` (``compression``, ``row_group_size``...).

    Raises
    ------
    TypeError
        ``df`` is not a pandas DataFrame, a Polars DataFrame or an Arrow table (a
        LazyFrame must be collected first), or its ``attrs`` are not JSON-serialisable.

    Notes
    -----
    The file reads back without error with ``pd.read_parquet(path)`` (span columns as
    object columns of arrays of dicts, ``attrs`` restored), with
    ``pd.read_parquet(path, dtype_backend="pyarrow")``, with ``pl.read_parquet(path)``
    (``List(Struct)``), and with `read_parquet`, which restores the original dtypes.
    ``df.attrs`` must be JSON-serialisable (pandas' own rule); they are stored as pandas
    stores them, so plain ``pd.read_parquet`` restores them too. A Polars frame has no
    ``attrs``: pass ``signature=`` to record one. Polars' own ``DataFrame.write_parquet``
    also writes files every reader opens (it writes no pandas metadata), and
    `read_parquet` recognises their span columns by type; use this function with Polars
    only to record a signature.

    Examples
    --------
    >>> import os, tempfile, pandas as pd, mycelium
    >>> spans = pd.Series([[{"start": 0, "end": 4}], [], None],
    ...                   dtype=pd.ArrowDtype(mycelium.SPAN_TYPE))
    >>> df = pd.DataFrame({"id": ["a", "b", "c"], "ref": spans})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "spans.parquet")
    ...     mycelium.write_parquet(df, path)
    ...     plain = pd.read_parquet(path)
    ...     back = mycelium.read_parquet(path)
    >>> plain["ref"].dtype, back["ref"].dtype == df["ref"].dtype
    (dtype('O'), True)
    >>> back.equals(df)
    True
    """
    if isinstance(df, pd.DataFrame):
        table = _from_pandas(df, index)
        sig = df.attrs.get(SIGNATURE_ATTR)
    elif isinstance(df, pa.Table):
        table = df
        sig = (df.schema.metadata or {}).get(SIGNATURE_KEY)
        sig = sig.decode() if sig is not None else None
    elif type(df).__module__.startswith("polars") and hasattr(df, "to_arrow"):
        table = df.to_arrow()
        sig = None
    else:
        hint = " Collect a LazyFrame first (.collect())." if "Lazy" in type(df).__name__ else ""
        raise TypeError(f"df is a {type(df).__name__}; expected a pandas DataFrame, a Polars "
                        f"DataFrame or a pyarrow Table.{hint}")
    if signature is not None:
        sig = signature
    pq.write_table(_with_metadata(table, sig, _arrow_columns(df, table),
                                  _object_text_columns(df, table)), path, **kwargs)


def _from_pandas(df: pd.DataFrame, index) -> pa.Table:
    attrs = None
    if df.attrs:
        try:
            attrs = json.dumps(df.attrs)
        except TypeError as exc:
            raise TypeError(f"df.attrs cannot be stored in Parquet ({exc}); keep only "
                            "JSON-serialisable values in attrs.") from None
    table = pa.Table.from_pandas(df, preserve_index=index)
    for name in df.columns:
        # Arrow's pandas conversion turns NaN into null; NaN is a value here (an
        # undefined measure), so float columns keep it.
        if isinstance(name, str) and df[name].dtype.kind == "f" and df[name].isna().any():
            i = table.schema.get_field_index(name)
            if i >= 0:
                table = table.set_column(i, table.field(i), pa.array(
                    df[name].to_numpy(), type=table.field(i).type, from_pandas=False))
    meta = dict(table.schema.metadata or {})
    if attrs is not None:
        # As DataFrame.to_parquet does: pandas' reader restores attrs from this key.
        meta[b"PANDAS_ATTRS"] = attrs.encode()
    return table.replace_schema_metadata(meta)


def _readable_by_pandas(numpy_type) -> bool:
    if not isinstance(numpy_type, str) or not numpy_type.endswith("[pyarrow]"):
        return True
    try:
        pd.api.types.pandas_dtype(numpy_type)
    except TypeError:
        return False
    return True


def _arrow_columns(df, table: pa.Table) -> list[str]:
    """Field names of the pandas ``ArrowDtype`` data columns (data fields come first)."""
    if not isinstance(df, pd.DataFrame):
        return []
    return [table.field(i).name for i, dtype in enumerate(df.dtypes)
            if isinstance(dtype, pd.ArrowDtype)]


def _object_text_columns(df, table: pa.Table) -> list[str]:
    """Field names of the pandas ``object`` data columns stored as Arrow strings."""
    if not isinstance(df, pd.DataFrame):
        return []
    return [table.field(i).name for i, dtype in enumerate(df.dtypes)
            if dtype == object and pa.types.is_string(table.field(i).type)]


def _with_metadata(table: pa.Table, signature, arrow_columns: list[str],
                   object_text_columns: list[str]) -> pa.Table:
    meta = dict(table.schema.metadata or {})
    if b"pandas" in meta:
        pandas_meta = json.loads(meta[b"pandas"])
        for entry in pandas_meta.get("columns", []):
            if not _readable_by_pandas(entry.get("numpy_type")):
                entry["numpy_type"] = "object"  # read back as pandas reads any list column
        meta[b"pandas"] = json.dumps(pandas_meta).encode()
    meta[METADATA_KEY] = json.dumps({
        "format": FORMAT,
        "span_columns": [f.name for f in table.schema if is_span_type(f.type)],
        "arrow_columns": arrow_columns,
        "object_text_columns": object_text_columns,
    }).encode()
    if signature is not None:
        meta[SIGNATURE_KEY] = str(signature).encode()
    else:
        meta.pop(SIGNATURE_KEY, None)
    return table.replace_schema_metadata(meta)


def is_span_type(t: pa.DataType) -> bool:
    """A list (any kind) of structs with integer ``start`` and ``end`` fields."""
    if not (pa.types.is_list(t) or pa.types.is_large_list(t)):
        return False
    item = t.value_type
    if not pa.types.is_struct(item):
        return False
    names = {item.field(i).name: item.field(i).type for i in range(item.num_fields)}
    return all(k in names and pa.types.is_integer(names[k]) for k in ("start", "end"))


def read_parquet(path: PathOrFile, *,
                 dtype_backend: Literal["numpy_nullable", "pyarrow"] | None = None,
                 spans: str | Sequence[str] | None = None,
                 **kwargs: Any) -> pd.DataFrame:
    """Read a Parquet file into pandas, restoring mycelium's span columns and signature.

    Parameters
    ----------
    path : str, path or readable binary file
        A file written by `write_parquet`, pandas or Polars.
    dtype_backend : {None, "numpy_nullable", "pyarrow"}
        As in ``pd.read_parquet``, for the columns mycelium does not restore.
    spans : str or list of str, optional
        Columns to read as ``pd.ArrowDtype(SPAN_TYPE)`` whatever their stored type:
        lists of ``[start, end]`` pairs, of ``{"start", "end"}`` dicts, or JSON strings,
        converted by `mycelium.to_spans` (a column of pairs is not recognised as spans by
        its type alone, since token offsets are stored the same way). A null cell stays
        null; an invalid span is a `SpanValidationError` naming the column.
    **kwargs
        Passed to ``pyarrow.parquet.read_table`` (``columns``, ``filters``,
        ``filesystem``...).

    Returns
    -------
    pandas.DataFrame
        Columns as ``pd.read_parquet`` reads them, except that span columns (any
        ``list<struct>`` with integer ``start`` and ``end``, whoever wrote the file)
        become ``pd.ArrowDtype``: exactly ``SPAN_TYPE`` when their structs hold only
        ``start`` and ``end``, their own struct type otherwise (list items named
        ``item``); the other ``ArrowDtype`` columns recorded by `write_parquet` get
        their dtype back, and so do the ``object`` text columns it recorded (strings and
        None, such as a result's ``type``), unless ``dtype_backend`` is given.
        ``attrs`` are restored, including ``attrs["mycelium_signature"]`` of result
        frames.

    Raises
    ------
    ValueError
        An unknown ``dtype_backend``.
    mycelium.SpanValidationError
        A span offset that does not fit int64 (a uint64 column), naming the column and row.

    Examples
    --------
    >>> import os, tempfile, pandas as pd, mycelium
    >>> df = pd.DataFrame({"ref": [[[0, 10]], [[4, 7]]], "pred": [[[2, 8]], []]})
    >>> result = df.mycelium.evaluate("ref", "pred", metrics="iou")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "result.parquet")
    ...     mycelium.write_parquet(result, path)
    ...     back = mycelium.read_parquet(path)
    >>> back.attrs["mycelium_signature"] == result.attrs["mycelium_signature"]
    True
    >>> back.equals(result)
    True

    Spans stored as ``[start, end]`` pairs are typed when named:

    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "pairs.parquet")
    ...     mycelium.write_parquet(df, path)
    ...     pairs = mycelium.read_parquet(path, spans=["ref", "pred"])
    >>> pairs["ref"].dtype == pd.ArrowDtype(mycelium.SPAN_TYPE)
    True
    >>> pairs["ref"].tolist()
    [[{'start': 0, 'end': 10}], [{'start': 4, 'end': 7}]]
    """
    if dtype_backend not in (None, "numpy_nullable", "pyarrow"):
        raise ValueError(f"dtype_backend={dtype_backend!r}; expected None, "
                         "'numpy_nullable' or 'pyarrow'.")
    kwargs.setdefault("use_pandas_metadata", True)
    table = pq.read_table(path, **kwargs)
    df = table.to_pandas(types_mapper=_types_mapper(dtype_backend))
    meta = table.schema.metadata or {}
    _restore_columns(df, table, meta, texts=dtype_backend is None)
    if b"PANDAS_ATTRS" in meta:
        df.attrs = json.loads(meta[b"PANDAS_ATTRS"])
    if SIGNATURE_KEY in meta:
        df.attrs[SIGNATURE_ATTR] = meta[SIGNATURE_KEY].decode()
    for name in [spans] if isinstance(spans, str) else (spans or ()):
        if name not in table.column_names:
            raise KeyError(f"spans={name!r} is not a column of the file; expected one of "
                           f"{table.column_names}.")
        try:
            typed = to_spans(table.column(name))
        except SpanValidationError as exc:
            message = str(exc).replace("spans example", f"span column {name!r} (spans=), row", 1)
            raise SpanValidationError(message, side=exc.side,
                                      example=exc.example, span=exc.span) from None
        df[name] = pd.Series(typed, index=df.index, dtype=pd.ArrowDtype(SPAN_TYPE), name=name)
    return df


def _types_mapper(dtype_backend):
    if dtype_backend == "pyarrow":
        return pd.ArrowDtype
    if dtype_backend == "numpy_nullable":
        mapping = {pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(),
                   pa.int32(): pd.Int32Dtype(), pa.int64(): pd.Int64Dtype(),
                   pa.uint8(): pd.UInt8Dtype(), pa.uint16(): pd.UInt16Dtype(),
                   pa.uint32(): pd.UInt32Dtype(), pa.uint64(): pd.UInt64Dtype(),
                   pa.bool_(): pd.BooleanDtype(), pa.float32(): pd.Float32Dtype(),
                   pa.float64(): pd.Float64Dtype(), pa.string(): pd.StringDtype(),
                   pa.large_string(): pd.StringDtype()}
        return mapping.get
    return None


def _restore_columns(df: pd.DataFrame, table: pa.Table, meta: dict, *, texts: bool) -> None:
    """Replace, by position, span columns, recorded ``ArrowDtype`` columns and recorded
    ``object`` text columns (strings and None, as written) unless ``texts`` is false (a
    ``dtype_backend`` was asked for)."""
    recorded = json.loads(meta[METADATA_KEY]) if METADATA_KEY in meta else {}
    wanted = set(recorded.get("arrow_columns", []))
    wanted.update(f.name for f in table.schema if is_span_type(f.type))
    text_names = set(recorded.get("object_text_columns", [])) if texts else set()
    for position, name in enumerate(_data_fields(table, meta)):
        if position >= df.shape[1]:
            continue
        if name in wanted:
            column = _restored(table.column(name), name)
            df.isetitem(position, pd.arrays.ArrowExtensionArray(column))
        elif name in text_names and df.dtypes.iloc[position] != object:
            df.isetitem(position, pd.Series(table.column(name).to_pylist(),
                                            index=df.index, dtype=object))


def _restored(column: pa.ChunkedArray, name: str) -> pa.ChunkedArray:
    """``column`` cast to `restored_type`; a value that does not fit (a uint64 offset
    beyond int64) is a `SpanValidationError` naming the column, row and span."""
    try:
        return column.cast(restored_type(column.type))
    except (pa.ArrowInvalid, OverflowError):
        if not is_span_type(column.type):
            raise
        from ..core.inputs import from_arrow
        from ..errors import SpanValidationError

        side = f"span column {name!r}"
        try:
            from_arrow(column, side)
        except SpanValidationError as exc:
            message = str(exc).replace(f"{side} example {exc.example}",
                                       f"{side}, row {exc.example}", 1)
            raise SpanValidationError(message, side=side, example=exc.example,
                                      span=exc.span) from None
        raise


def _data_fields(table: pa.Table, meta: dict) -> list[str]:
    """Table fields that become data columns (pandas puts stored index fields aside)."""
    index_fields: set[str] = set()
    if b"pandas" in meta:
        for item in json.loads(meta[b"pandas"]).get("index_columns", []):
            if isinstance(item, str):
                index_fields.add(item)
    return [n for n in table.column_names if n not in index_fields]


def restored_type(t: pa.DataType) -> pa.DataType:
    """``SPAN_TYPE`` for plain span lists; otherwise ``t`` with list items named ``item``.

    Parquet names list items ``element`` (and Polars writes ``large_list``); mycelium's
    types use Arrow's default ``item``, so types compare equal after a round trip.
    """
    if is_span_type(t) and {f.name for f in t.value_type} == {"start", "end"}:
        return SPAN_TYPE
    return _item_names(t)


def _item_names(t: pa.DataType) -> pa.DataType:
    if pa.types.is_list(t):
        return pa.list_(_item_names(t.value_type))
    if pa.types.is_large_list(t):
        return pa.large_list(_item_names(t.value_type))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, _item_names(f.type), f.nullable) for f in t])
    return t
