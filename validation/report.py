"""Writing the study's tables: CSV at full precision, Markdown rounded for reading."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from .scoring import HEADLINE, LABELS


def write_csv(df: pd.DataFrame, path: Path) -> None:
    df.to_csv(path, index=False, lineterminator="\n")


def md_table(df: pd.DataFrame, *, digits: int = 3, rename: dict | None = None) -> str:
    """A GitHub Markdown table (floats rounded to ``digits``; NaN shown as ``–``)."""
    df = df.rename(columns=rename or {})
    head = "| " + " | ".join(map(str, df.columns)) + " |"
    align = "|" + "|".join("---:" if pd.api.types.is_numeric_dtype(df[c]) else "---"
                           for c in df.columns) + "|"
    whole = {c for c in df.columns if pd.api.types.is_float_dtype(df[c])
             and bool(((df[c] % 1 == 0) | df[c].isna()).all())
             and bool((df[c].abs() > 1).any())}  # counts and ranks, not scores of 0/1
    lines = [head, align]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v, digits, c in whole)
                                       for c, v in zip(df.columns, row)) + " |")
    return "\n".join(lines) + "\n"


def _cell(v, digits: int, whole: bool = False) -> str:
    if v is pd.NA:
        return "–"
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        if whole:
            return str(int(v))
        return f"{v:.{digits}f}"
    return str(v)


def headline(df: pd.DataFrame, keys: list[str], extra: tuple = ()) -> str:
    """Markdown of ``keys``, ``examples`` and the headline measures (renamed); a measure
    with ``_low`` / ``_high`` columns is shown as ``value [low, high]``."""
    cols = keys + ["examples"] + [c for c in HEADLINE + tuple(extra) if c in df.columns]
    return md_table(with_ci(df, cols), rename=LABELS)


def with_ci(df: pd.DataFrame, cols: list[str], digits: int = 3) -> pd.DataFrame:
    """``cols`` of ``df``, each measure with an interval as one ``v [lo, hi]`` string."""
    out = df[cols].copy()
    for c in cols:
        if f"{c}_low" in df.columns and f"{c}_high" in df.columns:
            out[c] = [_cell(v, digits) + (f" [{_cell(lo, digits)}, {_cell(hi, digits)}]"
                                          if not (pd.isna(lo) or pd.isna(hi)) else "")
                      for v, lo, hi in zip(df[c], df[f"{c}_low"], df[f"{c}_high"])]
    return out


def write_md(path: Path, title: str, sections: list[tuple[str, str]]) -> None:
    parts = [f"# {title}\n"]
    for heading, body in sections:
        parts.append(f"## {heading}\n\n{body}" if heading else body)
    path.write_text("\n".join(parts), encoding="utf-8")
