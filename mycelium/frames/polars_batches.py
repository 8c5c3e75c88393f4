"""The Polars faces' shared pieces: the span dtype, the working column names, and the
batch functions that turn a Polars batch of ``ref``/``pred`` structs into the core's
statistics or values (used by the eager namespace in `mycelium.frames.polars` and the
lazy one in `mycelium.frames.polars_lazy`; neither face imports the other).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from ..core.aggregate import per_example
from ..core.inputs import Inputs
from ..core.pipeline import (EmptyAt, Told, compute_statistics, empty_spans_told, prepare,
                             warn_empty_spans)
from ..core.settings import Settings
from ..core.spans import SPAN_TYPE
from ..errors import SpanValidationError
from ..metrics import METRICS, unknown_name
from . import engine as frames

#: The Polars dtype of a span column (`mycelium.SPAN_TYPE` in Polars terms).
SPAN_DTYPE = pl.List(pl.Struct({"start": pl.Int64, "end": pl.Int64}))

ROW = "__mycelium_row__"        # the frame position of each row in lazy plans
STATS = "__mycelium_stats__"    # the Struct column of per-row statistics
COUNT = "__mycelium_examples__"  # 1 per row scored (summed: the examples of a group)
TIDY = {"metric": pl.String, "measure": pl.String, "value": pl.Float64,
         "examples": pl.Int64, "average": pl.String, "profile": pl.String}


def check_columns(columns, ref_col, pred_col, text, by: list[str]) -> None:
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


def polars_frame(table: pa.Table) -> pl.DataFrame:
    """``pl.from_arrow`` of a table (always a DataFrame; its type says DataFrame | Series)."""
    out = pl.from_arrow(table)
    assert isinstance(out, pl.DataFrame)
    return out


def to_polars(table: pa.Table, with_signature: bool) -> pl.DataFrame:
    out = polars_frame(table)
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


def batch_inputs(ref, pred, text, *, row: bool = False, soft_ref=None, soft_pred=None
            ) -> pl.Expr:
    """One Struct expression holding what a batch of rows needs."""
    parts = {"ref": _expr(ref, "references"), "pred": _expr(pred, "predictions")}
    if text is not None:
        parts["text"] = _expr(text, "text")
    if soft_ref is not None:
        parts["soft_ref"] = _expr(soft_ref, "soft references")
        parts["soft_pred"] = _expr(soft_pred, "soft predictions")
    if row:
        parts["row"] = pl.col(ROW)
    return pl.struct(*(expr.alias(name) for name, expr in parts.items()))


def one_metric(metric) -> str:
    if not isinstance(metric, str):
        raise TypeError(f"metric is a {type(metric).__name__}; expected one metric name "
                        f"from: {', '.join(METRICS)}.")
    if metric not in METRICS:
        raise unknown_name("metric", metric, METRICS)
    return metric


def stat_fields(settings: Settings) -> list[tuple[str, str, Any]]:
    """(metric, statistic, Polars dtype) of every statistic, read off an empty batch."""
    empty = pa.array([], SPAN_TYPE)
    prepared = prepare(empty, empty)
    stats = compute_statistics(prepared.refs, prepared.preds, settings.span_metrics,
                               settings.params)
    return [(m, k, pl.Int64 if v.dtype.kind in "iu" else pl.Float64)
            for m, st in stats.items() for k, v in st.items()]


def prepare_batch(batch: pl.Series, missing: str, settings: Settings | None = None, *,
                  warn_empty: bool = True):
    """Validate and canonicalise one batch (in the units and with the span edges of
    ``settings``: `mycelium.evaluate.prepare_for`); errors name the row's frame position.
    A face that scores one call in batches passes ``warn_empty=False`` and warns once."""
    from ..evaluate import prepare_for

    fields = batch.struct.fields
    text = batch.struct.field("text") if "text" in fields else None
    try:
        if settings is not None and (settings.granularity != "char"
                                     or settings.trim_spans is not None):
            return prepare_for(batch.struct.field("ref"), batch.struct.field("pred"),
                               settings, text=text, warn_empty=warn_empty)
        return prepare(batch.struct.field("ref"), batch.struct.field("pred"), text=text,
                       missing=missing,
                       offsets=settings.offsets if settings is not None else "half-open",
                       warn_empty=warn_empty)
    except SpanValidationError as exc:
        if exc.example is None:
            raise
        if "row" not in fields:  # an expression: Polars hands it batches of rows
            raise SpanValidationError(
                f"{exc} (example {exc.example} counts the rows of the batch Polars "
                "evaluated the expression on, from 0: the frame row in an eager select, "
                "not in a streaming one)", side=exc.side, example=exc.example,
                span=exc.span) from None
        row = int(batch.struct.field("row")[exc.example])
        message = str(exc).replace(f"{exc.side} example {exc.example}",
                                   f"{exc.side} example {row}", 1)
        raise SpanValidationError(
            f"{message} (example {row} is the row's position in the LazyFrame's rows as "
            "they reach mycelium, counted from 0 after any filter or slice in the plan)",
            side=exc.side, example=row, span=exc.span) from None


class TellOnce:
    """The one `mycelium.EmptySpanWarning` of a per-row plan, whose rows stream through
    mycelium batch by batch with no step after the last (an expression, a LazyFrame's
    ``score``): the first batch holding zero-length spans tells its counts and its first
    span, by frame row where the batch knows it; the plan's later batches stay silent
    (a total would need every batch held back). One per plan, however often collected."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._told = False

    def tell(self, told: Told, batch: pl.Series) -> None:
        if not (told.references or told.predictions):
            return
        with self._lock:
            if self._told:
                return
            self._told = True
        first = told.first
        if isinstance(first, EmptyAt) and "row" in batch.struct.fields:
            row = int(batch.struct.field("row")[first.example])
            where = (f"{first._replace(example=row)} (example {row} is the row's position in "
                     "the LazyFrame's rows as they reach mycelium, counted from 0 after any "
                     "filter or slice in the plan)")
        else:
            where = (f"{first} (example {getattr(first, 'example', '?')} counts the rows of "
                     "the batch Polars evaluated the expression on, from 0: the frame row in "
                     "an eager select, not in a streaming one)")
        warn_empty_spans((told.references, told.predictions),
                         f"{where}; these are the counts of the first batch of "
                         f"{batch.len()} rows that held any: the rows stream through "
                         "mycelium, and later batches are not told again",
                         within=("polars",))


