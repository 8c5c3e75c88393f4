"""Score metrics on the lazy Polars face, streamed: ``lf.mycelium.evaluate`` with token
scores or soft scores, a threshold or ``response_level`` holds a batch of rows at a time.

Each batch becomes the long rows of `mycelium.frames.score_sums` (per group: summed
columns, and the positive and negative weight at each distinct score); Polars adds them
per (keys, kind, column, score) in Int128 on its streaming engine, and the summed rows —
one per group and distinct score, not per row — are finished by
`mycelium.frames.score_sums.finish`, so the plan gives the eager face's numbers bit for
bit. Registered through `mycelium.frames.polars_lazy`.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from ..errors import SpanValidationError
from . import engine as frames
from .polars_batches import _ROW, _TIDY, _frame, first_row
from .score_sums import LONG_COLUMNS, ScoreSums, batch_rows, finish, frame_score_sums

__all__ = ["streamed_scores"]

_SLICE = 1 << 15  # rows scored at a time inside a batch: bounds the core's scratch memory
#: Tokens (or soft spans) scored at a time: rows of many tokens are sliced finer, so the
#: scratch memory (a few dozen bytes per token) stays near 2**20 tokens' worth.
_TOKENS = 1 << 20
_LONG = {"kind": pl.Int8, "column": pl.Int32, "score": pl.Int64, "a": pl.Int64,
         "b": pl.Int64, "f": pl.Float64}
_L = "__mycelium_long_"  # prefix of the long rows' working columns (never a key's name)


def streamed_scores(lf: pl.LazyFrame, ref_col: str, pred_col: str | None,
                    options: dict) -> pl.LazyFrame | None:
    """The streaming plan of a call with scores, or None when an option cannot stream
    (intervals, the per-type rows, soft labels, units other than characters)."""
    offsets, scores = options["token_offsets_col"], options["token_scores_col"]
    soft = options["soft_pred_col"]
    schema = lf.collect_schema()
    names = frames.normalize_by(options["by"])
    roles = {"ref_col": ref_col, "pred_col": pred_col, "text": options["text"],
             "soft_pred_col": soft, "token_offsets_col": offsets,
             "token_scores_col": scores, "id_col": options["id_col"],
             **{f"by[{i}]": b for i, b in enumerate(names)}}
    for role, name in roles.items():
        if name is not None:
            frames.check_column(name, role, schema.names())
    ss = frame_score_sums(pred_col, options)
    if ss is None:
        return None
    frames.key_table({n: pl.Series(n, [], dtype=schema[n]) for n in names})  # key types
    columns = {"ref": ref_col, "pred": pred_col, "text": options["text"], "soft": soft,
               "offsets": offsets, "scores": scores}
    columns = {role: name for role, name in columns.items() if name is not None}
    inputs = list(dict.fromkeys([*names, _ROW, *columns.values()]))
    long_schema = ({n: schema[n] for n in names} | {_L + k: v for k, v in _LONG.items()}
                   | {_ROW: pl.get_index_type()})
    rows = lf.with_row_index(_ROW).select(inputs).map_batches(
        partial(_long_rows, ss=ss, columns=columns, names=names, schema=long_schema),
        streamable=True, schema=long_schema)
    keys = [*names, *(_L + k for k in ("kind", "column", "score"))]
    summed = rows.group_by(keys).agg(
        pl.col(_L + "a").cast(pl.Int128).sum(), pl.col(_L + "b").cast(pl.Int128).sum(),
        pl.col(_L + "f").sum(), first_row())
    out_schema: dict[str, Any] = {n: schema[n] for n in names} | _TIDY
    if options["with_signature"]:
        out_schema["signature"] = pl.String
    return summed.map_batches(partial(_finish, ss=ss, names=names, schema=out_schema),
                              schema=out_schema)


def _long_rows(df: pl.DataFrame, *, ss: ScoreSums, columns: dict[str, str], names,
               schema) -> pl.DataFrame:
    """One streamed batch → its long rows, `_SLICE` rows (at most about `_TOKENS`
    tokens) at a time."""
    step = _SLICE
    scored = columns.get("offsets", columns.get("soft"))
    if scored is not None and df.height:
        items = df.get_column(scored).list.len().sum() or 0
        step = max(1, min(_SLICE, int(_TOKENS * df.height // max(int(items), 1))))
    parts = [_slice_rows(df.slice(start, step), ss=ss, columns=columns, names=names)
             for start in range(0, max(df.height, 1), step)]
    out = parts[0] if len(parts) == 1 else pl.concat(parts)
    return out.select(list(schema)).cast(schema)


def _slice_rows(df: pl.DataFrame, *, ss: ScoreSums, columns: dict[str, str], names
                ) -> pl.DataFrame:
    keys = df.select(names).to_arrow() if names else None
    groups = frames.group_codes(keys, df.height)

    def col(role):
        return df.get_column(columns[role]) if role in columns else None

    try:
        rows = batch_rows(ss, references=col("ref"), predictions=col("pred"),
                          text=col("text"), soft_predictions=col("soft"),
                          token_offsets=col("offsets"), token_scores=col("scores"),
                          codes=groups.codes, n_groups=groups.n_groups)
    except SpanValidationError as exc:
        raise _at_row(exc, df) from None
    first = np.full(groups.n_groups, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, groups.codes, df.get_column(_ROW).cast(pl.Int64).to_numpy())
    group = pa.array(rows["group"], pa.int64())
    out = {n: groups.keys.column(n).take(group) for n in names}
    out.update({_L + k: pa.array(rows[k]) for k in LONG_COLUMNS})
    out[_ROW] = pa.array(first[rows["group"]])
    return _frame(pa.table(out))


def _at_row(exc: SpanValidationError, df: pl.DataFrame) -> SpanValidationError:
    """The error of a slice's example told at its row of the plan (as for spans)."""
    if exc.example is None:
        return exc
    row = int(df.get_column(_ROW)[exc.example])
    message = str(exc).replace(f"{exc.side} example {exc.example}",
                               f"{exc.side} example {row}", 1)
    return SpanValidationError(
        f"{message} (example {row} is the row's position in the LazyFrame's rows as they "
        "reach mycelium, counted from 0 after any filter or slice in the plan)",
        side=exc.side, example=row, span=exc.span, problem=exc.problem, fix=exc.fix)


def _finish(df: pl.DataFrame, *, ss: ScoreSums, names, schema) -> pl.DataFrame:
    """The tidy result from the summed long rows (one per group and distinct score)."""
    order = df.get_column(_ROW).arg_sort(nulls_last=True).to_numpy()
    keys = df.select(names).to_arrow().take(pa.array(order)) if names else None
    groups = frames.group_codes(keys, df.height)
    rows = {k: _numbers(df.get_column(_L + k))[order] for k in LONG_COLUMNS}
    rows["group"] = groups.codes
    out = _frame(finish(ss, rows, groups))
    if "signature" in schema:
        out = out.with_columns(signature=pl.lit(ss.signature, pl.String))
    return out.cast(schema)


def _numbers(column: pl.Series) -> np.ndarray:
    """A summed column as numpy: Int128 sums as int64 when they fit, else Python ints."""
    column = column.fill_null(0)
    if column.dtype == pl.Int128:
        small = column.cast(pl.Int64, strict=False)
        if small.null_count() == 0:
            return small.to_numpy()
        return np.array(column.to_list(), dtype=object)
    return column.to_numpy()
