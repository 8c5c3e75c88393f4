"""Group keys of every face: checked once, grouped on their Arrow values.

Every face groups through here — the span path and the score path (``evaluate`` with
scores or a threshold, ``sweep``, ``tune_threshold``) of pandas, Polars eager and lazy,
Spark, the command line and the dict face — so integer keys beyond 2**53 (with or
without nulls), null keys, ``True`` beside ``1`` and ``by`` columns of different types
behave the same everywhere. Keys are grouped on their own Arrow values, never through a
float conversion, and every face orders groups the same way.

The interface, in the order a face uses it:

- `normalize_by` (``by`` → a list of names; names the result would overwrite are refused);
- `key_table` (the key columns — pandas, Polars, Arrow, numpy or lists — as one Arrow
  table, each column's type checked by `check_key_type`); the dict face's ``by`` (a
  sequence, a pandas Series or a dict of them) goes through `by_table`;
- `group_codes` (the table → `Groups`: a group code per row, each group's key, in the one
  order of every face); `Groups.positions` gives each group's rows;
- `key_series` / `pandas_frame` (a result's key columns back to pandas without changing a
  value; `key_dtypes` gives the dict face's dtypes); the Polars faces read the Arrow keys
  as they are.

Nothing here computes a metric: a face scores each group's rows (``Groups.positions``;
the score path, `mycelium.frames.scores`) or reduces per-row statistics by
``Groups.codes`` (the span path), and attaches ``Groups.keys.take(group)`` to its rows.
A face that sums in another engine first (Polars' ``group_by``, Spark's ``GROUP BY``)
groups the engine's partial rows again with `group_codes` on their key columns, which
merges the keys that engine keeps apart (NaN and null) and gives every face's order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..metrics import METRICS

__all__ = ["Groups", "group_codes", "normalize_by", "key_table", "by_table",
           "check_key_type", "result_columns", "key_series", "key_dtypes", "pandas_frame",
           "COMPARISON_COLUMNS"]

#: The columns of a detector comparison (`mycelium.stats.comparison`), in its order.
COMPARISON_COLUMNS = ("detector_a", "detector_b", "metric", "measure", "value_a", "value_b",
                      "difference", "ci_low", "ci_high", "p_value", "p_holm", "test",
                      "n_resamples", "examples", "average", "profile")
#: Columns that faces add to their results besides the measures' own names.
_FIXED_RESULT_COLUMNS = ("metric", "measure", "value", "ci_low", "ci_high", "examples",
                         "average", "profile", "type", "threshold", "signature")
_INTERNAL_PREFIX = "__mycelium"
_KEY_KINDS = ("integers up to 64 bits, floats, decimals, strings, binary, booleans, "
              "dates, times, timestamps, durations or categories of those")


@dataclass(frozen=True)
class Groups:
    """Row → group assignment: ``codes[i]`` indexes the rows of ``keys`` (one per group)."""

    codes: np.ndarray   # int64 per row
    keys: pa.Table      # the distinct key values, in group order (no columns: one group)
    n_groups: int

    def positions(self) -> list[np.ndarray]:
        """The rows of each group (int64 positions, in row order), in group order."""
        order = np.argsort(self.codes, kind="stable")
        bounds = np.searchsorted(self.codes[order], np.arange(self.n_groups + 1))
        return [order[a:b] for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist())]


# ------------------------------------------------------------------ names

def result_columns() -> tuple[str, ...]:
    """Every column a face's result may hold after its keys: the tidy columns,
    intervals, ``type``, ``threshold``, ``signature``, the comparison columns and
    `score`'s ``<metric>_<measure>`` columns."""
    scores = [f"{m}_{k}" for m, spec in METRICS.items() for k in spec.measures]
    return tuple(dict.fromkeys([*_FIXED_RESULT_COLUMNS, *COMPARISON_COLUMNS, *scores,
                                "soft_spearman_score"]))


