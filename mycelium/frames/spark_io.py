"""Spark plumbing of `mycelium.frames.spark`: the columns the workers read, the schema of
their sums, collecting them, the result as a Spark DataFrame, and the options that are
gathered on the driver (`collected`).

What is not summed on the workers (the per-type rows when their types are not string
fields of the span structs, `mycelium.frames.spark_typed`; the score forms with
intervals; the per-label rows of soft labels) is gathered by `collected`: it brings the
columns they read (only those) to the driver as Arrow and scores them with the pandas
accessor, the engine of every face, so the numbers are the pandas accessor's.
"""

from __future__ import annotations

import pyarrow as pa

from ..core.groups import key_series
from . import engine as frames

__all__ = ["collected", "spark_names"]

#: The working column names the workers see (the user's names may be anything).
REF_COL, PRED_COL, TEXT_COL, ID_COL = "__ref", "__pred", "__text", "__id"
N_COL, R_COL = "__n", "__r"
#: The zero-length spans of a call: counts per side and the first (`spark_checks.empty_where`)
EMPTY_REF_COL, EMPTY_PRED_COL, EMPTY_FIRST_COL = "__empty_ref", "__empty_pred", "__empty_first"
SOFT_REF_COL, SOFT_PRED_COL = "__soft_ref", "__soft_pred"


def spark_names(layout) -> list[tuple[str, str, bool]]:
    """``(Spark column, engine label, is int64)`` of each `engine_sums` column: plain
    Spark names, as labels hold ``|`` and ``#``."""
    return [(f"c{i}", col.label, col.integer) for i, col in enumerate(layout)]


def quoted(name: str):
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def select_inputs(sdf, ref_col, pred_col, text, names, id_col, soft=None):
    """The columns the workers read, under the working names (soft labels: a pair)."""
    cols = [quoted(ref_col).alias(REF_COL), quoted(pred_col).alias(PRED_COL)]
    pairs = [(text, TEXT_COL), (id_col, ID_COL)]
    if soft is not None:
        pairs += [(soft[0], SOFT_REF_COL), (soft[1], SOFT_PRED_COL)]
    cols += [quoted(c).alias(a) for c, a in pairs if c is not None]
    cols += [quoted(n).alias(f"__k{i}") for i, n in enumerate(names)]
    return sdf.select(*cols)


def mapped_schema(sdf, names, keys, layout, boot: bool):
    from pyspark.sql import types as T

    fields = [T.StructField(k, sdf.schema[n].dataType, True) for k, n in zip(keys, names)]
    if boot:
        fields.append(T.StructField(R_COL, T.IntegerType(), False))
    fields.append(T.StructField(N_COL, T.LongType(), False))
    fields += [T.StructField(name, T.LongType() if integer else T.DoubleType(), False)
               for name, _, integer in spark_names(layout)]
    return T.StructType(fields + empty_fields())


def empty_fields() -> list:
    """The Spark fields of the zero-length span columns (`spark_checks.empty_arrays`)."""
    from pyspark.sql import types as T

    return [T.StructField(EMPTY_REF_COL, T.LongType(), False),
            T.StructField(EMPTY_PRED_COL, T.LongType(), False),
            T.StructField(EMPTY_FIRST_COL, T.StringType(), True)]


def collect_arrow(df) -> pa.Table:
    """The summed rows as an Arrow table (``toArrow`` from Spark 4; 3.5's collector)."""
    if hasattr(df, "toArrow"):
        return df.toArrow()
    from pyspark.sql.pandas.types import to_arrow_schema  # pragma: no cover - Spark 3.5

    return pa.Table.from_batches(df._collect_as_arrow(),  # pragma: no cover
                                 schema=to_arrow_schema(df.schema))


def to_spark(sdf, tidy: pa.Table, names, extra=None):
    """The tidy table as a Spark DataFrame on ``sdf``'s session, the signature in the
    metadata of its ``value`` field (key columns typed as in ``sdf``, or by ``extra``)."""
    from pyspark.sql import types as T

    signature = frames.signature_of(tidy)
    fields = [T.StructField(n, T.StringType() if n in (extra or {}) else
                            sdf.schema[n].dataType, True) for n in names]
    types = {"value": T.DoubleType(), "examples": T.LongType(), "ci_low": T.DoubleType(),
             "ci_high": T.DoubleType()}
    for name in tidy.column_names[len(names):]:
        meta = {"mycelium_signature": signature} if name == "value" else None
        fields.append(T.StructField(name, types.get(name, T.StringType()), True, meta))
    columns = [tidy.column(i).to_pylist() for i in range(tidy.num_columns)]
    if frames.SIGNATURE_COLUMN not in tidy.column_names:  # the last column, on every row
        fields.append(T.StructField(frames.SIGNATURE_COLUMN, T.StringType(), True))
        columns.append([signature] * tidy.num_rows)
    rows = list(zip(*columns))
    return sdf.sparkSession.createDataFrame(rows, T.StructType(fields))


def collected(sdf, ref_col: str, pred_col: str | None, *, by, as_spark: bool,
              columns: dict, options: dict):
    """The pandas accessor's ``evaluate`` of the columns read, gathered on the driver
    as Arrow, as a pandas frame or (``as_spark``) a Spark DataFrame."""
    import pandas as pd

    names = frames.normalize_by(by)
    read = list(dict.fromkeys([ref_col, *([pred_col] if pred_col else []), *names,
                               *(c for c in columns.values() if c is not None)]))
    table = collect_arrow(sdf.select(*[quoted(c) for c in read]))
    pdf = table.to_pandas(types_mapper=lambda t: pd.ArrowDtype(t) if (
        pa.types.is_list(t) or pa.types.is_large_list(t)) else None)
    for name in names:  # bigint keys with nulls stay integers (Int64), never floats
        pdf[name] = key_series(table.column(name), None)
    out = pdf.mycelium.evaluate(ref_col, pred_col, by=by, **columns, **options)
    if not as_spark:
        return out
    keys = names + (["type"] if "type" in out.columns else [])
    tidy = pa.Table.from_pandas(out, preserve_index=False).replace_schema_metadata(
        {frames.SIGNATURE_KEY: out.attrs["mycelium_signature"].encode()})
    return to_spark(sdf, tidy, keys, extra={"type"})
