"""The engine behind every dataframe face: grouped tidy results and per-row scores.

The faces (pandas accessor, Polars namespace, CLI, Spark) hand this module span columns,
optional texts and group keys; it scores every row once with the core, then reduces
per group exactly as `mycelium.evaluate` would on that group's rows (same per-example
values, same summation order), so each group's numbers equal ``evaluate`` on those rows
bit for bit. Results are Arrow tables, converted by each face to its own frame type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pyarrow as pa

from .aggregate import per_example
from .reduce import group_sums, row_columns, values_from_sums
from .evaluate import Prepared, compute_statistics, prepare
from .settings import Settings, resolve_settings

__all__ = ["TIDY_COLUMNS", "evaluate_table", "score_table", "tidy_table", "tidy_from_sums",
           "group_codes", "Groups"]

#: The columns after the group keys in every tidy result.
TIDY_COLUMNS = ("metric", "measure", "value", "examples", "average", "profile")
SIGNATURE_KEY = b"mycelium.signature"


@dataclass(frozen=True)
class Groups:
    """Row → group assignment: ``codes[i]`` indexes the rows of ``keys`` (one per group)."""

    codes: np.ndarray   # int64 per row
    keys: pa.Table      # the distinct key values, in group order (no columns: one group)
    n_groups: int


def group_codes(keys: pa.Table | None, n_rows: int) -> Groups:
    """Groups of the key columns: sorted by key (nulls last, as their own group).

    The order is deterministic and the same for every face, because it is decided here
    on the Arrow key columns (pandas' ``groupby(sort=True, dropna=False)`` rules).
    """
    if keys is None or keys.num_columns == 0:
        return Groups(np.zeros(n_rows, dtype=np.int64), pa.table({}), 1)
    if keys.num_rows != n_rows:
        raise ValueError(f"group keys have {keys.num_rows} rows but there are {n_rows} "
                         "examples.")
    frame = keys.to_pandas()
    grouped = frame.groupby(list(frame.columns), sort=True, dropna=False, observed=True)
    codes = grouped.ngroup().to_numpy(dtype=np.int64)
    first = np.full(int(codes.max()) + 1 if codes.size else 0, -1, dtype=np.int64)
    rows = np.arange(codes.size, dtype=np.int64)
    first[codes[::-1]] = rows[::-1]
    return Groups(codes, keys.take(pa.array(first, pa.int64())), first.size)


def evaluate_table(references, predictions, *, text=None, groups: Groups | None = None,
                   profile=None, metrics=None, average=None, zero_division=None,
                   params=None, missing="error") -> pa.Table:
    """One row per (group, metric, measure): ``[*keys, metric, measure, value, examples,
    average, profile]``, with the settings signature in the schema metadata."""
    settings = resolve_settings(profile=profile, metrics=metrics, average=average,
                                zero_division=zero_division, params=params, missing=missing)
    prepared = prepare(references, predictions, text=text, missing=missing)
    if groups is None:
        groups = group_codes(None, prepared.n_input)
    stats = compute_statistics(prepared.refs, prepared.preds, settings.span_metrics,
                               settings.params)
    return _tidy(stats, settings, prepared, groups)


def _tidy(stats, settings: Settings, prepared: Prepared, groups: Groups) -> pa.Table:
    return tidy_table(stats, settings, groups.codes[prepared.kept], groups)


def tidy_table(stats, settings: Settings, codes: np.ndarray, groups: Groups, *,
               examples: np.ndarray | None = None, example_values=None) -> pa.Table:
    """Reduce per-row statistics to the tidy table through exact group sums.

    ``stats`` (``{metric: {statistic: array}}``) has one entry per scored row and
    ``codes[i]`` is row i's group; each group's values equal what `mycelium.evaluate`
    computes on that group's rows, because both reduce exact sums (`mycelium.reduce`).
    With ``examples`` (micro only), each row is a partial sum of statistics over
    ``examples[i]`` examples. With ``example_values`` (macro only; ``stats`` unused),
    the rows' per-example values are given instead.
    """
    if examples is not None and settings.average != "micro":
        raise ValueError("internal: partial sums of statistics can only be micro-averaged")
    if example_values is not None and settings.average != "macro":
        raise ValueError("internal: per-example values can only be macro-averaged")
    columns = row_columns(stats, settings, values=example_values)
    counts = np.ones(codes.size, dtype=np.int64) if examples is None else np.asarray(
        examples, dtype=np.int64)
    sums = group_sums({**columns, "": counts}, codes, groups.n_groups)
    examples_per_group = sums.pop("")
    return tidy_from_sums(sums, examples_per_group, groups, settings)


def tidy_from_sums(sums, examples_per_group, groups: Groups, settings: Settings) -> pa.Table:
    """The tidy table from exact group sums of `mycelium.reduce.row_columns`."""
    values = values_from_sums(sums, settings)
    rows: dict[str, list] = {name: [] for name in ("group",) + TIDY_COLUMNS}
    profile = settings.profile.name if settings.profile else None
    for g in range(groups.n_groups):
        for metric in settings.metrics:
            for measure, per_group in values[metric].items():
                rows["group"].append(g)
                rows["metric"].append(metric)
                rows["measure"].append(measure)
                rows["value"].append(float(per_group[g]))
                rows["examples"].append(int(examples_per_group[g]))
                rows["average"].append(_average_of(metric, settings))
                rows["profile"].append(profile)
    return _assemble(rows, groups, settings)


def _average_of(metric: str, settings: Settings) -> str:
    return "macro" if metric == "soft_spearman" else settings.average


def _assemble(rows, groups: Groups, settings: Settings) -> pa.Table:
    group = pa.array(rows.pop("group"), pa.int64())
    columns = {name: groups.keys.column(name).take(group) for name in groups.keys.column_names}
    columns.update({
        "metric": pa.array(rows["metric"], pa.string()),
        "measure": pa.array(rows["measure"], pa.string()),
        "value": pa.array(rows["value"], pa.float64()),
        "examples": pa.array(rows["examples"], pa.int64()),
        "average": pa.array(rows["average"], pa.string()),
        "profile": pa.array(rows["profile"], pa.string()),
    })
    table = pa.table(columns)
    return table.replace_schema_metadata({SIGNATURE_KEY: settings.signature().encode()})


def score_table(references, predictions, *, text=None, profile=None, metrics=None,
                zero_division=None, params=None, missing="error") -> pa.Table:
    """Per-row measures, one column ``<metric>_<measure>`` each, rows in input order.

    Rows left out by ``missing="drop"`` get nulls.
    """
    settings = resolve_settings(profile=profile, metrics=metrics, zero_division=zero_division,
                                params=params, missing=missing)
    prepared = prepare(references, predictions, text=text, missing=missing)
    stats = compute_statistics(prepared.refs, prepared.preds, settings.span_metrics,
                               settings.params)
    values = per_example(stats, zero_division=settings.zero_division, params=settings.params)
    columns = {}
    mask = None if prepared.kept.all() else ~prepared.kept
    for metric in settings.metrics:
        for measure, arr in values[metric].items():
            full = np.full(prepared.n_input, np.nan)
            full[prepared.kept] = arr
            columns[f"{metric}_{measure}"] = pa.array(full, pa.float64(), mask=mask)
    table = pa.table(columns) if columns else pa.table({})
    return table.replace_schema_metadata({SIGNATURE_KEY: settings.signature().encode()})


def signature_of(table: pa.Table) -> str | None:
    """The settings signature stored in a result table's schema metadata."""
    meta = table.schema.metadata or {}
    value = meta.get(SIGNATURE_KEY)
    return value.decode() if value is not None else None


def as_key_table(columns: dict[str, Any]) -> pa.Table:
    """Key columns (Arrow arrays, numpy arrays or lists) as an Arrow table."""
    return pa.table({name: pa.array(col) if not isinstance(col, (pa.Array, pa.ChunkedArray))
                     else col for name, col in columns.items()})


def normalize_by(by) -> list[str]:
    """``by`` as a list of column names (None → [])."""
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    if isinstance(by, Sequence):
        names = list(by)
        if not all(isinstance(n, str) for n in names):
            raise TypeError(f"by={by!r}: expected a column name or a list of names.")
        return names
    raise TypeError(f"by is a {type(by).__name__}; expected a column name or a list of names.")