def normalize_by(by) -> list[str]:
    """``by`` as a list of distinct column names (None → []), none of them a name the
    result would overwrite.

    Raises
    ------
    TypeError
        ``by`` is not a name or a list of names.
    ValueError
        A name is given twice, or clashes with a result column (`result_columns`).
    """
    if by is None:
        return []
    if isinstance(by, str):
        names = [by]
    elif isinstance(by, Sequence):
        names = list(by)
        if not all(isinstance(n, str) for n in names):
            raise TypeError(f"by={by!r}: expected a column name or a list of names.")
    else:
        raise TypeError(f"by is a {type(by).__name__}; expected a column name or a list of "
                        "names.")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"Expected distinct by columns, got {twice[0]!r} more than once in "
                         f"by={names!r}; fix by listing each key column once.")
    reserved = set(result_columns())
    for name in names:
        if name in reserved:
            raise ValueError(
                f"Expected by columns whose names differ from the result's columns, got "
                f"by column {name!r}, which is also the name of a result column (the key "
                f"column would be overwritten); fix by renaming it before grouping, e.g. "
                f"to {name + '_key'!r}. Reserved names: {', '.join(sorted(reserved))}.")
        if name.startswith(_INTERNAL_PREFIX):
            raise ValueError(f"Expected by columns not starting with {_INTERNAL_PREFIX!r} "
                             f"(mycelium's working columns), got {name!r}; fix by renaming "
                             "it before grouping.")
    return names


# ------------------------------------------------------------------ columns

def key_table(columns: Mapping[str, Any]) -> pa.Table:
    """Key columns (pandas or Polars Series, Arrow or numpy arrays, lists) as an Arrow
    table, each checked by `check_key_type`.

    Raises
    ------
    TypeError
        A column mycelium cannot group by, naming the column, its type and a fix.
    """
    return pa.table({name: _key_array(name, col) for name, col in columns.items()})


def _key_array(name: str, col) -> pa.Array | pa.ChunkedArray:
    module = type(col).__module__
    _one_kind(name, col)
    try:
        if isinstance(col, (pa.Array, pa.ChunkedArray)):
            arr = col
        elif module.startswith("polars"):
            arr = col.to_arrow()
        elif module.startswith("pandas"):
            arr = pa.Table.from_pandas(col.to_frame("k"), preserve_index=False).column(0)
        else:
            arr = pa.array(col)
    except (pa.ArrowException, TypeError, ValueError, OverflowError) as exc:
        raise TypeError(_unreadable(name, col, exc)) from None
    check_key_type(name, arr.type, str(col.dtype) if module.startswith("polars") else None)
    return arr


#: Python key values Arrow would read as one type though they are different keys: a bool
#: among numbers becomes 1.0 or 0 (``[1.0, True]`` one group), bytes among strings
#: binary (``[b"a", "a"]`` one group). Numbers of several types are one kind: 1 and 1.0
#: are one key, as in pandas' ``groupby``.
_KINDS = ((bool, "bool"), (np.bool_, "bool"), (bytes, "bytes"), (str, "str"))


def _one_kind(name: str, col) -> None:
    """Refuse a column of Python values (a list, a tuple, an object array or Series)
    that mixes bools with numbers or bytes with strings, as a mix of ints and bools is
    refused (SPEC section 7: keys keep their identity)."""
    values = _sample(col)
    if not values:
        return
    types = set(map(type, values))
    kinds = {next((k for t_, k in _KINDS if issubclass(t, t_)), "other") for t in types}
    if len(kinds) > 1 and kinds & {"bool", "bytes"}:
        names = sorted({"bool" if issubclass(t, np.bool_) else t.__name__ for t in types})
        raise TypeError(f"Expected by column {name!r} to hold values of one type, got a mix "
                        f"of {', '.join(names)}; fix by giving it one type (e.g. every key "
                        "a string) in the frame or file.")


def _unreadable(name: str, col, exc: Exception) -> str:
    dtype = getattr(col, "dtype", None)
    kinds = sorted({type(v).__name__ for v in _sample(col)})
    if len(kinds) > 1:
        return (f"Expected by column {name!r} to hold values of one type, got a mix of "
                f"{', '.join(kinds)}; fix by giving it one type (e.g. every key a "
                f"string) in the frame or file.")
    return (f"Expected by column {name!r} of a type mycelium can group by ({_KEY_KINDS}), "
            f"got {dtype if dtype is not None else type(col).__name__} ({exc}); fix by "
            "casting it, e.g. to Int64 if its values fit or to a string type.")


def _sample(col) -> list:
    """The non-null values of an object column or a list (for naming the types it mixes)."""
    if not isinstance(col, (list, tuple)) and getattr(col, "dtype", None) != object:
        return []
    values = col.tolist() if hasattr(col, "tolist") else list(col)
    return [v for v in values if v is not None and v == v]


