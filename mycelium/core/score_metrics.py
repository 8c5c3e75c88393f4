"""Values of the score metrics (``char_auroc``, ``char_ap``, ``response_auroc``) and of the
pooled ``response_level``, for a batch, per group and per bootstrap resample.

AUROC and AP are not sums of per-example statistics, so they are not aggregated by
`mycelium.core.aggregate`. Macro is the per-example value (one ranking with the example
as group), then the mean over the defined examples; micro ranks the pooled weighted
points of a group. Per-example weights ``w`` (a ``(resamples, examples)`` matrix, e.g.
Poisson bootstrap weights) multiply each point's positive and negative weights, so every
resample reuses the one sort of the points (`mycelium.metrics.ranking.rank`); macro is
then the ``w``-weighted mean of the defined per-example values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..metrics import POOLED_METRICS, SCORE_METRICS
from ..metrics.ranking import blocks, pooled_blocks, rank
from .aggregate import finalize_ratios
from .exactsum import exact_mean, weighted_means
from .scores import ScoreRuns

__all__ = ["score_values", "pooled_values", "pooled_values_of_sums", "example_values"]


def score_values(runs: ScoreRuns | Sequence[ScoreRuns], names, *, average: str,
                 groups: np.ndarray | None = None, n_groups: int = 1,
                 weights: np.ndarray | None = None,
                 ap_undefined: float | None = None) -> dict[str, np.ndarray]:
    """``{name: values}``, values of shape (resamples, n_groups) (1 resample without weights).

    ``runs``: one `ScoreRuns`, or the blocks of consecutive examples of
    `mycelium.core.scores.score_run_blocks`. ``groups`` gives each example's group
    (0..n_groups-1; all 0 by default). ``ap_undefined``
    (`mycelium.core.score_rules.ScoreRules.char_ap_undefined`): the macro ``char_ap`` of an
    example without a positive character (None: left out).

    Blocks are ranked one at a time. Macro values are per example, so each block gives
    its examples' values; micro merges the blocks' tie sums (one point per distinct
    (group, score) of a block, weighted by the block's sums) and ranks those: the sums are
    integers (times integer weights), so the values are those of one ranking, bit for bit.
    """
    parts = [runs] if isinstance(runs, ScoreRuns) else list(runs)
    first = np.cumsum([0] + [r.n for r in parts])
    n = int(first[-1])
    g = np.zeros(n, dtype=np.int64) if groups is None else np.asarray(groups, np.int64)
    w = np.ones((1, n)) if weights is None else np.atleast_2d(weights)
    out: dict[str, np.ndarray] = {}
    cache: dict[str, Any] = {}  # tie blocks, shared by AUROC and AP of the same points

    def shared(key, make):
        if key not in cache:
            cache[key] = make()
        return cache[key]

    def response():
        max_score = np.concatenate([r.max_score for r in parts])
        gold = np.concatenate([r.gold for r in parts])
        return blocks(rank(max_score, g, n_groups), w * gold, w * ~gold)

    def micro():
        points = [_micro_blocks(r, g[a:a + r.n], n_groups,
                                None if weights is None else w[:, a:a + r.n])
                  for r, a in zip(parts, first.tolist())]
        return points[0][0] if len(points) == 1 else _merged(points, n_groups)

    def macro():
        return np.concatenate([_example_values(r, names) for r in parts], axis=1) \
            if parts else np.zeros((len(names), 0))

    for name in names:
        metric = SCORE_METRICS[name]
        if metric.UNIT == "response":
            out[name] = metric.values(shared("response", response))
        elif average == "micro":
            out[name] = metric.values(shared("micro", micro))
        else:
            v = shared("macro", macro)[list(names).index(name)]
            if name == "char_ap" and ap_undefined is not None:
                v = np.where(np.isnan(v), ap_undefined, v)
            out[name] = _macro(v, g, n_groups, w if weights is not None else None)
    return out


def _micro_blocks(r: ScoreRuns, g: np.ndarray, n_groups: int, w):
    """(`Blocks` of one block's pooled points, by group when there are groups; the score
    of each tie block)."""
    if w is None and n_groups == 1:
        hashed = pooled_blocks(r.score, r.length, r.positive)
        if hashed is not None:
            return hashed
    ranking = rank(r.score, g[r.example] if n_groups > 1 else None, n_groups)
    if w is None:
        b = blocks(ranking, r.pos, r.neg)
    else:
        we = w[:, r.example]
        b = blocks(ranking, we * r.pos, we * r.neg)
    return b, r.score[ranking.order[ranking.first]]


def _merged(points, n_groups: int):
    """`Blocks` of the blocks' tie sums ranked together: each tie block of a block is one
    point of its score and group, weighted by that block's sums."""
    score = np.concatenate([s for _, s in points])
    group = np.concatenate([b.ranking.block_group for b, _ in points])
    tp = np.concatenate([b.sums[0] for b, _ in points], axis=1)
    fp = np.concatenate([b.sums[1] for b, _ in points], axis=1)
    return blocks(rank(score, group if n_groups > 1 else None, n_groups), tp, fp)


def _example_values(r: ScoreRuns, names) -> np.ndarray:
    """Per-example values of the char metrics in ``names`` (rows in ``names`` order)."""
    b = blocks(rank(r.score, r.example, r.n), r.pos, r.neg)
    rows = [SCORE_METRICS[m].values(b)[0] if SCORE_METRICS[m].UNIT == "char"
            else np.full(r.n, np.nan) for m in names]
    return np.stack(rows) if rows else np.zeros((0, r.n))


def example_values(r: ScoreRuns, names, *, ap_undefined: float | None = None
                   ) -> dict[str, np.ndarray]:
    """``{name: value per example}`` of the char metrics in ``names`` (NaN where undefined;
    ``char_ap`` of an example without a positive character is ``ap_undefined`` when
    given): the per-example values whose mean over the defined ones is the macro value."""
    rows = _example_values(r, names)
    out = {}
    for i, name in enumerate(names):
        v = rows[i]
        if name == "char_ap" and ap_undefined is not None:
            v = np.where(np.isnan(v), ap_undefined, v)
        out[name] = v
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
    # Weighted means summed exactly: the same bits in any order of the examples (an
    # accumulator merged in another order, a permuted batch with the same ids).
    res = np.full((w.shape[0], n_groups), math.nan)
    for k in range(n_groups):
        sel = g == k
        res[:, k] = weighted_means(w[:, sel], v[sel])
    return res


def pooled_values(stats: dict[str, np.ndarray], name: str, *, zero_division: float,
                  weights: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Measures of a pooled metric (``response_level``) from its per-example statistics.

    Without weights the sums are exact integers; with weights ``(resamples, examples)``
    one value per resample.
    """
    if weights is None:
        sums = {k: np.array([int(np.asarray(v).sum())], dtype=object) for k, v in stats.items()}
        return pooled_values_of_sums(sums, name, zero_division=zero_division)
    sums = {k: np.atleast_2d(weights) @ np.asarray(v, dtype=np.float64)
            for k, v in stats.items()}
    return _pooled(sums, name, zero_division, exact=False)


def pooled_values_of_sums(sums: dict[str, np.ndarray], name: str, *,
                          zero_division: float) -> dict[str, np.ndarray]:
    """Measures of a pooled metric from integer sums of its statistics, one value per
    entry of the arrays (e.g. per group, or per group and threshold of a sweep), with the
    exact arithmetic `pooled_values` uses for one batch."""
    exact = {k: np.asarray(v).astype(object) for k, v in sums.items()}
    return _pooled(exact, name, zero_division, exact=True)


def _pooled(sums, name: str, zero_division: float, *, exact: bool) -> dict[str, np.ndarray]:
    metric = POOLED_METRICS[name]
    ratios = {k: (np.asarray(n), np.asarray(d)) for k, (n, d) in metric.ratios(sums, {}).items()}
    return finalize_ratios(metric, ratios, zero_division, exact=exact)
