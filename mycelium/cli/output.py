"""Output of ``mycelium evaluate``: an aligned table, CSV, JSON or Parquet."""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

import pandas as pd
import pyarrow as pa

from ..core.columns import is_null
from ..frames.to_pandas import SIGNATURE_ATTR
from ..io import write_parquet

EXIT_OK = 0
FORMATS = ("table", "csv", "json", "parquet")
MEASURES = ("precision", "recall", "f1", "score")  # column order of the table format
NULL = "<null>"


def plain_value(value):
    """A numpy scalar as its Python value (other values as they are)."""
    return value.item() if hasattr(value, "item") else value


def write_result(result: pd.DataFrame, fmt: str, output: str | None, *, by) -> None:
    """Write the tidy ``result`` as a table, CSV, JSON or Parquet (to ``output`` or stdout)."""
    signature = result.attrs.get(SIGNATURE_ATTR)
    if fmt == "parquet":
        if output is None:  # the parser requires --output with --format parquet
            raise ValueError("Expected an output file for --format parquet, got none; fix "
                             "by giving --output FILE.")
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
    return [{k: None if is_null(v) else plain_value(v) for k, v in row.items()}
            for row in rows]


def _write_parquet(result: pd.DataFrame, output: str, signature: str | None) -> None:
    write_parquet(_tidy_arrow(result), output, signature=signature)


def _tidy_arrow(result: pd.DataFrame) -> pa.Table:
    """The tidy frame as Arrow with the types of `mycelium.frames.engine` (an all-null profile
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
    measure instead, with the value and a ``ci`` column ``[low, high]``. Group keys
    print plainly when that is unambiguous, else strings are quoted (`key_cells`).
    """
    keys = list(by)
    cells = {k: key_cells(result[k]) for k in keys}
    if "ci_low" in result.columns:
        return _interval_table(result, keys, cells)
    # A table row gathers the consecutive records of one group and metric; rows are never
    # merged by their printed key, so no group can hide behind another's.
    rows: list[tuple[tuple, dict]] = []
    for i, rec in enumerate(result.to_dict("records")):
        ident = tuple(cells[k][i] for k in keys) + (rec["metric"],)
        if not rows or rows[-1][0] != ident or rec["measure"] in rows[-1][1]:
            rows.append((ident, {"examples": str(rec["examples"]),
                                 "average": str(rec["average"]),
                                 "profile": _cell(rec["profile"], "-")}))
        rows[-1][1][rec["measure"]] = _number(rec["value"])
    present = set(result["measure"]) if len(result) else set()
    measures = [m for m in MEASURES if m in present] + sorted(present - set(MEASURES))
    header = keys + ["metric"] + measures + ["examples", "average", "profile"]
    body = [list(ident) + [row.get(m, "") for m in measures]
            + [row["examples"], row["average"], row["profile"]]
            for ident, row in rows]
    numeric = set(measures) | {"examples"}
    return _aligned([header] + body, [h in numeric for h in header])


def key_cells(column: pd.Series) -> list[str]:
    """The printed group keys of one column, distinct for distinct keys.

    Plain (``en``, ``3``, ``<null>`` for a null) when every key prints differently and
    no string could be mistaken for another value; otherwise every string is quoted as
    JSON (``"1"`` next to the integer ``1``, ``"<null>"`` next to a null, ``""``), and
    as a last resort each key shows its type (``float:1.5``).
    """
    values = [None if is_null(v) else plain_value(v) for v in column.tolist()]
    distinct = list({_identity(v): v for v in values}.values())
    for show in (_plain_key, _quoted_key, _typed_key):
        printed = {show(v) for v in distinct}
        if len(printed) == len(distinct) and (show is not _plain_key or all(
                _unmistakable(v) for v in distinct if isinstance(v, str))):
            return [show(v) for v in values]
    return [_typed_key(v) for v in values]  # pragma: no cover - _typed_key is injective


def _identity(value):
    return ("null",) if value is None else (type(value).__name__, repr(value))


def _unmistakable(text: str) -> bool:
    return text != NULL and text != "" and text == text.strip() and text.isprintable()


def _plain_key(value) -> str:
    return NULL if value is None else str(value)


def _quoted_key(value) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return _plain_key(value)


def _typed_key(value) -> str:
    return NULL if value is None else f"{type(value).__name__}:{value!r}"


def _interval_table(result: pd.DataFrame, keys: list[str], cells: dict) -> str:
    header = keys + ["metric", "measure", "value", "ci", "examples", "average", "profile"]
    body = [[cells[k][i] for k in keys]
            + [rec["metric"], rec["measure"], _number(rec["value"]),
               f"[{_number(rec['ci_low'])}, {_number(rec['ci_high'])}]",
               str(rec["examples"]), str(rec["average"]), _cell(rec["profile"], "-")]
            for i, rec in enumerate(result.to_dict("records"))]
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
    return null if is_null(value) else str(plain_value(value))


def _number(value) -> str:
    return "nan" if is_null(value) else f"{float(value):.4f}"

