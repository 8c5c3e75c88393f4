"""Threshold-free ranking kernels over weighted points: ROC AUC and average precision.

A *weighted point* is a score with a positive weight and a negative weight (a run of
characters of equal score and label, or one response). Points are sorted once by
``(group, score descending)`` (`Ranking`); ties form one block, so the curves have one
vertex per distinct score of a group, exactly as scikit-learn's ``roc_curve`` /
``precision_recall_curve`` on the expanded arrays. The weights can then vary (bootstrap
resamples as a ``(resamples, points)`` matrix) without sorting again.

Per group, with blocks b in decreasing score, block sums ``tp_b``, ``fp_b`` and
cumulative sums ``TP_b``, ``FP_b`` (``TP_{b-1}`` before the block), ``P = ΣTP``,
``N = ΣFP``:

- AUROC = ``Σ_b fp_b (TP_{b-1} + TP_b) / 2 / (P N)`` (the trapezoidal ROC area,
  ``roc_auc_score``); undefined (NaN) when P = 0 or N = 0.
- AP = ``Σ_b (tp_b / P) · TP_b / (TP_b + FP_b)`` (``average_precision_score``: recall
  steps times precision, no interpolation); undefined (NaN) when P = 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .order import codes_in_order

__all__ = ["Ranking", "Blocks", "rank", "blocks", "pooled_blocks", "auroc",
           "average_precision"]


@dataclass(frozen=True, eq=False)
class Ranking:
    """One sort of the points: their order, tie blocks and the groups of the blocks."""

    order: np.ndarray        # points in (group, -score) order
    first: np.ndarray        # first sorted position of each block
    block_group: np.ndarray  # group of each block
    group_first: np.ndarray  # first block of each group that has points
    n_groups: int


def rank(score: np.ndarray, group: np.ndarray | None = None, n_groups: int = 1) -> Ranking:
    """Sort the points by group, then score descending, and find the tie blocks."""
    score = np.asarray(score, dtype=np.float64)
    one = group is None or n_groups == 1
    order = np.argsort(-score)  # the order inside a tie block does not matter
    if not one:
        group = np.asarray(group, dtype=np.int64)
        order = _by_group(order, group, n_groups)
    s = score[order]
    new = np.ones(s.size, dtype=bool)
    np.not_equal(s[1:], s[:-1], out=new[1:])
    if one:  # one group: the blocks are the distinct scores
        first = np.flatnonzero(new)
        bg = np.zeros(first.size, dtype=np.int64)
        return Ranking(order, first, bg, np.zeros(min(first.size, 1), dtype=np.int64), 1)
    assert group is not None  # more than one group
    g = group[order]
    new[1:] |= g[1:] != g[:-1]
    first = np.flatnonzero(new)
    bg = g[first]
    gnew = np.ones(first.size, dtype=bool)
    gnew[1:] = bg[1:] != bg[:-1]
    return Ranking(order, first, bg, np.flatnonzero(gnew), n_groups)


def _by_group(order: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """``order`` made stable-sorted by ``group``: a least-significant-digit radix sort
    on 16-bit digits of the group (numpy's stable sort of uint16 is a counting sort),
    so grouping costs a few linear passes instead of a second comparison sort."""
    g = group[order]
    shift = 0
    while True:
        digit = ((g >> shift) & 0xFFFF).astype(np.uint16)
        step = np.argsort(digit, kind="stable")
        order, g = order[step], g[step]
        shift += 16
        if n_groups - 1 < (1 << shift):
            return order


@dataclass(frozen=True, eq=False)
class Blocks:
    """Tie-block sums of one ranking under one set of weights: computed once, shared by
    every curve metric (AUROC and AP of the same points cost one pass)."""

    ranking: Ranking
    sums: tuple


def blocks(r: Ranking, pos, neg) -> Blocks:
    """`Blocks` of ``r`` with positive and negative weights ``pos``, ``neg``
    (per point, or ``(resamples, points)``)."""
    return Blocks(r, _blocks(r, pos, neg))


def _blocks(r: Ranking, pos, neg):
    """Block sums and within-group cumulative sums, shape (resamples, blocks)."""
    # Gathered in their own dtype and summed in float64 (integer weights sum exactly).
    pos = np.take(np.atleast_2d(np.asarray(pos)), r.order, axis=1)
    neg = np.take(np.atleast_2d(np.asarray(neg)), r.order, axis=1)
    if r.first.size == 0:
        z = np.zeros((pos.shape[0], 0))
        return z, z, z, z, z, z
    tp = np.add.reduceat(pos, r.first, axis=1, dtype=np.float64)
    fp = np.add.reduceat(neg, r.first, axis=1, dtype=np.float64)
    return _cumulative(r, tp, fp)


def _cumulative(r: Ranking, tp: np.ndarray, fp: np.ndarray):
    """The block sums ``tp``, ``fp`` (resamples, blocks) with their within-group
    cumulative sums and group totals."""
    ctp, cfp = np.cumsum(tp, axis=1), np.cumsum(fp, axis=1)
    gid = _group_of_block(r)
    before_tp = np.where(r.group_first > 0, ctp[:, r.group_first - 1], 0.0)
    before_fp = np.where(r.group_first > 0, cfp[:, r.group_first - 1], 0.0)
    TP, FP = ctp - before_tp[:, gid], cfp - before_fp[:, gid]
    P = np.add.reduceat(tp, r.group_first, axis=1)
    N = np.add.reduceat(fp, r.group_first, axis=1)
    return tp, fp, TP, FP, P, N


#: Sampled points in `pooled_blocks`' decision, and the share of them that must be
#: distinct for sorting to beat hashing (hashing costs grow with the distinct scores).
_SAMPLE, _DISTINCT = 1 << 14, 0.95


def pooled_blocks(score: np.ndarray, weight: np.ndarray, positive: np.ndarray
                  ) -> tuple[Blocks, np.ndarray] | None:
    """(`Blocks` of one group of unweighted points, the score of each block), from
    hashing the scores instead of sorting the points, or None when the scores look
    mostly distinct (then `rank` and `blocks` are faster).

    Each point is ``weight`` characters, all positive or all negative (``positive``).
    `codes_in_order` numbers the distinct scores by hashing, one ``bincount`` adds up each
    score's positive and negative weights, and only the distinct scores are sorted
    (descending). The block sums are the same integers, in the same block order, as
    `rank` then `blocks` give, so every curve value is the same bit for bit
    (``tests/metrics/test_pooled_blocks.py``). The decision reads a strided sample of
    `_SAMPLE` scores; it changes the time, never the values. The `Ranking` has blocks
    but no order of the points (``order`` is empty): nothing is sorted to reweight."""
    score = np.asarray(score, dtype=np.float64)
    if score.size == 0:
        return None
    sample = score[::max(1, score.size // _SAMPLE)]
    if np.unique(sample).size > _DISTINCT * sample.size and sample.size > 64:
        return None
    codes, distinct = codes_in_order(score)  # 0.0 and -0.0 are one score
    k = distinct.size
    codes *= 2
    codes += positive
    sums = np.bincount(codes, weights=weight, minlength=2 * k).reshape(k, 2)[::-1]
    tp, fp = sums[None, :, 1].copy(), sums[None, :, 0].copy()  # descending scores
    r = Ranking(np.empty(0, dtype=np.int64), np.arange(k), np.zeros(k, dtype=np.int64),
                np.zeros(1, dtype=np.int64), 1)
    return Blocks(r, _cumulative(r, tp, fp)), distinct[::-1].copy()


def _group_of_block(r: Ranking) -> np.ndarray:
    """Index into ``group_first`` of each block."""
    mark = np.zeros(r.first.size, dtype=np.int64)
    mark[r.group_first] = 1
    return np.cumsum(mark) - 1


def _place(r: Ranking, values: np.ndarray) -> np.ndarray:
    out = np.full((values.shape[0], r.n_groups), np.nan)
    if r.group_first.size:
        out[:, r.block_group[r.group_first]] = values
    return out


def auroc(b: Blocks) -> np.ndarray:
    """ROC AUC per group, shape (resamples, n_groups); NaN where a class is absent."""
    r = b.ranking
    tp, fp, TP, FP, P, N = b.sums
    if tp.shape[1] == 0:
        return _place(r, np.zeros((tp.shape[0], 0)))
    area = np.add.reduceat(fp * (2.0 * TP - tp), r.group_first, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where((P > 0) & (N > 0), area / (2.0 * P * N), np.nan)
    return _place(r, value)


def average_precision(b: Blocks) -> np.ndarray:
    """Average precision per group, shape (resamples, n_groups); NaN without a positive."""
    r = b.ranking
    tp, fp, TP, FP, P, N = b.sums
    if tp.shape[1] == 0:
        return _place(r, np.zeros((tp.shape[0], 0)))
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.where(tp > 0, tp / (TP + FP), 0.0) * np.where(tp > 0, TP, 0.0)
        total = np.add.reduceat(step, r.group_first, axis=1)
        value = np.where(P > 0, total / P, np.nan)
    return _place(r, value)
