"""The per-type rows (``type_field``) on Spark, summed on the workers like every other
statistic: per Arrow batch, group and type, the sums of the type's engine columns
(`mycelium.core.engine_sums`) over the examples having the type, their count and the
type's reference spans; Spark sums them per (group, type) as ``bigint``; the driver turns
the few summed rows into `mycelium.frames.engine.typed_rows`, the pandas accessor's rows.

A type's examples are those with a span of that type (`mycelium.views.typology`), so its
statistics are sums over rows like any metric's, filtered by type: nothing is gathered.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Iterator

import numpy as np
import pyarrow as pa

from ..core.engine_sums import EngineColumn, engine_columns, engine_layout, reduce_engine_sums
from ..core.groups import group_sums, key_columns
from ..core.reduce import values_from_sums
from ..core.settings import Settings
from ..errors import SpanValidationError
from ..evaluate import prepare_for
from ..metrics import STATISTIC_METRICS
from ..views.typology import REFERENCE_SIDE, sorted_types, typed_for, typed_span_for
from . import engine as frames
from .spark_checks import collect_sums, empty_arrays, empty_where, for_driver, located
from .spark_io import (EMPTY_FIRST_COL, EMPTY_PRED_COL, EMPTY_REF_COL, N_COL, PRED_COL,
                       REF_COL, TEXT_COL, empty_fields, quoted)

__all__ = ["TypedPlan", "typed_plan", "string_types", "typed_on_workers", "summed_typed"]

KIND_COL, TYPE_COL, NREF_COL = "__kind", "__type", "__nref"
EMPTY_COLUMNS = (EMPTY_REF_COL, EMPTY_PRED_COL, EMPTY_FIRST_COL)
#: ``__kind`` of a summed row: the metrics compared over all types (``typed_span``, and
#: every group's examples), or one type's.
WHOLE, TYPED = 0, 1


@dataclass(frozen=True)
class TypedPlan:
    """The settings and engine columns of a typed call: ``typed`` (the metrics scored per
    type, `mycelium.views.typology`), ``whole`` (``typed_span``'s, or None)."""

    settings: Settings
    typed: Settings
    typed_layout: tuple[EngineColumn, ...]
    whole: Settings | None
    whole_layout: tuple[EngineColumn, ...]

    def columns(self) -> list[tuple[str, EngineColumn, str]]:
        """``(Spark column, engine column, kind)`` of every summed engine column."""
        return ([(f"t{i}", c, "typed") for i, c in enumerate(self.typed_layout)]
                + [(f"w{i}", c, "whole") for i, c in enumerate(self.whole_layout)])


def typed_plan(settings: Settings) -> TypedPlan:
    """The `TypedPlan` of resolved ``settings`` (with ``type_field``).

    Examples
    --------
    >>> from mycelium.core.settings import resolve_settings
    >>> s = resolve_settings(metrics=["typed_span", "character", "iou"],
    ...                      type_field="label", average="micro")
    >>> plan = typed_plan(s.scoring(s.asked))
    >>> plan.typed.metrics, plan.whole.metrics
    (('character',), ('typed_span',))
    """
    span = settings.span_metrics
    names = span if settings.typed_matching else tuple(
        m for m in dict.fromkeys(m for m, _ in REFERENCE_SIDE) if m in span)
    # REFERENCE_SIDE's order is not the call's: score them in the call's order
    names = tuple(m for m in span if m in names)
    typed = replace(settings, metrics=names)
    whole = None
    whole_layout: tuple[EngineColumn, ...] = ()
    if "typed_span" in settings.metrics:
        whole = replace(settings, metrics=("typed_span",))
        empty = {"typed_span": {k: np.zeros(0, dtype=np.int64)
                                for k in STATISTIC_METRICS["typed_span"].statistics}}
        whole_layout = engine_layout(whole, empty)
    return TypedPlan(settings, typed, engine_layout(typed), whole, whole_layout)


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


# ------------------------------------------------------------------ on the workers

def _batch_rows(batch: pa.RecordBatch, plan: TypedPlan, keys: list[str], offset: int
                ) -> pa.RecordBatch:
    """One Arrow batch's summed rows: per group a ``WHOLE`` row, then one per type; its
    zero-length spans on the first (``offset``: the partition's rows before the batch)."""
    settings = plan.settings
    field = str(settings.type_field)  # a typed call's (`typed_plan`)
    text = batch.column(TEXT_COL) if TEXT_COL in batch.schema.names else None
    refs, preds = batch.column(REF_COL), batch.column(PRED_COL)
    prepared = prepare_for(refs, preds, settings, text=text, warn_empty=False)
    groups = frames.group_codes(
        pa.table({k: batch.column(k) for k in keys}) if keys else None, batch.num_rows)
    codes = groups.codes[prepared.kept]
    typed = typed_for(refs, preds, settings, prepared, type_field=field,
                      typed_matching=settings.typed_matching)
    ref_types = frames.types_by_group(refs, "references", field, groups, prepared.kept)
    pred_types = frames.types_by_group(preds, "predictions", field, groups, prepared.kept) \
        if settings.typed_matching else None
    whole = engine_columns({"typed_span": typed_span_for(refs, preds, settings, prepared)},
                           plan.whole, plan.whole_layout) if plan.whole else {}
    per_type = {t: engine_columns(typed.stats[t], plan.typed, plan.typed_layout)
                for t in typed.types}
    out: dict[str, list] = {name: [] for name in
                            ("g", KIND_COL, TYPE_COL, N_COL, NREF_COL,
                             *(name for name, _, _ in plan.columns()))}

    def emit(g, kind, t, rows: np.ndarray, n_ref: int, sums: dict) -> None:
        out["g"].append(g)
        out[KIND_COL].append(kind)
        out[TYPE_COL].append(t)
        out[N_COL].append(int(rows.sum()))
        out[NREF_COL].append(n_ref)
        for name, col, of in plan.columns():
            values = sums.get(col.label) if of == ("whole" if kind == WHOLE else "typed") \
                else None
            if values is None:
                out[name].append(0 if col.integer else 0.0)
            elif col.integer:
                out[name].append(int(values[rows].sum(dtype=np.int64)))
            else:
                out[name].append(math.fsum(values[rows].tolist()))

    for g in range(groups.n_groups):
        in_group = codes == g
        emit(g, WHOLE, None, in_group, 0, whole)
        for t in sorted_types(ref_types[g], None if pred_types is None else pred_types[g]):
            emit(g, TYPED, t, typed.present[t] & in_group,
                 int(typed.n_ref[t][in_group].sum()), per_type[t])
    taken = key_columns(groups, np.array(out.pop("g"), dtype=np.int64))
    arrays = [taken[k].combine_chunks() for k in keys]
    arrays += [pa.array(out[KIND_COL], pa.int32()), pa.array(out[TYPE_COL], pa.string())]
    arrays += [pa.array(out[N_COL], pa.int64()), pa.array(out[NREF_COL], pa.int64())]
    arrays += [pa.array(out[name], pa.int64() if col.integer else pa.float64())
               for name, col, _ in plan.columns()]
    arrays += empty_arrays(prepared.empty_spans, empty_where(prepared, batch, offset),
                           len(out[KIND_COL]))
    return pa.RecordBatch.from_arrays(arrays, names=[*keys, KIND_COL, TYPE_COL, N_COL,
                                                     NREF_COL,
                                                     *(n for n, _, _ in plan.columns()),
                                                     *EMPTY_COLUMNS])


def _typed_batches(batches: Iterator[pa.RecordBatch], *, plan: TypedPlan,
                   keys: list[str]) -> Iterator[pa.RecordBatch]:
    """``mapInArrow``: the summed rows of each Arrow batch (`_batch_rows`)."""
    offset = 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        try:
            yield _batch_rows(batch, plan, keys, offset)
            offset += batch.num_rows
        except SpanValidationError as exc:
            raise located(exc, batch) from None
        except (ValueError, TypeError, KeyError) as exc:
            raise for_driver(exc) from None


def typed_on_workers(sdf, *, plan: TypedPlan, names: list[str], selected) -> pa.Table:
    """The per-(group, type) sums of ``selected`` (the working columns of `select_inputs`),
    summed by Spark and collected (a few rows per group)."""
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
    values = [N_COL, NREF_COL, *(name for name, _, _ in plan.columns()), *EMPTY_COLUMNS[:2]]
    summed = mapped.groupBy(*keys, KIND_COL, quoted(TYPE_COL)).agg(
        *[F.sum(v).alias(v) for v in values], F.min(EMPTY_COLUMNS[2]).alias(EMPTY_COLUMNS[2]))
    return collect_sums(summed)


# --------------------------------------------------------------------- the driver

def summed_typed(table: pa.Table, plan: TypedPlan, names: list[str]) -> pa.Table:
    """`mycelium.frames.engine.typed_rows` from the collected sums (Spark groups that
    pandas merges, NaN and null keys, are added up here)."""
    keys = [f"__k{i}" for i in range(len(names))]
    key_table = table.select(keys).rename_columns(names) if keys else None
    groups = frames.group_codes(key_table, table.num_rows)
    kinds = table.column(KIND_COL).to_numpy()
    types = table.column(TYPE_COL).to_pylist()

    def column(name, rows):
        return table.column(name).filter(pa.array(rows)).fill_null(0).to_numpy()

    def sums(rows, codes, n, settings, layout, of):
        partials = {col.label: column(name, rows) for name, col, k in plan.columns()
                    if k == of}
        return reduce_engine_sums(partials, codes, n, settings, layout)

    whole_rows = kinds == WHOLE
    whole_codes = groups.codes[whole_rows]
    examples = group_sums({N_COL: column(N_COL, whole_rows)}, whole_codes,
                          groups.n_groups)[N_COL]
    whole: tuple[dict, Any] = ({}, None)
    if plan.whole is not None:
        whole = (values_from_sums(sums(whole_rows, whole_codes, groups.n_groups, plan.whole,
                                       plan.whole_layout, "whole"), plan.whole,
                                  examples=examples), examples)
    typed_rows = kinds == TYPED
    cell_of: dict[tuple, int] = {}
    cell_codes = np.array([cell_of.setdefault((int(g), t), len(cell_of)) for g, t in zip(
        groups.codes[typed_rows], [t for t, k in zip(types, typed_rows) if k])],
        dtype=np.int64)
    n_cells = len(cell_of)
    counted = group_sums({N_COL: column(N_COL, typed_rows),
                          NREF_COL: column(NREF_COL, typed_rows)}, cell_codes, n_cells)
    values = values_from_sums(sums(typed_rows, cell_codes, n_cells, plan.typed,
                                   plan.typed_layout, "typed"), plan.typed,
                              examples=counted[N_COL]) if plan.typed.metrics else {}
    by_group: list[dict] = [{} for _ in range(groups.n_groups)]
    for (g, t), c in cell_of.items():
        by_group[g][t] = ({m: {k: float(v[c]) for k, v in ms.items()} for m, ms in
                           values.items()}, int(counted[N_COL][c]),
                          int(counted[NREF_COL][c]))
    cells = [[(t, *found[t]) for t in sorted_types(np.array(list(found), dtype=object), None)]
             for found in by_group]
    wanted = None if plan.settings.typed_matching else [
        (m, k) for m, k in REFERENCE_SIDE if m in plan.settings.span_metrics]
    return frames.typed_rows(groups, cells, plan.settings, wanted=wanted, whole=whole)
