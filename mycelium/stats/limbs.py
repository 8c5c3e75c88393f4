"""Exact weighted sums of integer statistics: each statistic as float64 limb columns
whose reweighted sums are exact (`mycelium.stats.bootstrap.reweight`), and the sums put
back together as integers."""

from __future__ import annotations

import numpy as np

from ..metrics._intervals import narrow

__all__ = ["limb_matrix", "combine_limbs"]

_LIMB = 28  # bits per limb of a large integer statistic (as `mycelium.core.exactsum`'s limbs)


def _stat_limbs(values) -> np.ndarray:
    """A summed statistic as float64 columns whose weighted sums are exact: the values
    themselves when at most 2**28 in magnitude (or not integers; 1.0's limb is 2**28),
    else 28-bit limbs, least significant first (``v = Σ limb_j · 2**(28·j)``)."""
    arr = np.asarray(values)
    if arr.dtype.kind == "f" or arr.size == 0:
        return arr.astype(np.float64)[:, None]
    if arr.dtype != object:
        peak = int(np.abs(arr).max())
        if peak <= 2**_LIMB:
            return arr.astype(np.float64)[:, None]
        n = -(-peak.bit_length() // _LIMB)
        x = arr.astype(np.int64)
        mask = np.int64(2**_LIMB - 1)
        cols = [(x >> np.int64(_LIMB * j)) & mask for j in range(n - 1)]
        cols.append(x >> np.int64(_LIMB * (n - 1)))  # arithmetic shift keeps the sign
        return np.stack(cols, axis=1).astype(np.float64)
    ints = [int(v) for v in arr.tolist()]
    n = max(1, -(-max(abs(v) for v in ints).bit_length() // _LIMB))
    mask = 2**_LIMB - 1
    rows = [[(v >> (_LIMB * j)) & mask for j in range(n - 1)] + [v >> (_LIMB * (n - 1))]
            for v in ints]
    return np.array(rows, dtype=np.float64)


def _combine_limbs(sums: np.ndarray, values) -> np.ndarray:
    """Exact resampled sums from the summed limb columns of `_stat_limbs`: int64 when
    they fit, else Python ints; float sums (float statistics) as float64."""
    if np.asarray(values).dtype.kind == "f":
        return sums[:, 0].astype(np.float64)
    if sums.shape[1] == 1:
        return sums[:, 0].astype(np.int64)
    scale = 2.0 ** (_LIMB * np.arange(sums.shape[1]))
    if sums.size == 0 or float((np.abs(sums.astype(np.float64)) @ scale).max()) < 2.0**62:
        # every term and partial sum is below 2**62 (a float bound): int64 is exact
        return sum((sums[:, j].astype(np.int64) << np.int64(_LIMB * j)
                    for j in range(sums.shape[1])), np.zeros(sums.shape[0], np.int64))
    totals = [sum(int(x) << (_LIMB * j) for j, x in enumerate(row)) for row in sums.tolist()]
    return narrow(np.array(totals + [None], dtype=object)[:-1])


def limb_matrix(columns, n: int) -> tuple[np.ndarray, list[int]]:
    """The `_stat_limbs` of each column side by side (``(n, Σ widths)`` float64) and
    each column's width: weighted sums of the matrix (`reweight`) are exact."""
    blocks = [_stat_limbs(c) for c in columns]
    matrix = np.hstack(blocks) if blocks else np.zeros((n, 0))
    return matrix, [b.shape[1] for b in blocks]


def combine_limbs(sums: np.ndarray, widths: list[int], columns) -> list[np.ndarray]:
    """Each column's exact weighted sums (`_combine_limbs`) from the summed matrix of
    `limb_matrix`."""
    out, col = [], 0
    for width, values in zip(widths, columns):
        out.append(_combine_limbs(sums[:, col:col + width], values))
        col += width
    return out
