"""Checks of the Spark face: inputs before any job, and worker errors back on the driver.

`check_inputs` validates column names, span, text and key types (the engine's key check,
`mycelium.core.groups.check_key_type`, on the Arrow form of each Spark type) before a job
starts. A worker's error is named by the example's id (`located`), packed by `for_driver`
into its message and raised again on the driver by `from_worker`, so a bad span is a
`SpanValidationError` there rather than Spark's wrapped worker traceback.
"""

from __future__ import annotations

import json

import pyarrow as pa

from ..core.settings import Settings
from ..errors import SpanValidationError
from . import engine as frames
from .spark_io import ID_COL, collect_arrow

__all__ = ["check_inputs", "check_columns", "for_driver", "from_worker", "located",
           "collect_sums", "empty_where", "empty_arrays", "warn_empty"]

_SPAN_HINT = "array<struct<start: bigint, end: bigint>>"
_MARK = "<<mycelium-error>>"
_DRIVER_ERRORS = {"SpanValidationError": SpanValidationError, "ValueError": ValueError,
                  "TypeError": TypeError}


def for_driver(exc: Exception) -> Exception:
    """A worker's error, its type and message packed so the driver can raise it again
    (`from_worker`) instead of Spark's wrapped worker traceback."""
    kind = next((k for k, t in _DRIVER_ERRORS.items() if type(exc) is t), None)
    if kind is None:
        return exc
    payload = {"kind": kind, "message": str(exc), "side": getattr(exc, "side", None),
               "span": getattr(exc, "span", None)}
    return type(exc)(f"{str(exc)} {_MARK}{json.dumps(payload)}{_MARK}")


def from_worker(exc: Exception) -> Exception | None:
    """The error a worker packed with `for_driver`, as the driver raises it."""
    text = str(exc)
    start = text.find(_MARK)
    end = text.find(_MARK, start + len(_MARK)) if start >= 0 else -1
    if end < 0:
        return None
    try:
        payload = json.loads(text[start + len(_MARK):end])
        kind, message = _DRIVER_ERRORS[payload["kind"]], payload["message"]
    except (ValueError, KeyError, TypeError):
        return None
    if kind is SpanValidationError:
        return SpanValidationError(message, side=payload.get("side"),
                                   span=payload.get("span"))
    return kind(message)


def check_columns(sdf, roles: dict, ci=None) -> None:
    """KeyError (listing the columns) or TypeError for each named column ``{role: name}``
    (None: not given); ``ci`` without an ``id_col`` role is a ValueError."""
    _need_pyspark()
    for role, name in roles.items():
        if name is not None:
            frames.check_column(name, role, sdf.columns)
    if ci is not None and roles.get("id_col") is None:
        raise ValueError(_CI_IDS)


_CI_IDS = ("Expected id_col with ci on Spark, got none: rows of a partitioned DataFrame "
           "have no stable position to key resampling weights on; fix by passing "
           "id_col='<column of unique example ids>'.")


def _need_pyspark() -> None:
    try:
        import pyspark  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("mycelium.frames.spark needs pyspark, got none installed; fix by "
                          "installing the 'spark' extra (pip install -e '.[spark]' in a "
                          "mycelium checkout) or pyspark itself.") from exc


def check_inputs(sdf, ref_col, pred_col, text, names, id_col, settings: Settings) -> None:
    """TypeError, KeyError or ValueError for bad inputs, before any Spark job."""
    try:
        from pyspark.sql import DataFrame
        from pyspark.sql import types as T
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("mycelium.frames.spark needs pyspark, got none installed; fix by "
                          "installing the 'spark' extra (pip install -e '.[spark]' in a "
                          "mycelium checkout) or pyspark itself.") from exc
    if not isinstance(sdf, DataFrame):
        raise TypeError(f"Expected a pyspark.sql.DataFrame, got {type(sdf).__name__}; fix "
                        "by passing a Spark DataFrame (for pandas: df.mycelium.evaluate).")
    roles = [(ref_col, "ref_col"), (pred_col, "pred_col")] + [(n, "by") for n in names]
    roles += [(c, r) for c, r in ((text, "text"), (id_col, "id_col")) if c is not None]
    for name, role in roles:
        if not isinstance(name, str):
            raise TypeError(f"Expected a column name for {role}, got a "
                            f"{type(name).__name__}.")
        if name not in sdf.columns:
            raise KeyError(f"{role} column {name!r} not found; the DataFrame has columns "
                           f"{sdf.columns}.")
    for name, role in roles[:2]:
        t = sdf.schema[name].dataType
        spans = isinstance(t, T.ArrayType) and (
            isinstance(t.elementType, T.ArrayType) or
            (isinstance(t.elementType, T.StructType)
             and {"start", "end"} <= set(t.elementType.fieldNames())))
        if not (spans or isinstance(t, T.StringType)):
            raise TypeError(f"Expected {role} column {name!r} of type {_SPAN_HINT}, got "
                            f"{t.simpleString()}; fix by casting it, e.g. "
                            f"F.col({name!r}).cast('{_SPAN_HINT}').")
    for name in names:
        _check_key(name, sdf.schema[name].dataType)
    if text is not None and not isinstance(sdf.schema[text].dataType, T.StringType):
        raise TypeError(f"Expected text column {text!r} of type string, got "
                        f"{sdf.schema[text].dataType.simpleString()}.")
    if settings.bootstrap is not None and id_col is None:
        raise ValueError(_CI_IDS)


