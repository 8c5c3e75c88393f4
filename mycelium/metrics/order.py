"""Orders of integer keys and numbers of distinct values, by the fastest exact means.

numpy's stable ``argsort`` of int64 keys is a merge sort; its plain ``sort`` of 64-bit
integers is vectorised and several times faster on keys in no particular order. When a
key's range and the positions fit in 64 bits together, `stable_order` sorts
``(key, position)`` packed into one uint64 and reads the positions back: the stable
order itself (ties stay in position order), not an approximation of it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["stable_order", "codes_in_order"]

#: Below this many keys the merge sort is as fast.
_PACK_FROM = 4096


def stable_order(key: np.ndarray) -> np.ndarray:
    """``np.argsort(key, kind="stable")`` of an integer array, as int64 positions."""
    key = np.asarray(key)
    n = key.size
    if n < _PACK_FROM or key.dtype.kind not in "iu":
        return np.argsort(key, kind="stable")
    lo, hi = int(key.min()), int(key.max())
    shift = (n - 1).bit_length()
    if (hi - lo).bit_length() + shift > 64:
        return np.argsort(key, kind="stable")
    # In 64 bits before subtracting: a narrow type's range can exceed the type itself.
    wide = key.astype(np.uint64 if key.dtype.kind == "u" else np.int64, copy=False)
    packed = (wide - wide.dtype.type(lo)).astype(np.uint64, copy=False) if lo else \
        wide.astype(np.uint64)
    packed <<= np.uint64(shift)
    packed |= np.arange(n, dtype=np.uint64)
    packed.sort()
    packed &= np.uint64((1 << shift) - 1)
    return packed.astype(np.int64)


def codes_in_order(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, distinct)``: the sorted distinct values of a float array and the
    position of each value among them (``np.searchsorted(distinct, values)``), by
    hashing (``pandas.factorize``) and sorting only the distinct values. ``-0.0`` and
    ``0.0`` are one value; NaN is not expected."""
    from pandas import factorize

    codes, distinct = factorize(np.asarray(values, dtype=np.float64), sort=False)
    order = np.argsort(distinct, kind="stable")
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return rank[codes], distinct[order]
