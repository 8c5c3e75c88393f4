"""Score metrics on Spark, distributed: `mycelium.frames.spark.evaluate` with token scores or
soft scores, a threshold or ``response_level`` never gathers rows on the driver.

Inside ``mapInArrow`` each Arrow batch becomes the long rows of
`mycelium.frames.score_sums` (per group: summed columns, and the positive and negative
weight at each distinct score); Spark adds them with ``GROUP BY keys, kind, column,
score`` (``bigint`` sums: exact, and an error on overflow under ANSI mode); the driver
collects the summed rows — one per group and distinct score — and finishes them with
`mycelium.frames.score_sums.finish`, so the numbers are the pandas accessor's, bit for bit.
"""

from __future__ import annotations

from functools import partial
from typing import Iterator

import numpy as np
import pyarrow as pa

from ..core.groups import key_columns
from ..errors import SpanValidationError
from . import engine as frames
from .score_sums import (EMPTY_AT, LONG_COLUMNS, ScoreSums, batch_rows, empty_spans_of,
                         finish, frame_score_sums)
from .spark_checks import collect_sums, for_driver, located
from .spark_io import ID_COL, PRED_COL, REF_COL, TEXT_COL, quoted, to_spark

__all__ = ["distributed_scores"]

_OFFSETS, _SCORES, _SOFT = "__offsets", "__scores", "__soft_pred"
_L = "__long_"  # prefix of the long rows' columns


def distributed_scores(sdf, ref_col: str, pred_col: str | None, *, by, as_spark: bool,
                       columns: dict, options: dict):
    """The tidy result of a call with scores, summed by Spark; None when an option does
    not reduce to sums (intervals, the per-type rows, soft labels, other units)."""
    ss = frame_score_sums(pred_col, {**columns, **options})
    if ss is None:
        return None
    from pyspark.sql import functions as F

    offsets, scores = columns["token_offsets_col"], columns["token_scores_col"]
    soft = columns["soft_pred_col"]
    names = frames.normalize_by(by)
    keys = [f"__k{i}" for i in range(len(names))]
    read = [(ref_col, REF_COL), (pred_col, PRED_COL), (columns["text"], TEXT_COL),
            (columns["id_col"], ID_COL), (offsets, _OFFSETS), (scores, _SCORES),
            (soft, _SOFT)]
    selected = sdf.select(*[quoted(c).alias(a) for c, a in read if c is not None],
                          *[quoted(n).alias(k) for n, k in zip(names, keys)])
    mapped = selected.mapInArrow(partial(_long_batches, ss=ss, keys=keys),
                                 _long_schema(sdf, names, keys))
    summed = mapped.groupBy(*keys, *(_L + k for k in ("kind", "column", "score"))).agg(
        *[F.sum(_L + k).alias(_L + k) for k in ("a", "b", "f")])
    table = collect_sums(summed)
    key_table = table.select(keys).rename_columns(names) if keys else None
    groups = frames.group_codes(key_table, table.num_rows)
    rows = {k: _numbers(table.column(_L + k)) for k in LONG_COLUMNS}
    rows["group"] = groups.codes
    _warn_empty(rows)
    tidy = finish(ss, rows, groups)
    if as_spark:
        return to_spark(sdf, tidy, names)
    from .to_pandas import tidy_to_pandas

    return tidy_to_pandas(tidy, dict.fromkeys(names), signature_column=True)


def _long_schema(sdf, names, keys):
    from pyspark.sql import types as T

    fields = [T.StructField(k, sdf.schema[n].dataType, True) for k, n in zip(keys, names)]
    types = {"kind": T.ByteType(), "column": T.IntegerType(), "score": T.LongType(),
             "a": T.LongType(), "b": T.LongType(), "f": T.DoubleType()}
    return T.StructType(fields + [T.StructField(_L + k, types[k], False)
                                  for k in LONG_COLUMNS])


def _long_batches(batches: Iterator[pa.RecordBatch], *, ss: ScoreSums, keys: list[str]
                  ) -> Iterator[pa.RecordBatch]:
    """``mapInArrow``: each Arrow batch → its long rows (`score_sums.batch_rows`); a first
    zero-length span is keyed by its Spark partition and row there (`_PARTITION`)."""
    from pyspark import TaskContext

    context = TaskContext.get()
    offset = (context.partitionId() if context is not None else 0) * _PARTITION
    for batch in batches:
        if batch.num_rows == 0:
            continue
        groups = frames.group_codes(
            pa.table({k: batch.column(k) for k in keys}) if keys else None, batch.num_rows)

        def col(name):
            return batch.column(name) if name in batch.schema.names else None

        try:
            try:
                rows = batch_rows(ss, references=col(REF_COL), predictions=col(PRED_COL),
                                  text=col(TEXT_COL), soft_predictions=col(_SOFT),
                                  token_offsets=col(_OFFSETS), token_scores=col(_SCORES),
                                  codes=groups.codes, n_groups=groups.n_groups)
            except SpanValidationError as exc:
                raise located(exc, batch) from None
        except (ValueError, TypeError) as exc:
            raise for_driver(exc) from None
        rows["score"][rows["kind"] == EMPTY_AT] += offset
        offset += batch.num_rows
        taken = key_columns(groups, rows["group"])
        arrays = [taken[k].combine_chunks() for k in keys]
        arrays += [pa.array(rows[k]) for k in LONG_COLUMNS]
        yield pa.RecordBatch.from_arrays(arrays, names=[*keys, *(_L + k for k in
                                                                 LONG_COLUMNS)])


#: A first zero-length span's key: its partition times this, plus its row there.
_PARTITION = 1 << 40


def _warn_empty(rows: dict[str, np.ndarray]) -> None:
    """The one `mycelium.EmptySpanWarning` of a call, on the driver (`empty_spans_of`)."""
    empty = empty_spans_of(rows)
    if empty is None:
        return
    from ..core.pipeline import warn_empty_spans

    counts, (side, key, span, start, end) = empty
    partition, row = divmod(key, _PARTITION)
    warn_empty_spans(counts, f"{side} example at row {row} of Spark partition {partition}, "
                     f"span {span}: [{start}, {end}]")


def _numbers(column: pa.ChunkedArray) -> np.ndarray:
    """A summed column as numpy (nulls, from no rows, as 0)."""
    arr = column.combine_chunks()
    if arr.null_count:
        arr = arr.fill_null(0)
    return arr.to_numpy(zero_copy_only=False)
