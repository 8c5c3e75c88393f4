"""The per-type rows (``type_field``) on Spark, summed on the workers like every other
statistic: ``mapInArrow`` gives each Arrow batch's sums per group and type
(`mycelium.frames.typed_sums.batch_sums`), Spark sums them per (group, type) as ``bigint``,
and the driver finishes the few summed rows (`mycelium.frames.typed_sums.finish`)."""

from __future__ import annotations

from functools import partial
from typing import Iterator

import pyarrow as pa

from ..core.groups import key_columns
from ..errors import SpanValidationError
from . import engine as frames
from .spark_checks import (collect_sums, empty_arrays, empty_where, for_driver, located,
                           warn_empty)
from .spark_io import (EMPTY_FIRST_COL, EMPTY_PRED_COL, EMPTY_REF_COL, PRED_COL, REF_COL,
                       TEXT_COL, empty_fields, quoted)
from .typed_sums import KIND_COL, N_COL, NREF_COL, TYPE_COL, TypedPlan, batch_sums, finish

__all__ = ["string_types", "typed_on_workers"]

EMPTY_COLUMNS = (EMPTY_REF_COL, EMPTY_PRED_COL, EMPTY_FIRST_COL)


def string_types(sdf, column: str, field: str) -> bool:
    """Whether ``column`` of ``sdf`` is an array of structs whose ``field`` is a string
    (the types the summed rows carry as they are)."""
    from pyspark.sql import types as T

    if column not in sdf.columns:
        return False  # the gathering path names it
    spark_type = sdf.schema[column].dataType
    if not isinstance(spark_type, T.ArrayType) or \
            not isinstance(spark_type.elementType, T.StructType):
        return False
    fields = {f.name: f.dataType for f in spark_type.elementType.fields}
    return isinstance(fields.get(field), T.StringType)


def _typed_batches(batches: Iterator[pa.RecordBatch], *, plan: TypedPlan,
                   keys: list[str]) -> Iterator[pa.RecordBatch]:
    """``mapInArrow``: the summed rows of each Arrow batch (`batch_sums`), its zero-length
    spans on the first (located by the partition's rows before the batch)."""
    offset = 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        try:
            groups = frames.group_codes(
                pa.table({k: batch.column(k) for k in keys}) if keys else None,
                batch.num_rows)
            text = batch.column(TEXT_COL) if TEXT_COL in batch.schema.names else None
            g, columns, prepared = batch_sums(batch.column(REF_COL), batch.column(PRED_COL),
                                              text, groups, plan)
            first = empty_where(prepared, batch, offset)
            offset += batch.num_rows
        except SpanValidationError as exc:
            raise located(exc, batch) from None
        except (ValueError, TypeError, KeyError) as exc:
            raise for_driver(exc) from None
        taken = key_columns(groups, g) if keys else {}
        arrays = [taken[k].combine_chunks() for k in keys] + list(columns.values())
        arrays += empty_arrays(prepared.empty_spans, first, len(g))
        yield pa.RecordBatch.from_arrays(arrays, names=[*keys, *columns, *EMPTY_COLUMNS])


def typed_on_workers(sdf, *, plan: TypedPlan, names: list[str], selected) -> pa.Table:
    """The per-type rows of ``selected`` (the working columns of
    `mycelium.frames.spark_io.select_inputs`): summed per (group, type) by Spark, then
    finished on the driver from the few summed rows."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    keys = [f"__k{i}" for i in range(len(names))]
    fields = [T.StructField(k, sdf.schema[n].dataType, True) for k, n in zip(keys, names)]
    fields += [T.StructField(KIND_COL, T.IntegerType(), False),
               T.StructField(TYPE_COL, T.StringType(), True),
               T.StructField(N_COL, T.LongType(), False),
               T.StructField(NREF_COL, T.LongType(), False)]
    fields += [T.StructField(name, T.LongType() if col.integer else T.DoubleType(), False)
               for name, col, _ in plan.columns()]
    mapped = selected.mapInArrow(partial(_typed_batches, plan=plan, keys=keys),
                                 T.StructType(fields + empty_fields()))
    values = [N_COL, NREF_COL, *(name for name, _, _ in plan.columns())]
    summed = collect_sums(mapped.groupBy(*keys, KIND_COL, quoted(TYPE_COL)).agg(
        *[F.sum(v).alias(v) for v in [*values, *EMPTY_COLUMNS[:2]]],
        F.min(EMPTY_COLUMNS[2]).alias(EMPTY_COLUMNS[2])))
    warn_empty(summed, EMPTY_COLUMNS)
    columns = {name: summed.column(name).fill_null(0).to_numpy()
               for name in (KIND_COL, *values)}
    columns[TYPE_COL] = summed.column(TYPE_COL).to_pylist()
    key_table = summed.select(keys).rename_columns(names) if keys else None
    return finish(columns, key_table, plan)
