"""Correctly rounded ``2ac / (ad + bc)`` (F1 from two ratios) for integers below 2**53, vectorised.

Precision ``a / b`` and recall ``c / d`` are one IEEE division each, so correctly rounded
whenever the integers are exact in float64 (below 2**53). F1's products ``a·d`` are not
once the integers pass 2**26 (long spans: counts of characters). Instead of Python
integers per row, the products are formed exactly as float pairs (Dekker's
``two_prod``), the quotient to about 2**-100 relative error, and rounded once; a row
whose quotient lies so close to a rounding boundary that this error could matter
(an exact midpoint, or within 2**-90 of one) is reported so the caller decides it in
exact integers. Rows with NaN or infinite inputs are reported as well.

Most rows never need the products: when both ratios share their numerator (``a == c``,
every count metric but CLEval with a penalty), ``2a·a / (a·d + b·a)`` is exactly
``2a / (b + d)``, and ``2a`` and ``b + d`` are exact in float64 whenever ``b + d`` is
below 2**53, so one IEEE division rounds the exact rational correctly (`f1_of_counts`).
"""

from __future__ import annotations

import numpy as np

_WIDE = 2.0**53  # integers beyond are inexact in float64
_SPLIT = 134217729.0  # 2**27 + 1 (Veltkamp split of a float64 into two 26-bit halves)


def _two_prod(x, y):
    """``x * y == p + e`` exactly (no fused multiply-add in numpy: Dekker's products)."""
    p = x * y
    t = _SPLIT * x
    xh = t - (t - x)
    xl = x - xh
    t = _SPLIT * y
    yh = t - (t - y)
    yl = y - yh
    e = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl
    return p, e


def _two_sum(x, y):
    """``x + y == s + e`` exactly."""
    s = x + y
    bb = s - x
    e = (x - (s - bb)) + (y - bb)
    return s, e


def f1_of_counts(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``(f1, decided)``: ``2ac / (ad + bc)`` correctly rounded where ``decided``, for
    float64 arrays of non-negative integers below 2**53; a row with ``b == 0`` or
    ``d == 0`` (an undefined ratio, the caller's policy) is never decided.

    A row with ``a == c`` and ``b + d < 2**53`` is one division of exact integers (the
    ratio reduces by ``a``; ``a == 0`` gives 0.0, as ``2ac == 0`` does); the others take
    `f1_ratio`, whose unsure rows stay undecided for the caller's exact integers.
    """
    defined = (b > 0) & (d > 0)
    with np.errstate(all="ignore"):
        s = b + d  # below 2**53 only when exact: float rounding is monotonic
        same = (a == c) & (s < _WIDE) & defined
        f1 = np.divide(2.0 * a, s, out=np.zeros_like(a), where=same)
    decided = same
    rest = np.flatnonzero(defined & ~same)
    if rest.size:
        f, unsure = f1_ratio(a[rest], b[rest], c[rest], d[rest])
        f1[rest] = f
        decided[rest] = ~unsure
    return f1, decided


def f1_ratio(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """``(f1, unsure)``: ``2ac / (ad + bc)`` correctly rounded (0.0 where ``ad + bc == 0``)
    for float64 arrays of non-negative integers below 2**53, and the rows where that is
    not certain (to be decided exactly by the caller)."""
    with np.errstate(all="ignore"):
        nh, nl = _two_prod(a, c)
        nh, nl = 2.0 * nh, 2.0 * nl
        p1, e1 = _two_prod(a, d)
        p2, e2 = _two_prod(b, c)
        s, t = _two_sum(p1, p2)
        t = t + (e1 + e2)
        dh = s + t
        dl = t - (dh - s)
        q1 = nh / dh
        ph, pl = _two_prod(q1, dh)
        r = (((nh - ph) - pl) + nl) - q1 * dl
        q2 = r / dh
        f1, err = _two_sum(q1, q2)
        half_ulp = np.spacing(np.abs(f1)) * 0.5
        # Below a power of two the spacing halves: the boundary there is a quarter ulp.
        below_pow2 = (np.frexp(f1)[0] == 0.5) & (err < 0)
        unsure = ~np.isfinite(f1) | ~np.isfinite(err) | below_pow2 | (
            np.abs(np.abs(err) - half_ulp) <= np.abs(f1) * 2.0**-90)
    zero = dh == 0
    f1 = np.where(zero, 0.0, f1)
    return f1, unsure & ~zero
