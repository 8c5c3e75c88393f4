"""Group reductions: per-row columns whose exact group sums determine every result.

Every face reduces through here, so every face agrees bit for bit with
`mycelium.evaluate` on the same rows:

- micro: the per-row sufficient statistics themselves (integers; CLEval's numerators are
  floats only with a fractional penalty weight, summed with ``math.fsum``);
- macro: each per-example value split into exact integer limbs
  (`mycelium.core.exactsum`), plus a definedness count;
- ``soft_spearman`` (always a mean): its limbs, plus a count of NaN scores (one NaN
  makes the mean NaN, as in the official scorer).

Sums of these columns are exact in any order, so they can be computed by any engine —
numpy (the grouping engine's `mycelium.core.groups.group_sums`), Polars' streaming
``group_by().sum()``, Spark's ``GROUP BY SUM`` — and finished with `values_from_sums`. Column names are ``metric|statistic`` (micro) and
``metric|measure|part`` (limb parts h, m, l, residual, defined, nan).
"""

from __future__ import annotations

from typing import Iterator, Mapping

import numpy as np

from ..metrics import STATISTIC_METRICS as METRICS  # typed_span's statistics sum too
from .aggregate import metric_measures, no_score_without_examples, per_example
from .exactsum import LIMB_COLUMNS, limb_arrays, means_of_sums
from .settings import Settings

__all__ = ["row_columns", "row_column_parts", "values_from_sums", "SEP"]

SEP = "|"
_LIMB_PARTS = LIMB_COLUMNS


def row_columns(stats: Mapping[str, Mapping[str, np.ndarray]], settings: Settings, *,
                values=None) -> dict[str, np.ndarray]:
    """Per-row columns to be summed per group (see the module docstring).

    ``values`` (per-example measures, `mycelium.per_example`) may be given when already
    computed; otherwise they are derived from ``stats``.
    """
    out: dict[str, np.ndarray] = {}
    for part in row_column_parts(stats, settings, values=values):
        out.update(part)
    return out


def row_column_parts(stats: Mapping[str, Mapping[str, np.ndarray]], settings: Settings, *,
                     values=None) -> Iterator[dict[str, np.ndarray]]:
    """`row_columns` a few at a time (one metric's statistics, or one measure's limbs):
    summing each part as it comes holds one part's columns, not all of them."""
    need_values = settings.average == "macro" or any(m not in METRICS
                                                     for m in settings.metrics)
    if need_values and values is None:
        values = per_example(stats, zero_division=settings.zero_division,
                             params=settings.params)
    for metric in settings.metrics:
        if metric in METRICS and settings.average == "micro":
            yield {f"{metric}{SEP}{key}": np.asarray(arr)
                   for key, arr in stats[metric].items()}
            continue
        for measure, arr in values[metric].items():
            part = {f"{metric}{SEP}{measure}{SEP}{name}": col
                    for name, col in zip(_LIMB_PARTS, limb_arrays(arr))}
            # integer-valued float64 limbs: exact in float64 sums up to 2**25 rows
            if metric not in METRICS:
                part[f"{metric}{SEP}{measure}{SEP}nan"] = np.isnan(arr).astype(np.int64)
            yield part


def values_from_sums(sums: Mapping[str, np.ndarray], settings: Settings, examples=None
                     ) -> dict[str, dict[str, np.ndarray]]:
    """``{metric: {measure: value per group}}`` from group sums of `row_columns`;
    ``examples`` (per group, when known) makes a group of no examples score NaN where
    an empty sum has a fixed value (`mycelium.core.aggregate.no_score_without_examples`)."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for metric in settings.metrics:
        if metric in METRICS and settings.average == "micro":
            st = {key: _as_exact(sums[f"{metric}{SEP}{key}"])
                  for key in METRICS[metric].statistics}
            out[metric] = metric_measures(metric, st, settings.params.get(metric, {}),
                                    settings.zero_division)
            if examples is not None:
                no_score_without_examples(metric, out[metric], examples)
            continue
        measures = METRICS[metric].measures if metric in METRICS else ("score",)
        out[metric] = {}
        for measure in measures:
            base = f"{metric}{SEP}{measure}{SEP}"
            means = means_of_sums(*(sums[base + c] for c in LIMB_COLUMNS))
            if metric not in METRICS:
                means[np.asarray(sums[base + "nan"], dtype=np.int64) > 0] = np.nan
            out[metric][measure] = means
    return out


def _as_exact(arr: np.ndarray) -> np.ndarray:
    """Integer sums as Python ints (the exact micro arithmetic), floats as float64."""
    arr = np.asarray(arr)
    if arr.dtype.kind in "iu":
        return arr.astype(object)
    if arr.dtype == object and all(isinstance(x, (int, np.integer)) for x in arr.tolist()):
        return np.array([int(x) for x in arr.tolist()], dtype=object)
    return arr.astype(np.float64) if arr.dtype == object else arr
