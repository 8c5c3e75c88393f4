"""The Polars face: a ``mycelium`` namespace on ``pl.DataFrame``, ``pl.LazyFrame`` and ``pl.Expr``.

A thin adapter over `mycelium.frames` (registered by ``import mycelium`` as soon as Polars
is imported): eager frames are scored by the same functions as the pandas accessor, and
the lazy plan computes per-row statistics batch by batch, then reduces them with the
same functions, so every face gives the same numbers bit for bit.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from . import frames
from .errors import SpanValidationError
from .aggregate import per_example
from .evaluate import compute_statistics, prepare
from .metrics import METRICS, unknown_name
from .settings import Settings, resolve_settings
from .spans import SPAN_TYPE

__all__ = ["SPAN_DTYPE", "MyceliumFrame", "MyceliumLazyFrame", "MyceliumExpr"]

#: The Polars dtype of a span column (`mycelium.SPAN_TYPE` in Polars terms).
SPAN_DTYPE = pl.List(pl.Struct({"start": pl.Int64, "end": pl.Int64}))

_ROW = "__mycelium_row__"        # the frame position of each row in lazy plans
_STATS = "__mycelium_stats__"    # the Struct column of per-row statistics
_COUNT = "__mycelium_examples__"
_SUM = "__mycelium_sum__"        # prefix of the summed statistics (micro pre-aggregation)
_TIDY = {"metric": pl.String, "measure": pl.String, "value": pl.Float64,
         "examples": pl.Int64, "average": pl.String, "profile": pl.String}


# ------------------------------------------------------------------ DataFrame

@pl.api.register_dataframe_namespace("mycelium")
class MyceliumFrame:
    """Score span columns of a Polars DataFrame: ``df.mycelium.evaluate(...)``, ``.score(...)``.

    Span columns are `SPAN_DTYPE` (``List(Struct{start, end})``, extra struct fields
    ignored), lists of ``[start, end]`` pairs, or JSON strings.

    Examples
    --------
    >>> import polars as pl, mycelium
    >>> from mycelium.polars_ext import SPAN_DTYPE
    >>> df = pl.DataFrame({"model": ["a", "a", "b"],
    ...                    "ref": [[{"start": 0, "end": 10}], [{"start": 4, "end": 7}],
    ...                            [{"start": 0, "end": 5}]],
    ...                    "pred": [[{"start": 2, "end": 8}], [{"start": 4, "end": 7}], []]},
    ...                   schema_overrides={"ref": SPAN_DTYPE, "pred": SPAN_DTYPE})
    >>> out = df.mycelium.evaluate("ref", "pred", by="model", metrics="iou")
    >>> out.columns
    ['model', 'metric', 'measure', 'value', 'examples', 'average', 'profile']
    >>> out.select("model", "value", "examples").rows()
    [('a', 0.8, 2), ('b', 0.0, 1)]
    >>> df.mycelium.score("ref", "pred", metrics="iou")["iou_score"].to_list()
    [0.6, 1.0, 0.0]
    """

    def __init__(self, df: pl.DataFrame) -> None:
        self._df = df

    def evaluate(self, ref_col: str, pred_col: str, *, text: str | None = None, by=None,
                 profile=None, metrics=None, average=None, zero_division=None, params=None,
                 missing: str = "error", with_signature: bool = False) -> pl.DataFrame:
        """Tidy results: one row per (group, metric, measure).

        Parameters
        ----------
        ref_col, pred_col : str
            Span columns.
        text : str, optional
            Column of output texts; spans must end within them.
        by : str or list of str, optional
            Group key columns. Null keys form their own group; groups are sorted by key
            (nulls last), in the same order as the pandas accessor.
        profile, metrics, average, zero_division, params, missing
            As in `mycelium.evaluate`.
        with_signature : bool
            Add a last column ``signature`` holding the settings signature (Polars frames
            have no ``attrs``; `mycelium.parse_signature` reads it back).

        Returns
        -------
        polars.DataFrame
            Columns ``[*by, "metric", "measure", "value", "examples", "average",
            "profile"]``. Each group's values equal `mycelium.evaluate` on that group's
            rows, bit for bit; ``examples`` sums to the rows scored.

        Raises
        ------
        KeyError
            A column is missing (the message lists the frame's columns).
        """
        names = frames.normalize_by(by)
        _check_columns(self._df.columns, ref_col, pred_col, text, names)
        groups = None
        if names:
            groups = frames.group_codes(self._df.select(names).to_arrow(), self._df.height)
        table = frames.evaluate_table(
            self._df[ref_col], self._df[pred_col],
            text=None if text is None else self._df[text], groups=groups, profile=profile,
            metrics=metrics, average=average, zero_division=zero_division, params=params,
            missing=missing)
        out = _to_polars(table, with_signature)
        return out.cast({name: self._df.schema[name] for name in names})

    def score(self, ref_col: str, pred_col: str, *, text: str | None = None, profile=None,
              metrics=None, zero_division=None, params=None, missing: str = "error",
              with_signature: bool = False) -> pl.DataFrame:
        """Per-row measures: one Float64 column ``<metric>_<measure>`` each, same row order.

        Rows left out by ``missing="drop"`` are null; an undefined value under
        ``zero_division="nan"`` is NaN. The caller's frame is not modified; attach the
        result with ``df.hstack(df.mycelium.score(...))``. Arguments are those of
        `evaluate` (there is no ``average``: every row is one example).
        """
        _check_columns(self._df.columns, ref_col, pred_col, text, [])
        table = frames.score_table(
            self._df[ref_col], self._df[pred_col],
            text=None if text is None else self._df[text], profile=profile, metrics=metrics,
            zero_division=zero_division, params=params, missing=missing)
        return _to_polars(table, with_signature)


# ------------------------------------------------------------------ LazyFrame

@pl.api.register_lazyframe_namespace("mycelium")
class MyceliumLazyFrame:
    """Lazy scoring: ``lf.mycelium.evaluate(...)`` is a LazyFrame that runs on ``collect()``.

    The plan reads only the span, text and key columns, computes each row's sufficient
    statistics batch by batch (on Polars' streaming engine with
    ``collect(engine="streaming")``, so span columns are never held for all rows),
    and reduces them per group with `mycelium.frames`, the engine of every face.

    Examples
    --------
    >>> import os, tempfile, polars as pl, mycelium
    >>> df = pl.DataFrame({"model": ["a", "a", "b"],
    ...                    "ref": [[[0, 10]], [[4, 7]], [[0, 5]]],
    ...                    "pred": [[[2, 8]], [[4, 7]], []]})
    >>> path = os.path.join(tempfile.mkdtemp(), "spans.parquet")
    >>> df.write_parquet(path)
    >>> plan = pl.scan_parquet(path).mycelium.evaluate("ref", "pred", by="model",
    ...                                                metrics="character", average="micro")
    >>> isinstance(plan, pl.LazyFrame)
    True
    >>> out = plan.collect(engine="streaming")
    >>> out.filter(pl.col("measure") == "recall").select("model", "value").rows()
    [('a', 0.6923076923076923), ('b', 0.0)]
    >>> out.equals(df.mycelium.evaluate("ref", "pred", by="model", metrics="character",
    ...                                 average="micro"))
    True
    """

    def __init__(self, lf: pl.LazyFrame) -> None:
        self._lf = lf

    def evaluate(self, ref_col: str, pred_col: str, *, text: str | None = None, by=None,
                 profile=None, metrics=None, average=None, zero_division=None, params=None,
                 missing: str = "error", with_signature: bool = False) -> pl.LazyFrame:
        """Tidy results as a LazyFrame; arguments and result as `MyceliumFrame.evaluate`.

        Options and column names are checked now (from the schema, without reading
        data); span errors surface on ``collect()`` with the row's frame position.

        Notes
        -----
        Each row's statistics (and per-example values) are computed on their own, so
        batching never changes them. The reduction then depends on the average:

        - micro, when every statistic is an integer (all metrics but ``cleval_1d``): the
          statistics are summed per group by Polars (``group_by().agg(sum)`` in
          Int128, exact), and one row per group reaches mycelium, which finalises
          each group from its exact sums. Memory: O(groups).
        - macro: a macro value is numpy's pairwise mean of the per-example values in
          row order, and a float sum depends on its order, so no engine-side sum can
          reproduce it bit for bit. The per-example values of every row (8 bytes per
          measure: 8 for ``iou``, 128 for all six metrics, plus the key values) are
          collected, put back in row order, and averaged per group by mycelium
          exactly as `mycelium.evaluate` does.
        - micro with ``cleval_1d`` (whose credits are float statistics, summed by
          numpy in row order): as macro, with the statistics of every row (240 bytes
          per row for all six metrics).

        On the streaming engine span columns are held only a batch of rows at a time
        (per thread), however large the input; use ``collect(engine="streaming")``
        for large inputs, as the in-memory engine scores all rows in one batch.
        """
        settings = resolve_settings(profile=profile, metrics=metrics, average=average,
                                    zero_division=zero_division, params=params,
                                    missing=missing)
        names = frames.normalize_by(by)
        schema = self._lf.collect_schema()
        _check_columns(schema.names(), ref_col, pred_col, text, names)
        macro = settings.average == "macro"
        fields = _value_fields(settings) if macro else _stat_fields(settings)
        labels = [f"{m}/{k}" for m, k, _ in fields]
        per_row = _inputs(ref_col, pred_col, text, row=True).map_batches(
            partial(_batch_statistics, settings=settings, fields=fields, labels=labels,
                    measures=macro),
            return_dtype=pl.Struct({lab: d for lab, (_, _, d) in zip(labels, fields)}),
            is_elementwise=True)
        rows = self._lf.with_row_index(_ROW).select(*names, _ROW, per_row.alias(_STATS))
        out_schema = {name: schema[name] for name in names} | _TIDY
        if with_signature:
            out_schema["signature"] = pl.String
        finish: dict[str, Any] = dict(settings=settings, names=names, fields=fields,
                                      labels=labels, schema=out_schema)
        if not macro and all(d == pl.Int64 for _, _, d in fields):
            sums = [pl.col(_STATS).struct.field(lab).cast(pl.Int128).sum().alias(_SUM + lab)
                    for lab in labels]
            sums += [pl.col(_STATS).is_not_null().sum().alias(_COUNT), pl.col(_ROW).min()]
            partials = rows.group_by(names).agg(sums) if names else rows.select(sums)
            return partials.map_batches(partial(_finish_sums, **finish), schema=out_schema)
        return rows.map_batches(partial(_finish_rows, **finish), schema=out_schema)

    def score(self, ref_col: str, pred_col: str, *, text: str | None = None, profile=None,
              metrics=None, zero_division=None, params=None,
              missing: str = "error") -> pl.LazyFrame:
        """Per-row measures as a LazyFrame, computed batch by batch (streamable).

        The result is `MyceliumFrame.score` of the collected frame: one Float64 column
        ``<metric>_<measure>`` per measure, in row order.
        """
        options = dict(profile=profile, metrics=metrics, zero_division=zero_division,
                       params=params, missing=missing)
        settings = resolve_settings(**options)
        _check_columns(self._lf.collect_schema().names(), ref_col, pred_col, text, [])
        columns = [f"{m}_{k}" for m in settings.metrics for k in METRICS[m].measures]
        scores = _inputs(ref_col, pred_col, text, row=True).map_batches(
            partial(_batch_scores, options=options),
            return_dtype=pl.Struct({c: pl.Float64 for c in columns}), is_elementwise=True)
        return (self._lf.with_row_index(_ROW).select(scores.alias(_STATS))
                .unnest(_STATS))


# ----------------------------------------------------------------------- Expr

@pl.api.register_expr_namespace("mycelium")
class MyceliumExpr:
    """Per-row statistics and scores as expressions: ``pl.col("ref").mycelium.statistics(...)``.

    Both are element-wise (one value per row, usable in ``select``, ``with_columns``
    and inside ``group_by().agg()``), so they stream batch by batch.

    Examples
    --------
    Summing the statistics per group gives the micro average of the frame face:

    >>> import polars as pl, mycelium
    >>> df = pl.DataFrame({"model": ["a", "a", "b"],
    ...                    "ref": [[[0, 10]], [[4, 7]], [[0, 5]]],
    ...                    "pred": [[[2, 8]], [[4, 7]], []]})
    >>> st = pl.col("ref").mycelium.statistics("pred", metric="iou")
    >>> sums = (df.group_by("model").agg(st.struct.field("inter").sum(),
    ...                                  st.struct.field("union").sum())
    ...           .sort("model")
    ...           .with_columns(score=pl.col("inter") / pl.col("union")))
    >>> sums.rows()
    [('a', 9, 13, 0.6923076923076923), ('b', 0, 5, 0.0)]
    >>> frame = df.mycelium.evaluate("ref", "pred", by="model", metrics="iou",
    ...                              average="micro")
    >>> frame["value"].to_list() == sums["score"].to_list()
    True
    >>> scores = df.select(pl.col("ref").mycelium.score("pred", metric="iou",
    ...                                                  measure="score"))
    >>> scores.to_dict(as_series=False)
    {'iou_score': [0.6, 1.0, 0.0]}
    """

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def statistics(self, predictions: str | pl.Expr, *, metric: str,
                   text: str | pl.Expr | None = None, params=None,
                   missing: str = "error") -> pl.Expr:
        """The per-row sufficient statistics of one metric, as a Struct named ``metric``.

        Parameters
        ----------
        predictions : str or polars.Expr
            The predicted spans (this expression holds the references).
        metric : str
            A span metric name (``"iou"``, ``"character"``, ...); its statistics are the
            Struct's fields (see ``mycelium.metrics.<metric>``).
        text, params, missing
            As in `mycelium.evaluate`; ``text`` is a column name or an expression.
            Rows left out by ``missing="drop"`` are null.
        """
        settings = resolve_settings(metrics=[_one_metric(metric)], params=params,
                                    missing=missing)
        fields = _stat_fields(settings)
        labels = [k for _, k, _ in fields]
        return _inputs(self._expr, predictions, text).map_batches(
            partial(_batch_statistics, settings=settings, fields=fields, labels=labels),
            return_dtype=pl.Struct({lab: d for lab, (_, _, d) in zip(labels, fields)}),
            is_elementwise=True).alias(metric)

    def score(self, predictions: str | pl.Expr, *, metric: str, measure: str,
              text: str | pl.Expr | None = None, profile=None, zero_division=None,
              params=None, missing: str = "error") -> pl.Expr:
        """Per-row values of one measure, a Float64 named ``<metric>_<measure>``.

        Equal to the column of the same name of `MyceliumFrame.score`.
        """
        options = dict(profile=profile, metrics=[_one_metric(metric)],
                       zero_division=zero_division, params=params, missing=missing)
        resolve_settings(**options)  # check the options now, not on collect
        if measure not in METRICS[metric].measures:
            raise unknown_name(f"{metric} measure", measure, METRICS[metric].measures)
        name = f"{metric}_{measure}"
        return _inputs(self._expr, predictions, text).map_batches(
            partial(_batch_scores, options=options, column=name),
            return_dtype=pl.Float64, is_elementwise=True).alias(name)


# -------------------------------------------------------------------- helpers

def _check_columns(columns, ref_col, pred_col, text, by: list[str]) -> None:
    """KeyError (listing the columns) for a missing column; TypeError for a non-name."""
    roles = [("ref_col", ref_col), ("pred_col", pred_col)] + [("by", n) for n in by]
    if text is not None:
        roles.append(("text", text))
    for role, name in roles:
        if not isinstance(name, str):
            raise TypeError(f"{role} is a {type(name).__name__}; expected a column name.")
        if name not in columns:
            raise KeyError(f"{role} column {name!r} not found; the frame has columns "
                           f"{list(columns)}.")


def _to_polars(table: pa.Table, with_signature: bool) -> pl.DataFrame:
    out = pl.from_arrow(table)
    if with_signature:
        out = out.with_columns(signature=pl.lit(frames.signature_of(table), pl.String))
    return out


def _expr(x, role: str) -> pl.Expr:
    if isinstance(x, str):
        return pl.col(x)
    if isinstance(x, pl.Expr):
        return x
    raise TypeError(f"{role} is a {type(x).__name__}; expected a column name or a "
                    "polars expression.")


def _inputs(ref, pred, text, *, row: bool = False) -> pl.Expr:
    """One Struct expression holding what a batch of rows needs."""
    parts = {"ref": _expr(ref, "references"), "pred": _expr(pred, "predictions")}
    if text is not None:
        parts["text"] = _expr(text, "text")
    if row:
        parts["row"] = pl.col(_ROW)
    return pl.struct(**parts)


def _one_metric(metric) -> str:
    if not isinstance(metric, str):
        raise TypeError(f"metric is a {type(metric).__name__}; expected one metric name "
                        f"from: {', '.join(METRICS)}.")
    if metric not in METRICS:
        raise unknown_name("metric", metric, METRICS)
    return metric


def _value_fields(settings: Settings) -> list[tuple[str, str, Any]]:
    """(metric, measure, Float64) of every per-example value."""
    return [(m, k, pl.Float64) for m in settings.span_metrics for k in METRICS[m].measures]


def _stat_fields(settings: Settings) -> list[tuple[str, str, Any]]:
    """(metric, statistic, Polars dtype) of every statistic, read off an empty batch."""
    empty = pa.array([], SPAN_TYPE)
    prepared = prepare(empty, empty)
    stats = compute_statistics(prepared.refs, prepared.preds, settings.span_metrics,
                               settings.params)
    return [(m, k, pl.Int64 if v.dtype.kind in "iu" else pl.Float64)
            for m, st in stats.items() for k, v in st.items()]


def _prepare_batch(batch: pl.Series, missing: str):
    """Validate and canonicalise one batch; errors name the row's frame position."""
    fields = batch.struct.fields
    text = batch.struct.field("text") if "text" in fields else None
    try:
        return prepare(batch.struct.field("ref"), batch.struct.field("pred"), text=text,
                       missing=missing)
    except SpanValidationError as exc:
        if "row" not in fields or exc.example is None:
            raise
        row = int(batch.struct.field("row")[exc.example])
        message = str(exc).replace(f"{exc.side} example {exc.example}",
                                   f"{exc.side} example {row}", 1)
        raise SpanValidationError(message, side=exc.side, example=row,
                                  span=exc.span) from None


def _batch_statistics(batch: pl.Series, *, settings: Settings, fields, labels,
                      measures: bool = False) -> pl.Series:
    """Per-row statistics (or per-example values) of one batch as a Struct Series.

    Rows left out by ``missing="drop"`` are null.
    """
    prepared = _prepare_batch(batch, settings.missing)
    stats = compute_statistics(prepared.refs, prepared.preds, settings.span_metrics,
                               settings.params)
    if measures:
        stats = per_example(stats, zero_division=settings.zero_division,
                            params=settings.params)
    kept = prepared.kept
    mask = None if kept.all() else ~kept
    arrays = []
    for metric, stat, dtype in fields:
        full = np.zeros(kept.size, dtype=np.int64 if dtype == pl.Int64 else np.float64)
        full[kept] = stats[metric][stat]
        arrays.append(pa.array(full, mask=mask))
    struct = pa.StructArray.from_arrays(
        arrays, names=labels, mask=None if mask is None else pa.array(mask))
    return pl.Series(batch.name, struct)


def _batch_scores(batch: pl.Series, *, options: dict, column: str | None = None
                  ) -> pl.Series:
    """`frames.score_table` of one batch: a Struct of all measures, or one column."""
    fields = batch.struct.fields
    try:
        table = frames.score_table(
            batch.struct.field("ref"), batch.struct.field("pred"),
            text=batch.struct.field("text") if "text" in fields else None, **options)
    except SpanValidationError:
        _prepare_batch(batch, options["missing"])  # re-raise with the row's position
        raise
    out = pl.from_arrow(table)
    if column is not None:
        return out[column].alias(batch.name)
    return out.to_struct(batch.name)


def _finish_rows(df: pl.DataFrame, *, settings, names, fields, labels, schema
                 ) -> pl.DataFrame:
    """Reduce every row's statistics or values, in row order, as `mycelium.evaluate`."""
    if not df[_ROW].is_sorted():
        df = df.sort(_ROW)  # evaluate sums in row order, whatever order batches came in
    kept = df[_STATS].is_not_null().to_numpy()
    keys = df.select(names).to_arrow() if names else None
    groups = frames.group_codes(keys, df.height)
    scored = df[_STATS] if kept.all() else df[_STATS].filter(pl.Series(kept))
    per_row: dict[str, dict[str, np.ndarray]] = {}
    for (metric, name, _), label in zip(fields, labels):
        per_row.setdefault(metric, {})[name] = scored.struct.field(label).to_numpy()
    codes = groups.codes[kept]
    if settings.average == "macro":
        table = frames.tidy_table({}, settings, codes, groups, example_values=per_row)
    else:
        table = frames.tidy_table(per_row, settings, codes, groups)
    return _result(table, settings, schema)


def _finish_sums(df: pl.DataFrame, *, settings, names, fields, labels, schema
                 ) -> pl.DataFrame:
    """Finalise micro values from the exact per-group sums of Polars' group_by.

    Partial groups are ordered by their first row and grouped again by
    `frames.group_codes`, which merges keys pandas considers equal (NaN and null) and
    keeps the key value of the group's first row, as the eager faces do.
    """
    df = df.sort(_ROW, nulls_last=True)
    keys = df.select(names).to_arrow() if names else None
    groups = frames.group_codes(keys, df.height)
    stats: dict[str, dict[str, np.ndarray]] = {}
    for (metric, stat, _), label in zip(fields, labels):
        exact = df[_SUM + label].fill_null(0).to_list()  # Python ints, exact
        stats.setdefault(metric, {})[stat] = np.array(exact, dtype=object)
    examples = df[_COUNT].cast(pl.Int64).to_numpy()
    table = frames.tidy_table(stats, settings, groups.codes, groups, examples=examples)
    return _result(table, settings, schema)


def _result(table: pa.Table, settings: Settings, schema) -> pl.DataFrame:
    out = pl.from_arrow(table)
    if "signature" in schema:
        out = out.with_columns(signature=pl.lit(settings.signature(), pl.String))
    return out.cast(schema)
