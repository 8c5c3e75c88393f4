"""The Spark face: `evaluate` scores span columns of a PySpark DataFrame, exactly, any size.

Each Arrow batch is scored with the core inside ``mapInArrow`` into the per-row columns
of `mycelium.core.reduce.row_columns`, written as int64 engine columns
(`mycelium.core.engine_sums`); Spark sums them per group (``GROUP BY SUM`` over bigint,
exact); the driver collects the few summed rows and finishes with
`mycelium.frames.engine.tidy_from_sums`, so the result is the pandas accessor's frame, bit for
bit. pyspark is imported only when a function here is called; workers need mycelium
installed (docs/scaling.md).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Iterator

import numpy as np
import pyarrow as pa

from ..core.engine_sums import engine_columns, engine_layout, reduce_engine_sums
from ..core.groups import group_bounds, group_sums, key_columns
from ..core.pipeline import compute_statistics
from ..core.reduce import values_from_sums
from ..core.pipeline import soft_given
from ..core.settings import Settings, typed_options
from ..errors import SpanValidationError
from ..core.exactsum import combine_limbs, limb_matrix, reweight
from ..stats.bootstrap import (CHUNK, example_keys, leave_out_empty, percentile_interval,
                               poisson_weights)
from . import engine as frames
from .told import telling_empty_spans
from ..evaluate import prepare_for
from ._options import (Average, By, Granularity, Metrics, Missing, Params, ProfileArg,
                       TrimSpans, ZeroDivision)
from .spark_checks import (check_inputs, collect_sums, empty_arrays, empty_where, for_driver,
                           located, warn_empty)
from .spark_io import (EMPTY_FIRST_COL, EMPTY_PRED_COL, EMPTY_REF_COL, ID_COL, N_COL,
                       PRED_COL, R_COL, REF_COL, SOFT_PRED_COL, SOFT_REF_COL, TEXT_COL,
                       mapped_schema, select_inputs, to_spark, collected)
from .spark_io import spark_names as _spark_names

if TYPE_CHECKING:  # pyspark is imported only when `evaluate` runs
    import pandas as pd
    import pyspark.sql

__all__ = ["evaluate"]

def _columns(stats, settings: Settings, layout, kept: np.ndarray) -> list[np.ndarray]:
    """The engine columns of one batch, zeros for rows left out by ``missing="drop"``."""
    columns = engine_columns(stats, settings, layout)
    out = []
    for col in layout:
        values = columns[col.label]
        if not kept.all():
            full = np.zeros(kept.size, dtype=values.dtype)
            full[kept] = values
            values = full
        out.append(values)
    return out


# ------------------------------------------------------------------ on the workers

def _score(batch: pa.RecordBatch, settings: Settings, layout):
    """The preparation (rows kept, zero-length spans) and the engine columns of one Arrow
    batch (spans converted by the core; the driver tells the zero-length spans once)."""
    text = batch.column(TEXT_COL) if TEXT_COL in batch.schema.names else None
    try:
        prepared = prepare_for(batch.column(REF_COL), batch.column(PRED_COL), settings,
                               text=text, warn_empty=False)
        if SOFT_REF_COL in batch.schema.names:
            stats = frames.all_statistics(prepared, settings, text=text,
                                          soft_references=batch.column(SOFT_REF_COL),
                                          soft_predictions=batch.column(SOFT_PRED_COL))
        else:
            stats = compute_statistics(prepared.refs, prepared.preds,
                                       settings.span_metrics, settings.params)
    except SpanValidationError as exc:
        raise located(exc, batch) from None
    return prepared, _columns(stats, settings, layout, prepared.kept)


def _group_batches(batches: Iterator[pa.RecordBatch], *, settings: Settings, layout,
                   keys: list[str]) -> Iterator[pa.RecordBatch]:
    """``mapInArrow``: per group of each Arrow batch, the sums of its rows' engine
    columns and its count of scored rows; with intervals (resample -1 for those plain
    sums) also its sums weighted by each resample's Poisson weights.

    Summing a batch's rows here (exactly, in int64) before Spark sums across batches
    sends one row per group and batch to the JVM instead of one per example.
    """
    boot = settings.bootstrap
    names = [*keys, *([R_COL] if boot else []), N_COL]
    names += [name for name, _, _ in _spark_names(layout)]
    names += [EMPTY_REF_COL, EMPTY_PRED_COL, EMPTY_FIRST_COL]
    offset = 0  # the partition's rows before the batch
    for batch in batches:
        if batch.num_rows == 0:
            continue
        try:
            prepared, columns = _score(batch, settings, layout)
        except (ValueError, TypeError) as exc:
            raise for_driver(exc) from None
        kept = prepared.kept
        first = empty_where(prepared, batch, offset)
        offset += batch.num_rows
        groups = frames.group_codes(
            pa.table({k: batch.column(k) for k in keys}) if keys else None, batch.num_rows)
        try:
            hashes = None if boot is None else _id_keys(batch, kept, groups)
        except ValueError as exc:
            raise for_driver(exc) from None
        g, r, values = _weighted_sums(groups, [kept.astype(np.int64)] + columns, hashes,
                                      boot)
        taken = key_columns(groups, g)
        arrays = [taken[k].combine_chunks() for k in keys]
        arrays += [pa.array(r, pa.int32())] if boot else []
        arrays += [pa.array(v) for v in values]
        arrays += empty_arrays(prepared.empty_spans, first, len(g))
        yield pa.RecordBatch.from_arrays(arrays, names=names)



def _id_keys(batch: pa.RecordBatch, kept: np.ndarray, groups) -> np.ndarray:
    """`mycelium.stats.bootstrap.example_keys` of the scored rows' ids (0 for the others);
    ids must be unique within each group, as for the pandas accessor."""
    ids = np.array(batch.column(ID_COL).to_pylist() + [None], dtype=object)[:-1]
    out = np.zeros(batch.num_rows, dtype=np.uint64)
    for g in range(groups.n_groups):
        rows = np.flatnonzero(kept & (groups.codes == g))
        values = ids[rows].tolist()
        if any(v is None for v in values):
            raise ValueError("Expected an example id in every scored row, got a null in "
                             "the id_col column; fix by filling the ids (each example is "
                             "one resampling unit).")
        out[rows] = example_keys(len(values), values)
    return out


def _weighted_sums(groups, columns: list[np.ndarray], hashes: np.ndarray | None, boot):
    """Rows ``(group, resample, column sums)``: resample -1 holds the plain sums (the
    only rows without ``boot``), then the sums weighted by each resample's weights.
    Integer sums are exact, the weighted ones by `mycelium.core.exactsum.limb_matrix`."""
    order, bounds = group_bounds(groups.codes, groups.n_groups)
    is_int = [a.dtype.kind == "i" for a in columns]
    n = columns[0].size
    ints = _matrix([a for a, i in zip(columns, is_int) if i], n, np.int64)[order]
    floats = _matrix([a for a, i in zip(columns, is_int) if not i], n, np.float64)[order]
    starts = bounds[:-1]  # every group of the batch has rows
    blocks = [(np.arange(groups.n_groups), np.full(groups.n_groups, -1),
               _exact_dot(None, ints, starts),
               np.add.reduceat(floats, starts, axis=0) if floats.shape[1] else
               np.zeros((groups.n_groups, 0)))]
    if boot is None:
        return _unstack(blocks, is_int)
    assert hashes is not None, "resampling needs the example keys"
    hashes = hashes[order]
    limbs = limb_matrix(list(ints.T), n)  # once per batch: (matrix, widths)
    for first in range(0, boot.n_resamples, CHUNK):
        chunk = range(first, min(boot.n_resamples, first + CHUNK))
        w = poisson_weights(hashes, boot.seed, chunk)
        for g in range(groups.n_groups):
            rows = slice(bounds[g], bounds[g + 1])
            blocks.append((np.full(len(chunk), g), np.arange(chunk.start, chunk.stop),
                           _exact_dot(w[:, rows], ints[rows], limbs=(limbs[0][rows],
                                                                     limbs[1])),
                           w[:, rows] @ floats[rows]))
    return _unstack(blocks, is_int)


def _unstack(blocks, is_int: list[bool]):
    """``(group, resample, [column sums])`` from blocks of rows, columns in input order."""
    g, r, int_sums, float_sums = (np.concatenate(parts) for parts in zip(*blocks))
    it_int, it_float = iter(int_sums.T), iter(float_sums.T)
    values = [np.ascontiguousarray(next(it_int) if i else next(it_float)) for i in is_int]
    return g, r, values


def _matrix(arrays: list[np.ndarray], n: int, dtype) -> np.ndarray:
    return np.stack(arrays, axis=1) if arrays else np.zeros((n, 0), dtype=dtype)


def _exact_dot(w: np.ndarray | None, m: np.ndarray, starts: np.ndarray | None = None,
               limbs=None) -> np.ndarray:
    """``w @ m`` for an int64 ``m``, exactly, as int64 (the Spark columns' type): plain
    sums per group of rows beginning at ``starts`` (no ``w``), else the weighted sums
    of ``limbs``, `mycelium.core.exactsum.limb_matrix` of ``m``'s columns (computed here if
    not given). A sum beyond
    int64 (more than 2**94 characters in a batch's group) is an error, never a wrapped
    value."""
    if w is None:
        assert starts is not None, "plain sums need the group starts"
        if not m.shape[1] or int(np.abs(m).max()) * m.shape[0] < 2**63:  # nothing wraps
            return (np.add.reduceat(m, starts, axis=0) if m.shape[1] else
                    np.zeros((starts.size, 0), np.int64))
        ends = np.append(starts[1:], m.shape[0])
        wide = [[sum(col[a:b].tolist()) for a, b in zip(starts, ends)] for col in m.T]
        return _checked_int64(wide, m.shape[1])
    matrix, widths = limb_matrix(list(m.T), m.shape[0]) if limbs is None else limbs
    total = reweight(w, matrix, integral=True)  # limbs of int64 columns
    if len(widths) == total.shape[1]:  # the common case: one limb per column
        return total
    sums = combine_limbs(total, widths, list(m.T))
    if all(s.dtype == np.int64 for s in sums):
        return np.stack(sums, axis=1) if sums else np.zeros((w.shape[0], 0), np.int64)
    return _checked_int64([s.tolist() for s in sums], m.shape[1])


def _checked_int64(sums: list[list[int]], n_columns: int) -> np.ndarray:
    """Exact column sums (Python ints) as int64 rows; a sum beyond int64 is an error."""
    if any(not -2**63 <= int(x) < 2**63 for col in sums for x in col):
        raise OverflowError("Expected each engine column's sum over a batch's group "
                            "below 2**63, got a larger one, at a Spark Arrow batch; fix "
                            "by using smaller Arrow batches "
                            "(spark.sql.execution.arrow.maxRecordsPerBatch).")
    return np.array(sums, dtype=np.int64).T.reshape(-1, n_columns)


# --------------------------------------------------------------------- the driver

@telling_empty_spans
def evaluate(sdf: pyspark.sql.DataFrame, ref_col: str, pred_col: str, *,
             text: str | None = None, by: By = None, profile: ProfileArg = None,
             metrics: Metrics = None, average: Average | None = None,
             zero_division: ZeroDivision = None, params: Params = None,
             missing: Missing = "error", as_spark: bool = False, ci: float | None = None,
             n_resamples: int = 1000, seed: int = 0, id_col: str | None = None,
             soft_ref_col: str | None = None, soft_pred_col: str | None = None,
             granularity: Granularity = "char", trim_spans: TrimSpans = None,
             type_field: str | None = None, typed_matching: bool = False,
             token_offsets_col: str | None = None, token_scores_col: str | None = None,
             threshold: float | None = None, offsets: str = "half-open"
             ) -> pd.DataFrame | pyspark.sql.DataFrame:
    """Tidy results of a PySpark DataFrame: one row per (group, metric, measure).

    Parameters
    ----------
    sdf : pyspark.sql.DataFrame
        Span columns of type ``array<struct<start: bigint, end: bigint>>`` (what
        `mycelium.write_parquet` writes and ``spark.read.parquet`` reads back; any
        integer fields, lists of ``[start, end]`` pairs and JSON strings are accepted too).
    ref_col, pred_col : str
        Reference and prediction span columns.
    text : str, optional
        Column of output texts (strings); spans must end within them.
    by : str or list of str, optional
        Group key columns. Null keys form their own group; groups are ordered as the
        pandas accessor orders them (`mycelium.frames.engine.group_codes`).
    profile, metrics, average, zero_division, params, missing
        As in `mycelium.evaluate` (``zero_division=None``: the profile's, else 0.0).
    as_spark : bool
        Return a Spark DataFrame (created on ``sdf``'s session; the signature is in the
        metadata of its ``value`` field) instead of a pandas DataFrame.
    ci : float, optional
        Confidence level of percentile-bootstrap intervals, added as columns
        ``ci_low`` and ``ci_high`` after ``value``, as the pandas accessor adds them.
        Needs ``id_col``.
    n_resamples, seed : int
        Resamples and seed of the intervals (recorded in the signature).
    id_col : str, optional
        Column of unique example ids: the resampling key of each example, and the name
        of a bad example in error messages.
    soft_ref_col, soft_pred_col, granularity, trim_spans, offsets
        As in the pandas accessor (`mycelium.frames.pandas.MyceliumAccessor.evaluate`),
        scored on the workers like the spans (soft labels:
        ``array<struct<start, end, prob>>`` or JSON strings; they add ``soft_spearman``).
    token_offsets_col, token_scores_col, threshold
        As in the pandas accessor, and so is ``soft_pred_col`` alone (a score column).
        The score metrics, ``response_level`` and the spans at a threshold are summed
        on the workers by mergeable statistics (`mycelium.frames.spark_scores`: per
        group and distinct score, the positive and negative characters), so only the
        summed rows reach the driver; with ``ci`` they are gathered as below.
    type_field, typed_matching
        As in the pandas accessor. The per-type rows are summed on the workers per
        (group, type) like every other statistic (`mycelium.frames.spark_typed`) when
        the span structs hold the type as a string field (``array<struct<start, end,
        label: string>>``); types in another form (JSON strings, a non-string field)
        are gathered on the driver and scored by the pandas accessor.

    Returns
    -------
    pandas.DataFrame or pyspark.sql.DataFrame
        Columns ``[*by, "metric", "measure", "value", "examples", "average",
        "profile", "signature"]`` (with ``ci``: ``ci_low``, ``ci_high`` after ``value``;
        ``signature``: the settings signature on every row); the pandas frame is the one
        ``pdf.mycelium.evaluate`` returns on the same rows, with the signature in
        ``attrs["mycelium_signature"]``.

    Raises
    ------
    SpanValidationError
        Bad spans: found on a worker, raised on the driver with the worker's message
        (naming the example by its ``id_col`` value when given).
    ValueError, TypeError, KeyError
        Bad options, column types or column names (checked before any Spark job).

    Notes
    -----
    Per Arrow batch, ``mapInArrow`` computes `mycelium.core.reduce.row_columns` with the
    core — the statistics themselves (micro) or each per-example value split into
    integer limbs below 2**28 (macro) — as the int64 columns of
    `mycelium.core.engine_sums` (spans are converted from Arrow by the core; no Python loop
    per row). Spark sums them with ``groupBy(*by).agg(sum)`` as ``bigint``, exact while
    every sum stays below 2**63: for macro at least 2**32 rows per group (limbs below
    2**28 allow 2**35; the residual column, below 2**31, is zero for every value of
    2**-31 or more); for micro, a length statistic travels as two limbs (``x mod 2**31``
    and ``x >> 31``), so a group may hold 2**32 rows totalling 2**94 characters, and
    counts (spans, matches) stay one column below 2**63. Spark's ANSI mode
    (the default from Spark 4) raises on overflow; without it a sum would wrap. Only
    the float *rests* of `mycelium.core.engine_sums` (zero unless a value is below 2**-63)
    are summed as doubles. The driver adds up Spark groups that pandas merges (NaN and
    null keys) and finishes with `mycelium.core.reduce.values_from_sums`, so every value
    equals the pandas accessor's.

    With ``ci``, example i's weight in resample r is `mycelium.stats.bootstrap.poisson_weights`
    of the hash of its id (`mycelium.stats.bootstrap.example_keys`) and ``seed``: a pure
    function of the row, so intervals do not depend on partitioning and equal
    ``pdf.mycelium.evaluate(..., ci=..., id_col=...)``, and ``mycelium.evaluate(...,
    ci=..., ids=...)`` on each group's rows. Each batch emits
    its groups' sums weighted per resample ((R + 1) rows per group and batch, never a
    row per example and resample); Spark sums them per group and resample. Hashing the
    ids (``repr`` of each value, as the core does) is the one Python loop per row.
    Ids must be unique within each group (checked within each batch).

    Examples
    --------
    With a Spark session ``spark`` (skipped by the doctests, as starting one needs Java and
    a local JVM; ``tests/frames/spark`` runs this very example with its session and checks
    its output):

    >>> from mycelium.frames import spark as myspark
    >>> sdf = spark.createDataFrame(  # doctest: +SKIP
    ...     [("a", [(0, 10)], [(2, 8)]), ("a", [(4, 7)], [(4, 7)]), ("b", [(0, 5)], [])],
    ...     "model string, ref array<struct<start: bigint, end: bigint>>, "
    ...     "pred array<struct<start: bigint, end: bigint>>")
    >>> out = myspark.evaluate(sdf, "ref", "pred", by="model", metrics="iou")  # doctest: +SKIP
    >>> out.drop(columns="signature")  # doctest: +SKIP
      model metric measure  value  examples average profile
    0     a    iou   score    0.8         2   macro    None
    1     b    iou   score    0.0         1   macro    None
    """
    arguments = dict(locals())  # first: the face's arguments, every option among them
    from . import scores
    from .spark_checks import check_columns

    if type_field is not None and _typed_on_workers(sdf, arguments):
        return _typed(sdf, arguments)
    scored = scores.soft_from_spans(profile, soft_ref_col, soft_pred_col) or scores.wanted(
        pred_col, soft_ref_col, soft_pred_col, token_offsets_col, token_scores_col, threshold,
        metrics, profile=profile)
    if type_field is not None or scored:
        typed_options(frames.face_call(arguments)[1])  # refused before any row is gathered
        check_columns(sdf, {"ref_col": ref_col, "pred_col": pred_col, "text": text,
                            "id_col": id_col, "soft_ref_col": soft_ref_col,
                            "soft_pred_col": soft_pred_col,
                            "token_offsets_col": token_offsets_col,
                            "token_scores_col": token_scores_col,
                            **{f"by[{i}]": b for i, b in enumerate(frames.normalize_by(by))}},
                      ci=ci)
        columns = {k: arguments[k] for k in ("text", "id_col", "soft_ref_col",
                                             "soft_pred_col", "token_offsets_col",
                                             "token_scores_col")}
        # The options, passed on to the pandas face that scores each group.
        options = {k: v for k, v in arguments.items()
                   if k not in (*columns, "sdf", "ref_col", "pred_col", "by", "as_spark")}
        from .spark_scores import distributed_scores

        # The per-label rows of soft_spearman_by_label (profile shroom_visions) are not
        # sums over rows: its columns are gathered and scored by the pandas face.
        # Inclusive ends are read by the pandas face too (the workers' sums read half-open).
        out = None if scores.soft_from_spans(profile, soft_ref_col, soft_pred_col) \
            or offsets != "half-open" else \
            distributed_scores(sdf, ref_col, pred_col, by=by, as_spark=as_spark,
                               columns=columns, options=options)
        if out is not None:
            return out
        return collected(sdf, ref_col, pred_col, by=by, as_spark=as_spark, columns=columns,
                         options=options)
    soft = soft_given(soft_ref_col, soft_pred_col)
    settings = frames.face_call(arguments)[1]
    settings = settings.scoring(settings.asked, soft=soft)
    names = frames.normalize_by(by)
    check_inputs(sdf, ref_col, pred_col, text, names, id_col, settings)
    if soft:
        check_columns(sdf, {"soft_ref_col": soft_ref_col, "soft_pred_col": soft_pred_col})
    from pyspark.sql import functions as F

    layout = engine_layout(settings)
    keys = [f"__k{i}" for i in range(len(names))]
    boot = settings.bootstrap is not None
    worker = partial(_group_batches, settings=settings, layout=layout, keys=keys)
    mapped = select_inputs(sdf, ref_col, pred_col, text, names, id_col,
                     (soft_ref_col, soft_pred_col) if soft else None).mapInArrow(
        worker, mapped_schema(sdf, names, keys, layout, boot))
    values = [N_COL] + [name for name, _, _ in _spark_names(layout)]
    summed = mapped.groupBy(*keys, *([R_COL] if boot else [])).agg(
        *[F.sum(name).alias(name) for name in (*values, EMPTY_REF_COL, EMPTY_PRED_COL)],
        F.min(EMPTY_FIRST_COL).alias(EMPTY_FIRST_COL))
    sums_table = collect_sums(summed)
    warn_empty(sums_table, (EMPTY_REF_COL, EMPTY_PRED_COL, EMPTY_FIRST_COL))
    tidy = _finish(sums_table, settings, layout, names, keys)
    if as_spark:
        return to_spark(sdf, tidy, names)
    from .to_pandas import tidy_to_pandas

    return tidy_to_pandas(tidy, dict.fromkeys(names), signature_column=True)


def _typed_on_workers(sdf, arguments: dict) -> bool:
    """Whether the per-type rows of a call are summed on the workers: spans alone (no
    scores, soft labels or intervals, which take the paths above), untrimmed, with
    types that Spark holds as strings in the span structs (other forms are gathered)."""
    from .spark_typed import string_types
    from .typed_sums import summable

    a = arguments
    if not summable(a):
        return False
    sides = [a["ref_col"]] + ([a["pred_col"]] if a["typed_matching"] else [])
    return all(string_types(sdf, name, a["type_field"]) for name in sides)


def _typed(sdf, arguments: dict):
    """The per-type rows, summed on the workers (`mycelium.frames.spark_typed`)."""
    from .spark_typed import typed_on_workers
    from .typed_sums import typed_plan

    settings = frames.face_call(arguments)[1]
    settings = settings.scoring(settings.asked, soft=False)
    names = frames.normalize_by(arguments["by"])
    ref_col, pred_col, text = arguments["ref_col"], arguments["pred_col"], arguments["text"]
    check_inputs(sdf, ref_col, pred_col, text, names, arguments["id_col"], settings)
    plan = typed_plan(settings)
    selected = select_inputs(sdf, ref_col, pred_col, text, names, None)
    tidy = typed_on_workers(sdf, plan=plan, names=names, selected=selected)
    if arguments["as_spark"]:
        return to_spark(sdf, tidy, names + [frames.TYPE_COLUMN], extra={frames.TYPE_COLUMN})
    from .to_pandas import tidy_to_pandas

    return tidy_to_pandas(tidy, dict.fromkeys(names), signature_column=True)


def _finish(table: pa.Table, settings: Settings, layout, names, keys) -> pa.Table:
    """The tidy table from the collected per-(Spark group[, resample]) sums."""
    key_table = table.select(keys).rename_columns(names) if keys else None
    groups = frames.group_codes(key_table, table.num_rows)
    estimate = np.ones(table.num_rows, dtype=bool)
    if settings.bootstrap is not None:
        resample = table.column(R_COL).to_numpy().astype(np.int64)
        estimate = resample < 0
    examples, sums = _final_sums(table.filter(pa.array(estimate)), groups.codes[estimate],
                                 groups.n_groups, settings, layout)
    tidy = frames.tidy_from_sums(sums, examples, groups, settings)
    if settings.bootstrap is None:
        return tidy
    rest = ~estimate
    return _with_intervals(tidy, table.filter(pa.array(rest)), groups.codes[rest],
                           resample[rest], groups.n_groups, settings, layout)


def _final_sums(table: pa.Table, codes: np.ndarray, n_groups: int, settings, layout):
    """Examples and `row_columns` sums per final group (`engine_sums` decodes them; Spark
    groups that pandas merges, NaN and null keys, are added up here)."""
    def column(name):  # Spark's bigint sums are int64 (exact_ints' form); null: no rows
        return table.column(name).fill_null(0).to_numpy()

    examples = group_sums({N_COL: column(N_COL)}, codes, n_groups)[N_COL]
    partials = {label: column(name) for name, label, _ in _spark_names(layout)}
    return examples, reduce_engine_sums(partials, codes, n_groups, settings, layout)


def _with_intervals(tidy: pa.Table, table: pa.Table, codes, resample, n_groups: int,
                    settings: Settings, layout) -> pa.Table:
    """``ci_low`` and ``ci_high`` after ``value``, as `mycelium.frames.engine.with_intervals`:
    the resampled values of `mycelium.stats.bootstrap.resampled_values`, from Spark's sums."""
    b = settings.bootstrap
    assert b is not None, "intervals are computed only for settings with ci"
    # weights, sums: per (group, resample), the summed weights and the exact sums
    weights, sums = _final_sums(table, codes * b.n_resamples + resample,
                                n_groups * b.n_resamples, settings, layout)
    values = values_from_sums(sums, settings)
    leave_out_empty(values, weights)  # resamples that drew no example, as bootstrap.py
    estimates = iter(tidy.column("value").to_pylist())
    low, high = [], []
    for g in range(n_groups):
        part = slice(g * b.n_resamples, (g + 1) * b.n_resamples)
        for metric in settings.metrics:
            for arr in values[metric].values():
                lo, hi = percentile_interval(arr[part], b.ci, next(estimates))
                low.append(lo)
                high.append(hi)
    at = tidy.schema.get_field_index("value") + 1
    tidy = tidy.add_column(at, "ci_low", pa.array(low, pa.float64()))
    return tidy.add_column(at + 1, "ci_high", pa.array(high, pa.float64()))
