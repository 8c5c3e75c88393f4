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

This is also the one grouping engine of span and score statistics alike: everything
that works group by group lives here, and nothing here computes a metric.

- `group_bounds` is the one sort of rows by group (each group's rows in row order);
  `Groups.positions` gives each group's rows from it;
- `group_sums` adds up per-row columns per group exactly (integers as integers, floats
  correctly rounded through `group_fsums`), `sparse_sums` per present key of a larger key
  space (a group and a distinct score);
- `tidy_columns` lays per-group values out as tidy rows, groups outermost, and
  `grouped_table` puts each row's group keys (`key_columns`) in front.

Span statistics reduce through it (`mycelium.core.reduce` gives the per-row columns,
`mycelium.frames.engine` the tidy table), and so do score statistics: the long rows of
`mycelium.frames.score_sums` (summed per group and per distinct score), the sweep's
cells (`mycelium.scores.thresholds`) and the per-group calls of `mycelium.evaluate`
where an option is not a sum (intervals, per-type rows, soft labels, words or
sentences; `mycelium.frames.scores`). A face that sums in another engine first (Polars'
``group_by``, Spark's ``GROUP BY``) groups the engine's partial rows again with
`group_codes` on their key columns, which merges the keys that engine keeps apart (NaN
and null) and gives every face's order. ``tests/core/test_one_grouping_engine.py``
fails if a second implementation of any of this appears.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..metrics import METRICS

__all__ = ["Groups", "group_codes", "normalize_by", "key_table", "by_table",
           "check_key_type", "result_columns", "key_series", "key_dtypes", "pandas_frame",
           "COMPARISON_COLUMNS", "group_bounds", "group_sums", "group_fsums", "sparse_sums",
           "key_columns", "grouped_table", "tidy_columns", "split_rows"]

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
        return split_rows(*group_bounds(self.codes, self.n_groups))


def group_bounds(codes: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """The one sort of rows by group: ``(order, bounds)``, where ``order[bounds[g]:
    bounds[g + 1]]`` are the rows of group ``g`` (``codes[i]``: row i's group), in row
    order.

    >>> order, bounds = group_bounds(np.array([1, 0, 1]), 2)
    >>> order.tolist(), bounds.tolist()
    ([1, 0, 2], [0, 1, 3])
    """
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(n_groups + 1))
    return order, bounds


def split_rows(order: np.ndarray, bounds: np.ndarray) -> list[np.ndarray]:
    """The rows of each group from `group_bounds`, in group order."""
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


# ------------------------------------------------------------------ sums per group

def group_sums(columns: Mapping[str, np.ndarray], codes: np.ndarray,
               n_groups: int) -> dict[str, np.ndarray]:
    """Exact per-group sums: integer(-valued) columns → exact integers (int64 arrays
    when every sum fits, else object arrays of Python ints), other float columns →
    exactly rounded sums (`group_fsums`).

    Integer-valued columns whose sums stay below 2**53 are summed with ``bincount``
    (exact, no sort); the rest go through the one sort by group (`group_bounds`).

    >>> group_sums({"n": np.array([1, 2, 3]), "x": np.array([0.1, 0.2, 0.3])},
    ...            np.array([0, 1, 0]), 2)
    {'n': array([4, 2]), 'x': array([0.4, 0.2])}
    """
    out: dict[str, np.ndarray] = {}
    rest = {}
    for name, col in columns.items():
        col = np.asarray(col)
        if col.dtype.kind == "f" and not col.any():  # e.g. residuals: almost always 0
            out[name] = np.zeros(n_groups, dtype=np.float64)
            continue
        # A float column that is not integer-valued (a limb residual, |r| < 2**-84, or
        # a float statistic) fails the trunc test below and is summed by `group_fsums`.
        if col.dtype.kind in "iubf" and col.size:
            peak = float(np.abs(col).max())
            if peak * col.size < 2**53 and (col.dtype.kind != "f" or
                                            np.array_equal(col, np.trunc(col))):
                sums = np.bincount(codes, weights=col, minlength=n_groups)
                out[name] = sums.astype(np.int64)  # integers below 2**53: exact
                continue
        rest[name] = col
    if not rest:
        return out
    order, bounds = group_bounds(codes, n_groups)
    nonempty = bounds[1:] > bounds[:-1]
    for name, col in rest.items():
        col = col[order]
        if col.dtype.kind == "f" and np.array_equal(col, np.trunc(col)):
            col = col.astype(np.int64)  # integer-valued limbs: exact integer sums
        if col.dtype.kind in "iub":
            out[name] = _int_group_sums(col.astype(np.int64), bounds, nonempty)
        elif col.dtype == object and all(isinstance(x, (int, np.integer))
                                         for x in col.tolist()):
            out[name] = np.array([sum(int(x) for x in col[a:b].tolist())
                                  for a, b in zip(bounds[:-1], bounds[1:])], dtype=object)
        else:
            out[name] = _sorted_fsums(col, bounds)
    return out


def _int_group_sums(col: np.ndarray, bounds: np.ndarray, nonempty: np.ndarray) -> np.ndarray:
    if col.size == 0:
        return np.zeros(bounds.size - 1, dtype=np.int64)
    bound = int(np.abs(col).max()) * col.size
    if bound < 2**63:
        sums = np.zeros(bounds.size - 1, dtype=np.int64)
        sums[nonempty] = np.add.reduceat(col, bounds[:-1][nonempty])
        return sums
    out = np.zeros(bounds.size - 1, dtype=object)  # beyond int64: Python integers
    out[:] = [sum(col[a:b].tolist()) for a, b in zip(bounds[:-1], bounds[1:])]
    return out


def group_fsums(values: np.ndarray, codes: np.ndarray, n_groups: int) -> np.ndarray:
    """Per-group sums of floats, each correctly rounded (``math.fsum``: the same double
    in any order of the rows, so engines that add partial rows in an order of their own
    agree), float64 whatever the values.

    >>> group_fsums(np.array([1e16, 1.0, -1e16]), np.array([0, 0, 0]), 1).tolist()
    [1.0]
    """
    values = np.asarray(values, dtype=np.float64)
    if not values.any():
        return np.zeros(n_groups, dtype=np.float64)
    order, bounds = group_bounds(codes, n_groups)
    return _sorted_fsums(values[order], bounds)


def _sorted_fsums(col: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    return np.array([math.fsum(col[a:b].tolist()) for a, b in zip(bounds[:-1], bounds[1:])],
                    dtype=np.float64)


def sparse_sums(key: np.ndarray, size: int, columns: Sequence[np.ndarray]
                ) -> tuple[np.ndarray, list[np.ndarray]]:
    """Sums of integer ``columns`` per key of a space too large to lay out per group
    (``key``: each row's key in ``0..size-1``, e.g. a group and a distinct score):
    ``(keys, [int64 sums of each column])``, keys increasing. Keys whose sums are all
    zero may be left out (only present keys are listed).

    >>> keys, (a,) = sparse_sums(np.array([7, 2, 7]), 10, [np.array([1, 5, 2])])
    >>> keys.tolist(), a.tolist()
    ([2, 7], [5, 3])
    """
    if size <= max(4 * key.size, 1 << 16):
        sums = [np.bincount(key, weights=c, minlength=size) for c in columns]
        nonzero = np.zeros(size, dtype=bool)
        for s in sums:
            nonzero |= s != 0
        at = np.flatnonzero(nonzero)
        return at, [s[at].astype(np.int64) for s in sums]
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    first = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if key.size \
        else np.zeros(0, np.int64)
    at = ordered[first]
    return at, [np.add.reduceat(np.asarray(c, np.int64)[order], first).astype(np.int64)
                if key.size else at.astype(np.int64) for c in columns]


# ------------------------------------------------------------------ grouped results

def key_columns(groups: Groups | pa.Table, group) -> dict[str, pa.ChunkedArray]:
    """The key columns of rows whose groups are ``group`` (a group index per row);
    ``groups``: the `Groups`, or their ``keys`` table."""
    keys = groups.keys if isinstance(groups, Groups) else groups
    index = group if isinstance(group, pa.Array) else pa.array(group, pa.int64())
    return {name: keys.column(name).take(index) for name in keys.column_names}


def grouped_table(groups: Groups | pa.Table, group, columns: Mapping[str, Any]) -> pa.Table:
    """A grouped result: each row's group keys (``group``: its group index; ``groups``
    as `key_columns` takes them), then ``columns`` (Arrow arrays, or values Arrow
    reads), in their order."""
    return pa.table({**key_columns(groups, group), **columns})


def tidy_columns(values: Mapping[str, Mapping[str, Any]], pairs: Sequence[tuple[str, str]],
                 n: int, *, examples, averages: Sequence[str | None],
                 profile: str | None) -> tuple[np.ndarray, dict[str, pa.Array]]:
    """One tidy row per (unit, metric, measure), units outermost, as whole columns:
    ``(unit of each row, {metric, measure, value, examples, average, profile})``.

    ``values[metric][measure]`` holds one value per unit (a group, or a group's
    threshold in a sweep), ``pairs`` the (metric, measure) of each row within a unit,
    ``examples`` each unit's examples, ``averages`` each pair's average.

    >>> unit, cols = tidy_columns({"iou": {"score": [0.5, 1.0]}}, [("iou", "score")], 2,
    ...                           examples=[3, 1], averages=["micro"], profile=None)
    >>> unit.tolist(), cols["value"].to_pylist(), cols["examples"].to_pylist()
    ([0, 1], [0.5, 1.0], [3, 1])
    """
    k = len(pairs)
    matrix = np.empty((n, k), dtype=np.float64)
    for j, (metric, measure) in enumerate(pairs):
        matrix[:, j] = np.asarray(values[metric][measure], dtype=np.float64)
    counts = np.asarray(examples)
    counts = (counts.astype(np.int64) if counts.dtype.kind in "iu" else
              np.asarray([int(x) for x in counts.tolist()], dtype=np.int64))
    pair = np.tile(np.arange(k, dtype=np.int64), n)  # the (metric, measure) of each row

    def repeated(strings) -> pa.Array:  # k strings, each row's taken (no n·k Python list)
        return pa.array(strings, pa.string()).take(pair)

    return np.repeat(np.arange(n, dtype=np.int64), k), {
        "metric": repeated([m for m, _ in pairs]),
        "measure": repeated([q for _, q in pairs]),
        "value": pa.array(matrix.ravel(), pa.float64()),
        "examples": pa.array(np.repeat(counts, k), pa.int64()),
        "average": repeated(list(averages)),
        "profile": repeated([profile] * k),
    }
