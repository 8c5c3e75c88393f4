"""Vectorised interval kernels shared by the metrics: order keys, overlap pairs, merging, sums.

Everything here works on flat int64 arrays of many examples at once. Costs depend on the
number of spans (and of overlapping span pairs), never on span lengths: no per-character
array is ever built, so a span ``[0, 2**62)`` costs the same as ``[0, 2)``.
"""

from __future__ import annotations

import numpy as np

INT64_MAX = np.iinfo(np.int64).max

# Threshold tests ``num / den >= threshold`` are decided as in exact arithmetic: ties pass
# although the float sum of the parts may fall one ulp short (0.1 + 0.7 < 0.8 in floats).
THRESHOLD_TOLERANCE = 1e-9


def passes(num: np.ndarray, den: np.ndarray, threshold: float) -> np.ndarray:
    """Return ``num / den >= threshold`` with ties passing (see ``THRESHOLD_TOLERANCE``)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    return num / den >= threshold - THRESHOLD_TOLERANCE


def order_keys(groups: list[np.ndarray], values: list[np.ndarray],
               n_groups: int) -> list[np.ndarray]:
    """Map ``(group, value)`` pairs to int64 keys that sort in ``(group, value)`` order.

    Keys of different arrays are comparable with each other, so one ``searchsorted`` can
    find, across a whole batch, the spans of the *same* example that satisfy a bound.
    Fast path: ``group * K + value`` with ``K = max(value) + 1`` when that fits in int64;
    otherwise (offsets near 2**63) dense ranks of the pairs, which preserve order and ties.
    """
    vmax = max((int(v.max()) for v in values if v.size), default=0)
    width = vmax + 1
    if n_groups * width <= INT64_MAX:
        w = np.int64(width)
        return [g.astype(np.int64) * w + v for g, v in zip(groups, values)]
    all_groups = np.concatenate(groups)
    all_values = np.concatenate(values)
    order = np.lexsort((all_values, all_groups))
    sg, sv = all_groups[order], all_values[order]
    new = np.ones(sg.size, dtype=bool)
    new[1:] = (sg[1:] != sg[:-1]) | (sv[1:] != sv[:-1])
    ranks = np.empty(sg.size, dtype=np.int64)
    ranks[order] = np.cumsum(new) - 1
    out, pos = [], 0
    for v in values:
        out.append(ranks[pos:pos + v.size])
        pos += v.size
    return out


def expand_ranges(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row i, enumerate ``j in range(lo[i], hi[i])``; return (rows, js)."""
    counts = np.maximum(hi - lo, 0)
    total = int(counts.sum())
    rows = np.repeat(np.arange(lo.size, dtype=np.int64), counts)
    if total == 0:
        return rows, np.empty(0, dtype=np.int64)
    first = np.cumsum(counts) - counts
    js = np.arange(total, dtype=np.int64) - np.repeat(first - lo, counts)
    return rows, js


def overlap_pairs(a_start: np.ndarray, a_end: np.ndarray,
                  b_start: np.ndarray, b_end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i, j) whose intervals ``a[i]`` and ``b[j]`` share at least one position.

    Inputs are order keys (see `order_keys`) of non-empty intervals, each side sorted by
    start. Two disjoint cases cover all overlaps exactly, so no non-overlapping pair is
    ever enumerated: ``a.start <= b.start < a.end`` (b starts inside a) and
    ``b.start < a.start < b.end`` (a starts inside b); each is a contiguous range of the
    other side's sorted starts.
    """
    lo = np.searchsorted(b_start, a_start, side="left")
    hi = np.searchsorted(b_start, a_end, side="left")
    ia1, jb1 = expand_ranges(lo, hi)
    lo = np.searchsorted(a_start, b_start, side="right")
    hi = np.searchsorted(a_start, b_end, side="left")
    jb2, ia2 = expand_ranges(lo, hi)
    return np.concatenate([ia1, ia2]), np.concatenate([jb1, jb2])


def overlap_pairs_disjoint(a_start: np.ndarray, a_end: np.ndarray,
                           b_start: np.ndarray, b_end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`overlap_pairs` for sides whose intervals are disjoint within each group.

    Disjoint sorted intervals have sorted ends too, so the ``a`` intervals overlapping
    ``b[j]`` are one contiguous range: ends after its start, starts before its end.
    """
    lo = np.searchsorted(a_end, b_start, side="right")
    hi = np.searchsorted(a_start, b_end, side="left")
    jb, ia = expand_ranges(lo, hi)
    return ia, jb


def merge_runs(key_start: np.ndarray, key_end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where merged runs begin, for intervals sorted by (group, start) keys.

    Returns ``(new, reach)``: a bool per interval, True where a new run begins
    (overlapping and touching intervals of one group share a run; a group change always
    starts one, because keys of different groups never interleave), and the running
    maximum of the end keys.
    """
    reach = np.maximum.accumulate(key_end) if key_end.size else key_end
    new = np.ones(key_start.size, dtype=bool)
    if key_start.size:
        np.greater(key_start[1:], reach[:-1], out=new[1:])
    return new, reach


def pair_order(a: np.ndarray, b: np.ndarray, n_b: int) -> np.ndarray:
    """Stable order of index pairs by (a, b): one packed int64 key when it fits."""
    if a.size and (int(a.max()) + 1) * max(n_b, 1) <= INT64_MAX:
        return np.argsort(a * np.int64(max(n_b, 1)) + b, kind="stable")
    return np.lexsort((b, a))


def segment_sum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Exact per-segment sums of ``values`` for segments ``offsets[k]:offsets[k+1]``."""
    n = offsets.size - 1
    out = np.zeros(n, dtype=values.dtype)
    counts = np.diff(offsets)
    nonempty = counts > 0
    if values.size:
        out[nonempty] = np.add.reduceat(values, offsets[:-1][nonempty])
    return out


def group_sum(groups: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Exact sums of int64 ``values`` by group id (``bincount`` when floats are exact)."""
    if values.size == 0:
        return np.zeros(n, dtype=values.dtype)
    if values.dtype.kind == "f":
        return np.bincount(groups, weights=values, minlength=n)
    bound = int(np.abs(values).max()) * values.size
    if bound < 2**53:
        return np.bincount(groups, weights=values, minlength=n).astype(np.int64)
    out = np.zeros(n, dtype=np.int64)
    np.add.at(out, groups, values)
    return out


def count(groups: np.ndarray, n: int) -> np.ndarray:
    """Number of occurrences of each group id in ``0..n-1`` as int64."""
    return np.bincount(groups, minlength=n).astype(np.int64, copy=False)