def check_key_type(name: str, t: pa.DataType, shown: str | None = None) -> None:
    """Raise TypeError unless mycelium can group by an Arrow type ``t`` (scalars and
    dictionaries of scalars; not lists, structs, maps or unions); ``shown`` is the type
    as the caller's engine names it (default: the Arrow type)."""
    inner = t.value_type if pa.types.is_dictionary(t) else t
    scalar = (pa.types.is_integer(inner) or pa.types.is_floating(inner)
              or pa.types.is_decimal(inner) or pa.types.is_boolean(inner)
              or pa.types.is_string(inner) or pa.types.is_large_string(inner)
              or pa.types.is_binary(inner) or pa.types.is_large_binary(inner)
              or pa.types.is_fixed_size_binary(inner) or pa.types.is_temporal(inner)
              or pa.types.is_null(inner)
              or str(inner) in ("string_view", "binary_view"))
    if scalar:
        return
    nested = (pa.types.is_nested(inner) or pa.types.is_union(inner)) and "nested values"
    raise TypeError(f"Expected by column {name!r} of a type mycelium can group by "
                    f"({_KEY_KINDS}), got {shown or inner}{' (' + nested + ')' if nested else ''}; "
                    "fix by grouping by a column of scalars: turn lists or structs into "
                    "strings (e.g. with .astype(str) in pandas or .cast(pl.String) after "
                    "list.join in Polars) or unnest them into separate key columns.")


# ------------------------------------------------------------------ grouping

def group_codes(keys: pa.Table | None, n_rows: int) -> Groups:
    """Groups of the key columns: sorted by key, nulls last, as their own group.

    The order is deterministic and the same for every face: the rules of pandas'
    ``groupby(sort=True, dropna=False)`` (NaN and null are one group, ``-0.0`` and
    ``0.0`` one key; categories in their category order), decided on the Arrow values
    themselves, so keys keep their identity (an int64 key is never a float here).
    Each group's key is the value of its first row.
    """
    if keys is None or keys.num_columns == 0:
        return Groups(np.zeros(n_rows, dtype=np.int64), pa.table({}), 1)
    if keys.num_rows != n_rows:
        raise ValueError(f"group keys have {keys.num_rows} rows but there are {n_rows} "
                         "examples.")
    for field in keys.schema:
        check_key_type(field.name, field.type)
    codes, size = np.zeros(n_rows, dtype=np.int64), 1
    for column in keys.columns:
        column_codes, column_size = _column_codes(column)
        codes, size = _compact(codes * column_size + column_codes, size * column_size)
    first = np.full(size, -1, dtype=np.int64)
    rows = np.arange(n_rows, dtype=np.int64)
    first[codes[::-1]] = rows[::-1]
    return Groups(codes, keys.take(pa.array(first, pa.int64())), size)


def _column_codes(column: pa.ChunkedArray) -> tuple[np.ndarray, int]:
    """Codes of one key column in sort order (nulls and NaN last), and their count."""
    arr = column.unify_dictionaries().combine_chunks() if pa.types.is_dictionary(
        column.type) else column.combine_chunks()
    n = len(arr)
    if pa.types.is_null(arr.type):
        return np.zeros(n, dtype=np.int64), 1
    if pa.types.is_dictionary(arr.type):
        indices, dictionary = arr.indices, arr.dictionary
        rank = np.arange(len(dictionary) + 1, dtype=np.int64)  # category order
        rank[:-1][dictionary.is_null().to_numpy(zero_copy_only=False)] = len(dictionary)
    else:
        if pa.types.is_floating(arr.type):
            arr = pc.if_else(pc.is_nan(arr), pa.scalar(None, arr.type),
                             pc.add(arr, pa.scalar(0.0, arr.type)))  # -0.0 → 0.0
        encoded = pc.dictionary_encode(arr)
        indices, dictionary = encoded.indices, encoded.dictionary
        order = pc.sort_indices(dictionary).to_numpy(zero_copy_only=False)
        rank = np.empty(len(dictionary) + 1, dtype=np.int64)
        rank[order] = np.arange(len(dictionary), dtype=np.int64)
        rank[-1] = len(dictionary)
    idx = pc.fill_null(indices.cast(pa.int64()), len(dictionary))
    return rank[idx.to_numpy(zero_copy_only=False)], len(dictionary) + 1


