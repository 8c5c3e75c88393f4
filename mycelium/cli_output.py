"""Output of ``mycelium evaluate``: an aligned table, CSV, JSON or Parquet."""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

import pandas as pd
import pyarrow as pa

from .io import write_parquet
from .pandas_ext import SIGNATURE_ATTR

EXIT_OK = 0
FORMATS = ("table", "csv", "json", "parquet")
READERS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".csv": "csv",
           ".parquet": "parquet", ".pq": "parquet"}
MEASURES = ("precision", "recall", "f1", "score")  # column order of the table format
NULL = "<null>"


def _plain(value):
    return value.item() if hasattr(value, "item") else value


def write_result(result: pd.DataFrame, fmt: str, output: str | None, *, by) -> None:
    """Write the tidy ``result`` as a table, CSV, JSON or Parquet (to ``output`` or stdout)."""
    signature = result.attrs.get(SIGNATURE_ATTR)
    if fmt == "parquet":
        _write_parquet(result, output, signature)
        return
    if fmt == "table":
        text = format_table(result, by=by) + f"\n\nsignature: {signature}\n"
    elif fmt == "csv":
        text = result.to_csv(index=False, lineterminator="\n")
    else:
        text = json.dumps({"signature": signature, "records": _records(result)},
                          indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        Path(output).write_text(text, encoding="utf-8")


def _records(result: pd.DataFrame) -> list[dict]:
    """JSON-ready rows: Python scalars, NaN and nulls as None."""
    rows = result.astype(object).to_dict("records")
    return [{k: None if _is_null(v) else _plain(v) for k, v in row.items()} for row in rows]


def _is_null(value) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _write_parquet(result: pd.DataFrame, output: str, signature: str | None) -> None:
    write_parquet(_tidy_arrow(result), output, signature=signature)


def _tidy_arrow(result: pd.DataFrame) -> pa.Table:
    """The tidy frame as Arrow with the types of `mycelium.frames` (an all-null profile
    column stays a string column)."""
    table = pa.Table.from_pandas(result, preserve_index=False)
    types = {"metric": pa.string(), "measure": pa.string(), "value": pa.float64(),
             "ci_low": pa.float64(), "ci_high": pa.float64(), "examples": pa.int64(),
             "average": pa.string(), "profile": pa.string()}
    for name, typ in types.items():
        i = table.schema.get_field_index(name)
        if i >= 0 and table.schema.field(i).type != typ:
            table = table.set_column(i, name, table.column(i).cast(typ))
    return table


# ------------------------------------------------------------------- table format

def format_table(result: pd.DataFrame, *, by) -> str:
    """An aligned text table: one row per group and metric, the measures as columns.

    With intervals (``ci_low``/``ci_high`` columns), one row per group, metric and
    measure instead, with the value and a ``ci`` column ``[low, high]``.
    """
    keys = list(by)
    if "ci_low" in result.columns:
        return _interval_table(result, keys)
    rows: dict[tuple, dict] = {}
    for rec in result.to_dict("records"):
        ident = tuple(_cell(rec[k]) for k in keys) + (rec["metric"],)
        row = rows.setdefault(ident, {"examples": str(rec["examples"]),
                                      "average": str(rec["average"]),
                                      "profile": _cell(rec["profile"], "-")})
        row[rec["measure"]] = _number(rec["value"])
    present = set(result["measure"]) if len(result) else set()
    measures = [m for m in MEASURES if m in present] + sorted(present - set(MEASURES))
    header = keys + ["metric"] + measures + ["examples", "average", "profile"]
    body = [list(ident) + [row.get(m, "") for m in measures]
            + [row["examples"], row["average"], row["profile"]]
            for ident, row in rows.items()]
    numeric = set(measures) | {"examples"}
    return _aligned([header] + body, [h in numeric for h in header])


def _interval_table(result: pd.DataFrame, keys: list[str]) -> str:
    header = keys + ["metric", "measure", "value", "ci", "examples", "average", "profile"]
    body = [[_cell(rec[k]) for k in keys]
            + [rec["metric"], rec["measure"], _number(rec["value"]),
               f"[{_number(rec['ci_low'])}, {_number(rec['ci_high'])}]",
               str(rec["examples"]), str(rec["average"]), _cell(rec["profile"], "-")]
            for rec in result.to_dict("records")]
    numeric = {"value", "ci", "examples"}
    return _aligned([header] + body, [h in numeric for h in header])


def _aligned(lines: list[list[str]], right: list[bool]) -> str:
    widths = [max(_width(line[i]) for line in lines) for i in range(len(right))]
    rule = ["-" * w for w in widths]
    out = []
    for line in [lines[0], rule] + lines[1:]:
        cells = [_pad(c, w, r) for c, w, r in zip(line, widths, right)]
        out.append("  ".join(cells).rstrip())
    return "\n".join(out)


def _width(cell: str) -> int:
    """Terminal columns of ``cell``: wide (CJK) characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in cell)


def _pad(cell: str, width: int, right: bool) -> str:
    fill = " " * (width - _width(cell))
    return fill + cell if right else cell + fill


def _cell(value, null: str = NULL) -> str:
    return null if _is_null(value) else str(_plain(value))


def _number(value) -> str:
    return "nan" if _is_null(value) else f"{float(value):.4f}"