def _check_key(name: str, spark_type) -> None:
    """The engine's key type check (`mycelium.core.groups.check_key_type`), before any job."""
    from pyspark.sql.pandas.types import to_arrow_type

    try:
        arrow_type = to_arrow_type(spark_type)
    except Exception:  # noqa: BLE001 - Spark types without an Arrow form
        arrow_type = pa.list_(pa.null())  # reported as not groupable, under its Spark name
    frames.check_key_type(name, arrow_type, spark_type.simpleString())


def located(exc: SpanValidationError, batch: pa.RecordBatch) -> SpanValidationError:
    """The error naming the example by its id (a position inside a batch means nothing)."""
    if exc.example is None or exc.side is None:
        return exc
    if ID_COL in batch.schema.names:
        where = f"{exc.side} example with id {batch.column(ID_COL)[exc.example].as_py()!r}"
    else:
        where = (f"{exc.side} example at row {exc.example} of a Spark Arrow batch (pass "
                 "id_col=... to name it by its id)")
    message = str(exc).replace(f"{exc.side} example {exc.example}", where, 1)
    return SpanValidationError(message, side=exc.side, example=exc.example, span=exc.span)


def empty_where(prepared, batch: pa.RecordBatch, offset: int) -> str | None:
    """A batch's first zero-length span, keyed to sort first when it comes first: its
    Spark partition and row there (``offset``: the partition's rows before the batch),
    then where it is, by its id when the batch has one; None when there is none.
    `warn_empty` reads the least of them on the driver."""
    at = prepared.first_empty
    if at is None:
        return None
    from pyspark import TaskContext

    context = TaskContext.get()
    partition = context.partitionId() if context is not None else 0
    row = offset + at.example
    if ID_COL in batch.schema.names:
        example = f"with id {batch.column(ID_COL)[at.example].as_py()!r}"
        hint = ""
    else:
        example = f"at row {row} of Spark partition {partition}"
        hint = " (pass id_col=... to name it by its id)"
    return (f"{partition:010d}{row:020d}|{at.side} example {example}, span {at.span}: "
            f"[{at.start}, {at.end}]{hint}")


def empty_arrays(counts: tuple[int, int], first: str | None, n: int) -> list[pa.Array]:
    """A batch's zero-length spans on the first of its ``n`` summed rows (zeros and nulls
    on the others): the driver reads only their totals and least first (`warn_empty`)."""
    import numpy as np

    refs, preds = np.zeros(n, np.int64), np.zeros(n, np.int64)
    refs[0], preds[0] = counts
    return [pa.array(refs), pa.array(preds),
            pa.array([first] + [None] * (n - 1), pa.string())]


def warn_empty(table: pa.Table, names: tuple[str, str, str]) -> None:
    """The one `mycelium.EmptySpanWarning` of a call, on the driver, from the workers'
    summed counts and least `empty_where` (columns ``names``: references, predictions,
    first)."""
    import pyarrow.compute as pc

    first = pc.min(table.column(names[2])).as_py() if table.num_rows else None
    if first is None:
        return
    from ..core.pipeline import warn_empty_spans

    counts = tuple(int(pc.sum(table.column(n)).as_py() or 0) for n in names[:2])
    warn_empty_spans((counts[0], counts[1]), first.split("|", 1)[1])


def collect_sums(df) -> pa.Table:
    """The workers' summed rows on the driver, as Arrow; a worker's error (packed by
    `for_driver`) is raised as itself."""
    try:
        return collect_arrow(df)
    except Exception as exc:  # noqa: BLE001 - Spark wraps worker errors in its own types
        raised = from_worker(exc)
        if raised is None:
            raise
        raise raised from None