def _compact(combined: np.ndarray, size: int) -> tuple[np.ndarray, int]:
    """Renumber codes ``0..size-1`` to the ones present, keeping their order."""
    if combined.size == 0:
        return combined, 0
    if size <= max(4 * combined.size, 1 << 20):
        present = np.bincount(combined, minlength=size) > 0
        new = np.cumsum(present) - 1
        return new[combined], int(present.sum())
    order = np.argsort(combined, kind="stable")
    ordered = combined[order]
    starts = np.ones(ordered.size, dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    out = np.empty(combined.size, dtype=np.int64)
    out[order] = np.cumsum(starts) - 1
    return out, int(starts.sum())


# ------------------------------------------------------------------ the dict face

def by_table(by, n_rows: int) -> pa.Table | None:
    """The dict face's ``by`` as a key table: a sequence is column ``"by"``, a pandas or
    Polars Series keeps its name, a dict gives one column per entry (None → None).

    Raises
    ------
    TypeError, ValueError
        As `normalize_by` and `key_table`; ValueError when a column does not have one
        label per example.
    """
    if by is None:
        return None
    columns = _by_columns(by)
    normalize_by(list(columns))
    for name, values in columns.items():
        if len(values) != n_rows:
            raise ValueError(f"Expected {n_rows} group labels in by[{name!r}] (one per "
                             f"example), got {len(values)}; fix by passing one per example.")
    return key_table(columns)


def _by_columns(by) -> dict[str, Any]:
    if isinstance(by, Mapping):
        if not all(isinstance(k, str) for k in by):
            raise TypeError(f"Expected by's keys to be column names (str), got "
                            f"{[k for k in by if not isinstance(k, str)][0]!r}; fix by "
                            "naming each group column with a string.")
        return {k: _as_column(v) for k, v in by.items()}
    if _is_series(by):
        name = getattr(by, "name", None)
        return {str(name) if name not in (None, "") else "by": by}
    if isinstance(by, (str, bytes)) or not hasattr(by, "__len__"):
        raise TypeError(f"by is a {type(by).__name__}; expected one group label per "
                        "example (a list, a pandas or Polars Series) or a dict of them.")
    return {"by": _as_column(by)}


def _is_series(col) -> bool:
    module = type(col).__module__
    return (module.startswith("pandas") or module.startswith("polars")) and hasattr(
        col, "dtype") and hasattr(col, "name")


def _as_column(values):
    return values if _is_series(values) or isinstance(
        values, (pa.Array, pa.ChunkedArray, np.ndarray)) else list(values)


def key_dtypes(by, keys: pa.Table) -> dict[str, Any]:
    """The pandas dtype each key column of the dict face's ``by`` comes back in (``keys``:
    its `by_table`): a pandas Series' own dtype; for other columns Arrow's default, except
    that integers with nulls come back as Python ints and None (``object``), the values
    as given, never floats."""
    out: dict[str, Any] = {}
    for name, col in _by_columns(by).items():
        t = keys.column(name)
        if type(col).__module__.startswith("pandas"):
            out[name] = col.dtype
        else:
            out[name] = object if pa.types.is_integer(t.type) and t.null_count else None
    return out


# ------------------------------------------------------------------ back to pandas

NULLABLE_INTS = {str(pa.from_numpy_dtype(t.numpy_dtype)): t for t in (
    pd.Int8Dtype(), pd.Int16Dtype(), pd.Int32Dtype(), pd.Int64Dtype(), pd.UInt8Dtype(),
    pd.UInt16Dtype(), pd.UInt32Dtype(), pd.UInt64Dtype())}


def key_series(column: pa.ChunkedArray | pa.Array, dtype: Any) -> pd.Series:
    """An Arrow key column as a pandas column of ``dtype``, values unchanged (an int64
    key is never routed through float64). ``dtype`` None: Arrow's default conversion,
    except that integers with nulls become the nullable ``Int64`` (not floats)."""
    if isinstance(column, pa.Array):
        column = pa.chunked_array([column], column.type)
    if dtype is None:
        if not (pa.types.is_integer(column.type) and column.null_count):
            return column.to_pandas()
        dtype = NULLABLE_INTS[str(column.type)]
    if hasattr(dtype, "__from_arrow__"):
        try:
            return pd.Series(dtype.__from_arrow__(column), copy=False)
        except (TypeError, ValueError, pa.ArrowException):
            pass
    if dtype == object:
        return pd.Series(column.to_pylist(), dtype=object)
    out = column.to_pandas()
    return out if out.dtype == dtype else out.astype(dtype)


def pandas_frame(table: pa.Table, key_dtypes: Mapping[str, Any]) -> pd.DataFrame:
    """A result table as a pandas frame whose key columns (the names of ``key_dtypes``)
    keep their values exactly (`key_series`)."""
    out = table.to_pandas()
    for name, dtype in key_dtypes.items():
        out[name] = key_series(table.column(name), dtype)
    return out
