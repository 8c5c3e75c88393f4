"""Values of the score metrics (``char_auroc``, ``char_ap``, ``response_auroc``) and of the
pooled ``response_level``, for a batch, per group and per bootstrap resample.

AUROC and AP are not sums of per-example statistics, so they are not aggregated by
`mycelium.core.aggregate`. Macro is the per-example value (one ranking with the example
as group), then the mean over the defined examples; micro ranks the pooled weighted
points of a group. Per-example weights ``w`` (a ``(resamples, examples)`` matrix, e.g.
Poisson bootstrap weights) multiply each point's positive and negative weights, so every
resample reuses the one sort of the points (`mycelium.metrics._ranking.rank`); macro is
then the ``w``-weighted mean of the defined per-example values.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..metrics import POOLED_METRICS, SCORE_METRICS
from ..metrics._ranking import blocks, rank
from .aggregate import _finalize
from .exactsum import exact_mean
from .scores import ScoreRuns

__all__ = ["score_values", "pooled_values"]


def score_values(runs: ScoreRuns, names, *, average: str, groups: np.ndarray | None = None,
                 n_groups: int = 1, weights: np.ndarray | None = None,
                 ap_undefined: float | None = None) -> dict[str, np.ndarray]:
    """``{name: values}``, values of shape (resamples, n_groups) (1 resample without weights).

    ``groups`` gives each example's group (0..n_groups-1; all 0 by default).
    ``ap_undefined`` (`mycelium.core.score_rules.ScoreRules.char_ap_undefined`): the
    macro ``char_ap`` of an example without a positive character (None: left out).
    """
    g = np.zeros(runs.n, dtype=np.int64) if groups is None else np.asarray(groups, np.int64)
    w = np.ones((1, runs.n)) if weights is None else np.atleast_2d(weights)
    out: dict[str, np.ndarray] = {}
    cache: dict[str, Any] = {}  # tie blocks, shared by AUROC and AP of the same points

    def shared(key, make):
        if key not in cache:
            cache[key] = make()
        return cache[key]

    for name in names:
        metric = SCORE_METRICS[name]
        if metric.UNIT == "response":
            b = shared("response", lambda: blocks(rank(runs.max_score, g, n_groups),
                                                  w * runs.gold, w * ~runs.gold))
            out[name] = metric.values(b)
        elif average == "micro":
            def pooled():
                r = rank(runs.score, g[runs.example] if n_groups > 1 else None, n_groups)
                if weights is None:
                    return blocks(r, runs.pos, runs.neg)
                we = w[:, runs.example]
                return blocks(r, we * runs.pos, we * runs.neg)
            out[name] = metric.values(shared("micro", pooled))
        else:
            b = shared("macro", lambda: blocks(rank(runs.score, runs.example, runs.n),
                                               runs.pos, runs.neg))
            v = metric.values(b)[0]
            if name == "char_ap" and ap_undefined is not None:
                v = np.where(np.isnan(v), ap_undefined, v)
            out[name] = _macro(v, g, n_groups, w if weights is not None else None)
    return out


def _macro(v: np.ndarray, g: np.ndarray, n_groups: int, w) -> np.ndarray:
    defined = ~np.isnan(v)
    if w is None:  # exact, order-independent means
        res = np.full((1, n_groups), math.nan)
        for k in range(n_groups):
            sel = defined & (g == k)
            if sel.any():
                res[0, k] = exact_mean(v[sel])
        return res
    vz = np.where(defined, v, 0.0)
    num = np.zeros((w.shape[0], n_groups))
    den = np.zeros((w.shape[0], n_groups))
    for k in range(n_groups):
        sel = g == k
        num[:, k] = w[:, sel] @ vz[sel]
        den[:, k] = w[:, sel] @ defined[sel].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / den, np.nan)


def pooled_values(stats: dict[str, np.ndarray], name: str, *, zero_division: float,
                  weights: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Measures of a pooled metric (``response_level``) from its per-example statistics.

    Without weights the sums are exact integers; with weights ``(resamples, examples)``
    one value per resample.
    """
    metric = POOLED_METRICS[name]
    if weights is None:
        sums = {k: np.array([int(np.asarray(v).sum())], dtype=object) for k, v in stats.items()}
        exact = True
    else:
        sums = {k: np.atleast_2d(weights) @ np.asarray(v, dtype=np.float64)
                for k, v in stats.items()}
        exact = False
    ratios = {k: (np.asarray(n), np.asarray(d)) for k, (n, d) in metric.ratios(sums, {}).items()}
    return _finalize(metric, ratios, zero_division, exact=exact)
