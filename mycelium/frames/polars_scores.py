"""Score metrics on the lazy Polars face, streamed: ``lf.mycelium.evaluate`` with token
scores or soft scores, a threshold or ``response_level`` holds a batch of rows at a time.

Each batch becomes the long rows of `mycelium.frames.score_sums` (per group: summed
columns, and the positive and negative weight at each distinct score). The plan is
deferred (``pl.defer``): on ``collect()`` the long rows come out of Polars' streaming
engine batch by batch and are added up per (keys, kind, column, score) in Int128 as they
come, half a million rows at a time; the summed rows — one per group and distinct score,
not per row — are finished by `mycelium.frames.score_sums.finish`, so the plan gives the
eager face's numbers bit for bit. (A group_by inside the streaming plan held partial
aggregates of every batch on Polars 2.1: see `collected`'s note.) Registered through
`mycelium.frames.polars_lazy`.
"""

from __future__ import annotations

import threading
from functools import partial
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from ..core.groups import key_columns
from ..errors import SpanValidationError
from . import engine as frames
from .polars_batches import ROW, TIDY, polars_frame
from .score_sums import (CHAR, EMPTY_AT, LONG_COLUMNS, RESPONSE, ScoreSums, batch_rows,
                         empty_spans_of, finish, frame_score_sums)

__all__ = ["streamed_scores"]

_SLICE = 1 << 15  # rows scored at a time inside a batch: bounds the core's scratch memory
#: Tokens (or soft spans) scored at a time: rows of many tokens are sliced finer, so the
#: scratch memory (a few dozen bytes per token) stays near 2**20 tokens' worth.
_TOKENS = 1 << 20
_LONG = {"kind": pl.Int8, "column": pl.Int32, "score": pl.Int64, "a": pl.Int64,
         "b": pl.Int64, "f": pl.Float64}
_L = "__mycelium_long_"  # prefix of the long rows' working columns (never a key's name)
#: Long rows held before they are added to the running sums (and at least as many as
#: those hold): each is read a bounded number of times, and a merge's scratch (Polars'
#: row encoding of the keys, the concatenated rows) stays near 100 MB.
_MERGE_ROWS = 1 << 19
#: Batches scored at once: the streaming engine calls the scoring function from each of
#: its threads, and each call holds about 130 bytes of scratch per token scored; the GIL
#: lets little more than one of them run at a time, so more would add memory, not speed.
_CONCURRENT = 2
#: The kind of the long rows that carry a group's first row of a slice as their score (the
#: summed rows of `mycelium.frames.score_sums` are of its kinds SUM, CHAR and RESPONSE).
_FIRST = 3


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
    inputs = list(dict.fromkeys([*names, ROW, *columns.values()]))
    long_schema = {n: schema[n] for n in names} | {_L + k: v for k, v in _LONG.items()}
    rows = lf.with_row_index(ROW).select(inputs).map_batches(
        partial(_long_rows, ss=ss, columns=columns, names=names, schema=long_schema,
                gate=threading.BoundedSemaphore(_CONCURRENT)),
        streamable=True, schema=long_schema)
    keys = _keys(names)
    sums = [pl.col(_L + "a").cast(pl.Int128).sum(), pl.col(_L + "b").cast(pl.Int128).sum(),
            pl.col(_L + "f").sum()]
    out_schema: dict[str, Any] = {n: schema[n] for n in names} | TIDY
    if options["with_signature"]:
        out_schema["signature"] = pl.String

    def collected() -> pl.DataFrame:
        # The long rows stream out of Polars' streaming engine batch by batch and are
        # added up here, `_MERGE_ROWS` at a time, into one row per (keys, kind,
        # column, score): exact Int128 sums, memory bounded by the distinct keys. A
        # group_by in the plan itself holds partial aggregates of every batch on Polars
        # 2.1 (10 M examples of about 100 tokens, micro: 2,750 MiB against 1,754 MiB).
        running: pl.DataFrame | None = None
        held: list[pl.DataFrame] = []
        count = 0
        for batch in rows.collect_batches(engine="streaming"):
            held.append(batch)
            count += batch.height
            if count > max(_MERGE_ROWS, 0 if running is None else running.height):
                running, held, count = _added(running, held, keys, sums, long_schema), [], 0
        return _finish(_added(running, held, keys, sums, long_schema), ss=ss, names=names,
                       schema=out_schema)

    return pl.defer(collected, schema=out_schema)