def _telling(once: TellOnce | None, batch: pl.Series, run, *args, **kwargs):
    """``run(*args, **kwargs)``, its zero-length spans told by ``once`` (as `prepare`
    tells them, once per batch, without it)."""
    if once is None:
        return run(*args, **kwargs)
    with empty_spans_told(hold=True) as told:
        out = run(*args, **kwargs)
    once.tell(told, batch)
    return out


def batch_statistics(batch: pl.Series, *, settings: Settings, fields, labels,
                      measures: bool = False, once: TellOnce | None = None) -> pl.Series:
    """Per-row statistics (or per-example values) of one batch as a Struct Series.

    Rows left out by ``missing="drop"`` are null; ``once`` tells the plan's zero-length
    spans (`TellOnce`).
    """
    prepared = _telling(once, batch, prepare_batch, batch, settings.missing, settings)
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


def batch_scores(batch: pl.Series, *, settings: Settings, column: str | None = None,
                 once: TellOnce | None = None) -> pl.Series:
    """`frames.score_table` of one batch: a Struct of all measures, or one column.
    Under a profile whose soft labels are the spans (``shroom_visions``), the span
    columns are the soft labels too, as on the eager faces. ``once`` tells the plan's
    zero-length spans (`TellOnce`)."""
    fields = batch.struct.fields
    try:
        table = _telling(once, batch, frames.score_table, Inputs(
            batch.struct.field("ref"), batch.struct.field("pred"),
            text=batch.struct.field("text") if "text" in fields else None
        ).soft_from_spans(settings.profile), settings)
    except SpanValidationError:
        prepare_batch(batch, settings.missing)  # re-raise with the row's position
        raise
    out = polars_frame(table)
    if column is not None:
        return out[column].alias(batch.name)
    return out.to_struct(batch.name)


def first_row() -> pl.Expr:
    """The lowest row index of a group (of the index type), taken over the index as
    Int64: Polars 2.1's streaming ``group_by`` holds its input rows for the minimum of a
    UInt32 column and aggregates as the rows come for an Int64 one
    (`benchmarks/bench_scale_scores.py`: 10 M examples' micro scores, 6,894 MiB peak
    before)."""
    return pl.col(ROW).cast(pl.Int64).min().cast(pl.get_index_type())
