"""Do metrics tell the same story? Rank agreement between metric measures over detectors.

Given tidy results with one row per (detector, [group,] metric, measure), every metric
measure ranks the detectors; `metric_agreement` reports, per group, Kendall's tau-b and
Spearman's rho between the rankings of every pair of measures. A tau of 1 means two
measures order the detectors identically; 0 means unrelated orders; -1 reversed.
"""

from __future__ import annotations

import itertools
import math
from typing import Sequence

import numpy as np
import pandas as pd

from ..metrics.soft_spearman import average_ranks

__all__ = ["metric_agreement", "kendall_tau_b", "spearman_rho"]

COLUMNS = ("metric_a", "measure_a", "metric_b", "measure_b", "kendall_tau", "spearman_rho",
           "detectors")


def kendall_tau_b(x: Sequence[float] | np.ndarray,
                  y: Sequence[float] | np.ndarray) -> float:
    """Kendall's tau-b (ties corrected); NaN when either ranking is constant.

    Notes
    -----
    ``tau_b = (n_c - n_d) / sqrt((n_0 - n_x)(n_0 - n_y))`` over the pairs of positions,
    with ``n_x``, ``n_y`` the pairs tied in ``x`` or ``y``.

    Examples
    --------
    >>> kendall_tau_b([1, 2, 3, 4], [10, 20, 30, 40])
    1.0
    >>> kendall_tau_b([1, 2, 3], [3, 2, 1])
    -1.0
    """
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    dx = np.sign(a[:, None] - a[None, :])
    dy = np.sign(b[:, None] - b[None, :])
    upper = np.triu_indices(a.size, k=1)
    sx, sy = dx[upper], dy[upper]
    concordance = float((sx * sy).sum())
    nx, ny = float((sx != 0).sum()), float((sy != 0).sum())
    if nx == 0 or ny == 0:
        return math.nan
    return concordance / math.sqrt(nx * ny)


def spearman_rho(x: Sequence[float] | np.ndarray,
                 y: Sequence[float] | np.ndarray) -> float:
    """Spearman's rho with average ranks; NaN when either ranking is constant.

    Examples
    --------
    >>> spearman_rho([1, 2, 3, 4], [1, 3, 2, 4])
    0.7999999999999999
    >>> spearman_rho([1, 2, 3], [5, 5, 5])
    nan
    """
    rx = average_ranks(np.asarray(x, dtype=np.float64))
    ry = average_ranks(np.asarray(y, dtype=np.float64))
    if np.all(rx == rx[0]) or np.all(ry == ry[0]):
        return math.nan
    return float(np.corrcoef(rx, ry)[0, 1])


def metric_agreement(results: pd.DataFrame, detector_col: str, *,
                     by: str | Sequence[str] | None = None,
                     value_col: str = "value") -> pd.DataFrame:
    """Rank agreement between every pair of metric measures, per group.

    Parameters
    ----------
    results : pandas.DataFrame
        Tidy results (``df.mycelium.evaluate(..., by=[detector_col, ...])``) with
        columns ``detector_col``, ``metric``, ``measure`` and ``value_col``.
    detector_col : str
        The column naming the detector being ranked.
    by : str or list of str, optional
        Group columns (e.g. ``"lang"``): agreement is computed within each group. By
        default every column other than the detector, metric, measure and value
        columns and the bookkeeping columns (examples, average, profile, intervals).

    Returns
    -------
    pandas.DataFrame
        ``[*by, metric_a, measure_a, metric_b, measure_b, kendall_tau, spearman_rho,
        detectors]``; NaN where a measure does not separate the detectors at all (or
        when a detector lacks a value).

    Raises
    ------
    KeyError
        A required column is missing.
    ValueError
        Several rows per (detector, metric, measure) within a group.

    Examples
    --------
    >>> res = pd.DataFrame({"detector": ["a", "b", "c"] * 2,
    ...                     "metric": ["iou"] * 3 + ["character"] * 3,
    ...                     "measure": ["score"] * 3 + ["f1"] * 3,
    ...                     "value": [0.9, 0.5, 0.1, 0.8, 0.6, 0.7]})
    >>> metric_agreement(res, "detector")[["metric_a", "metric_b", "kendall_tau"]]
      metric_a   metric_b  kendall_tau
    0      iou  character     0.333333
    """
    for col in (detector_col, "metric", "measure", value_col):
        if col not in results.columns:
            raise KeyError(f"column {col!r} not found; the results have columns "
                           f"{list(results.columns)}.")
    groups = _group_columns(results, detector_col, by, value_col)
    rows = []
    parts = results.groupby(groups, sort=True, dropna=False) if groups else [((), results)]
    for key, part in parts:
        key = key if isinstance(key, tuple) else (key,)
        indexed = part.set_index([detector_col, "metric", "measure"])[value_col]
        if indexed.index.has_duplicates:
            raise ValueError(f"the results have several rows per ({detector_col}, metric, "
                             f"measure) in group {key}; pass the other key columns as by=.")
        table = indexed.unstack(["metric", "measure"])
        for (ma, sa), (mb, sb) in itertools.combinations(list(table.columns), 2):
            x, y = table[(ma, sa)].to_numpy(float), table[(mb, sb)].to_numpy(float)
            ok = ~(np.isnan(x) | np.isnan(y))
            complete = bool(ok.all()) and ok.size >= 2
            rows.append(key + (ma, sa, mb, sb,
                               kendall_tau_b(x, y) if complete else math.nan,
                               spearman_rho(x, y) if complete else math.nan,
                               int(ok.sum())))
    return pd.DataFrame(rows, columns=groups + list(COLUMNS))


_BOOKKEEPING = {"examples", "average", "profile", "ci_low", "ci_high"}


def _group_columns(results, detector_col, by, value_col) -> list[str]:
    if by is not None:
        return [by] if isinstance(by, str) else list(by)
    skip = {detector_col, "metric", "measure", value_col} | _BOOKKEEPING
    return [c for c in results.columns if c not in skip]