def _keys(names) -> list[str]:
    """The columns the long rows are added up by: the group keys, kind, column, score."""
    return [*names, *(_L + k for k in ("kind", "column", "score"))]


def _added(running: pl.DataFrame | None, held: list[pl.DataFrame], keys, sums,
           schema) -> pl.DataFrame:
    """``running`` (summed long rows) with the long rows ``held`` (of ``schema``) added,
    per key."""
    if running is None and not held:  # no batch at all: the sums of no rows
        held = [pl.DataFrame(schema=schema)]
    wide = [p.with_columns(pl.col(_L + "a").cast(pl.Int128), pl.col(_L + "b")
                           .cast(pl.Int128)) for p in held]
    return pl.concat(([] if running is None else [running]) + wide).group_by(keys) \
        .agg(*sums)


def _long_rows(df: pl.DataFrame, *, ss: ScoreSums, columns: dict[str, str], names,
               schema, gate: threading.BoundedSemaphore) -> pl.DataFrame:
    """One streamed batch → its long rows, `_SLICE` rows (at most about `_TOKENS`
    tokens) at a time, at most `_CONCURRENT` batches at once (``gate``)."""
    with gate:
        return _scored_batch(df, ss=ss, columns=columns, names=names, schema=schema)


def _scored_batch(df: pl.DataFrame, *, ss: ScoreSums, columns: dict[str, str], names,
                  schema) -> pl.DataFrame:
    step = _SLICE
    scored = columns.get("offsets", columns.get("soft"))
    if scored is not None and df.height:
        items = df.get_column(scored).list.len().sum() or 0
        step = max(1, min(_SLICE, int(_TOKENS * df.height // max(int(items), 1))))
    parts = [_slice_rows(df.slice(start, step), ss=ss, columns=columns, names=names)
             for start in range(0, max(df.height, 1), step)]
    out = parts[0] if len(parts) == 1 else _merged_points(pl.concat(parts), names)
    return out.select(list(schema)).cast(schema)


def _merged_points(rows: pl.DataFrame, names) -> pl.DataFrame:
    """The slices' CHAR and RESPONSE rows of one batch added up per group and score
    (counts of characters or examples: int64 sums cannot overflow), so that the running
    sums receive one row per group and distinct score of the batch, not of each slice;
    the SUM and FIRST rows pass as they are (`_added` adds them in Int128)."""
    points = pl.col(_L + "kind").is_in([CHAR, RESPONSE])
    merged = rows.filter(points).group_by(_keys(names), maintain_order=True).agg(
        pl.col(_L + "a").sum(), pl.col(_L + "b").sum(), pl.col(_L + "f").sum())
    return pl.concat([rows.filter(~points), merged.select(rows.columns)])


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
    at = np.flatnonzero(rows["kind"] == EMPTY_AT)  # its example's row of the plan
    rows["score"][at] = df.get_column(ROW).cast(pl.Int64).to_numpy()[rows["score"][at]]
    first = np.full(groups.n_groups, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, groups.codes, df.get_column(ROW).cast(pl.Int64).to_numpy())
    present = np.flatnonzero(first < np.iinfo(np.int64).max)
    zeros = np.zeros(present.size, dtype=np.int64)
    rows = {"group": np.concatenate([rows["group"], present]),
            "kind": np.concatenate([rows["kind"], np.full(present.size, _FIRST, np.int8)]),
            "column": np.concatenate([rows["column"], zeros.astype(np.int32)]),
            "score": np.concatenate([rows["score"], first[present]]),
            "a": np.concatenate([rows["a"], zeros]), "b": np.concatenate([rows["b"], zeros]),
            "f": np.concatenate([rows["f"], zeros.astype(np.float64)])}
    out: dict[str, Any] = dict(key_columns(groups, rows["group"]))
    out.update({_L + k: pa.array(rows[k]) for k in LONG_COLUMNS})
    return polars_frame(pa.table(out))


def _at_row(exc: SpanValidationError, df: pl.DataFrame) -> SpanValidationError:
    """The error of a slice's example told at its row of the plan (as for spans)."""
    if exc.example is None:
        return exc
    row = int(df.get_column(ROW)[exc.example])
    message = str(exc).replace(f"{exc.side} example {exc.example}",
                               f"{exc.side} example {row}", 1)
    return SpanValidationError(
        f"{message} (example {row} is the row's position in the LazyFrame's rows as they "
        "reach mycelium, counted from 0 after any filter or slice in the plan)",
        side=exc.side, example=row, span=exc.span, problem=exc.problem, fix=exc.fix)


def _finish(df: pl.DataFrame, *, ss: ScoreSums, names, schema) -> pl.DataFrame:
    """The tidy result from the summed long rows (one per group and distinct score),
    groups in the order of their first rows (the FIRST rows' lowest score)."""
    keys = df.select(names).to_arrow() if names else None
    codes = frames.group_codes(keys, df.height).codes
    kind = df.get_column(_L + "kind").to_numpy()
    starts = kind == _FIRST
    first = np.full(int(codes.max()) + 1 if codes.size else 0, np.iinfo(np.int64).max,
                    dtype=np.int64)
    np.minimum.at(first, codes[starts], df.get_column(_L + "score").to_numpy()[starts])
    # Rows by their group's first row, then by their own key's (a null and a NaN key are
    # one group, told by the key of its first row, as the eager face tells it).
    own = df.select(pl.when(pl.col(_L + "kind") == _FIRST).then(pl.col(_L + "score"))
                    .min().over(names)).to_series().to_numpy() if names \
        else np.zeros(df.height, dtype=np.int64)
    order = np.flatnonzero(~starts)
    order = order[np.lexsort((own[order], first[codes[order]]))]
    keys = keys.take(pa.array(order)) if keys is not None else None
    groups = frames.group_codes(keys, order.size)
    rows = {k: (_numbers(df.get_column(_L + k)) if _L + k in df.columns
                else np.zeros(df.height))[order] for k in LONG_COLUMNS}
    rows["group"] = groups.codes
    _warn_empty(rows)
    out = polars_frame(finish(ss, rows, groups))
    if "signature" in schema:
        out = out.with_columns(signature=pl.lit(ss.signature, pl.String))
    return out.cast(schema)


def _warn_empty(rows: dict[str, np.ndarray]) -> None:
    """The one `mycelium.EmptySpanWarning` of a ``collect()`` (`score_sums.empty_spans_of`),
    the first span named by its row, as the span path names it."""
    empty = empty_spans_of(rows)
    if empty is None:
        return
    from ..core.pipeline import EmptyAt, warn_empty_spans

    counts, (side, row, span, start, end) = empty
    warn_empty_spans(counts, f"{EmptyAt(side, row, span, start, end)} (example {row} is the "
                     "row's position in the LazyFrame's rows as they reach mycelium, counted "
                     "from 0 after any filter or slice in the plan)", within=("polars",))


def _numbers(column: pl.Series) -> np.ndarray:
    """A summed column as numpy: Int128 sums as int64 when they fit, else Python ints."""
    column = column.fill_null(0)
    if column.dtype == pl.Int128:
        small = column.cast(pl.Int64, strict=False)
        if small.null_count() == 0:
            return small.to_numpy()
        return np.array(column.to_list(), dtype=object)
    return column.to_numpy()
