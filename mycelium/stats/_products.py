"""Exact weighted sums ``w @ matrix`` of integer-valued columns, in small products.

Weights are small integers (Poisson counts or 0/1 coins) and the columns integer limbs
below 2**29, so float64 products over at most ``_BLOCK`` examples are exact. Each product
is kept small (``_INNER`` examples): OpenBLAS runs products under its threading threshold
on the calling thread, so a busy machine does not make its threads spin against each
other (a threaded product of these shapes gains little idle and loses up to 15x loaded).
"""

from __future__ import annotations

import numpy as np

__all__ = ["reweight"]

_BLOCK = 1 << 20  # examples per exact float64 product (weights * limbs < 2**53)
#: Examples per small matrix product: ``CHUNK x columns x _INNER`` stays
#: below OpenBLAS's threading threshold (65536 * 4 multiply-adds), so each product runs
#: on the calling thread. A threaded product of these shapes gains little on an idle
#: machine and loses up to 15x on a loaded one (its threads spin against each other).
_INNER = 32


def reweight(w: np.ndarray, matrix: np.ndarray, integral: bool = False) -> np.ndarray:
    """``w @ matrix`` exactly for integer-valued columns (each at most 2**29 in
    magnitude, as `_stat_limbs` and `mycelium.core.exactsum` make them, or their
    differences): float64 products over blocks of examples (each exact: weights
    < 2**5, or 0/1 coins), accumulated in int64 (other columns, such as limb
    residuals, stay approximate). ``integral=True`` says every column is (as
    `limb_matrix` makes integer statistics), sparing the check."""
    exact = (np.ones(matrix.shape[1], dtype=bool) if integral
             else np.all(matrix == np.trunc(matrix), axis=0))
    return _reweight(w, matrix, exact)


def _reweight(w: np.ndarray, matrix: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """`reweight` given which columns are integer-valued: int64 if all are, else float64
    with the exact columns summed in int64 first (so adding blocks stays exact)."""
    out = np.zeros((w.shape[0], matrix.shape[1]), dtype=np.int64)
    if exact.all():
        for start in range(0, matrix.shape[0], _BLOCK):
            out += _small_products(w[:, start:start + _BLOCK], matrix[start:start + _BLOCK])
        return out
    residual = np.zeros((w.shape[0], matrix.shape[1]))
    for start in range(0, matrix.shape[0], _BLOCK):
        part = _small_products(w[:, start:start + _BLOCK], matrix[start:start + _BLOCK],
                               as_int=False)
        out[:, exact] += part[:, exact].astype(np.int64)
        residual[:, ~exact] += part[:, ~exact]
    return np.where(exact, out, residual)


def _small_products(w: np.ndarray, matrix: np.ndarray, as_int: bool = True) -> np.ndarray:
    """``w @ matrix`` (at most ``_BLOCK`` examples) as a stack of products over
    ``_INNER`` examples each, summed in float64 (exact for the integer columns: every
    partial sum is below 2**53), each product single-threaded by its size."""
    m, n = w.shape
    k = max(1, min(_INNER, (1 << 18) // max(m * matrix.shape[1], 1)))
    nb = n // k
    cut = nb * k
    total = np.zeros((m, matrix.shape[1]))
    step = max(1, (1 << 20) // max(m * matrix.shape[1], 1))  # stacked products per call
    for s in range(0, nb, step):
        e = min(nb, s + step)
        ww = w[:, s * k:e * k].reshape(m, e - s, k).transpose(1, 0, 2)
        total += np.matmul(ww, matrix[s * k:e * k].reshape(e - s, k, -1)).sum(axis=0)
    for s in range(cut, n, k):
        total += w[:, s:s + k] @ matrix[s:s + k]
    return total.astype(np.int64) if as_int else total
