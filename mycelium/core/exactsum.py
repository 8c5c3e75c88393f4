"""Exact arithmetic, in one place: order-independent sums of per-example values
(mergeable across batches), correctly rounded F1 ratios of integer counts, and exact
weighted sums of integer statistics for resampling.

The three sections below: sums of values in [-1, 1] (limbs), ratios (`f1_of_counts`,
`f1_ratio`), weighted sums (`reweight`, `limb_matrix`, `combine_limbs`).


A macro average is a mean of per-example values. Summing floats depends on the order,
so a mean computed in one pass, group by group, batch by batch on a streaming engine, or
partition by partition on a cluster would differ in the last bits. Here every value
``v`` in [-1, 1] is split exactly into three integer *limbs* on the grids 2**-28,
2**-56 and 2**-84::

    v = H / 2**28 + M / 2**56 + L / 2**84 (+ a residual, zero for |v| >= 2**-31)

Limbs are integers below 2**28 in magnitude, so their sums are exact (in float64 up to
2**25 values per sum, in int64 far beyond), in any order and in any engine. A mean is
then ``(ΣH·2**56 + ΣM·2**28 + ΣL) / (2**84 · n)`` rounded once — the correctly rounded
exact mean. Values below 2**-31 in magnitude (ratios of counts beyond 2**31) keep a
floating-point residual, summed as floats.

Examples
--------
>>> import numpy as np
>>> v = np.array([0.1, 0.2, 0.3, 1 / 3])
>>> exact_mean(v) == exact_mean(v[::-1]) == float(sum(map(__import__("fractions").Fraction, v)) / 4)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..metrics.intervals import narrow  # the metrics' rule for arrays of exact integers

__all__ = ["LIMB_COLUMNS", "limbs", "Parts", "parts", "exact_total", "exact_mean",
           "means_of_sums",
           "weighted_means", "f1_of_counts", "f1_ratio", "reweight", "small_products",
           "PRODUCT_BLOCK", "limb_matrix", "combine_limbs"]

_B = 28
_S1, _S2, _S3 = 2.0**_B, 2.0**(2 * _B), 2.0**(3 * _B)
#: Names of the per-value columns (three exact limbs, the float residual, definedness).
LIMB_COLUMNS = ("h", "m", "l", "residual", "defined")
_CHUNK = 1 << 24  # float64 sums of integer limbs stay exact below 2**53


def limb_arrays(values: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(h, m, l, residual, defined)`` as five float64 arrays (h, m, l, defined are
    integer-valued), without building the ``(n, 5)`` matrix of `limbs`."""
    v = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        common = bool(np.all(np.abs(v) <= 1.0))  # False if any NaN or |v| > 1
    if common:
        x, defined = v, np.ones(v.size)
    else:
        defined_mask = ~np.isnan(v)
        inside = np.abs(v) <= 1.0  # False for NaN
        x = np.where(inside, v, 0.0)
        defined = defined_mask.astype(np.float64)
    f, h = np.modf(x * _S1)  # exact: scaling by a power of two, then split
    f *= _S1
    f, m = np.modf(f)
    f *= _S1
    f, low = np.modf(f)
    f /= _S3
    if not common:
        f += np.where(defined_mask & ~inside, v, 0.0)
    return h, m, low, f, defined


def limbs(values: np.ndarray) -> np.ndarray:
    """``(n, 5)`` float64: limbs h, m, l (integer-valued), residual, defined (1/0).

    NaN values are undefined (all columns 0). Values outside [-1, 1] go to the residual.
    """
    v = np.asarray(values, dtype=np.float64)
    defined = ~np.isnan(v)
    inside = defined & (np.abs(v) <= 1.0)
    x = np.where(inside, v, 0.0)
    t = x * _S1
    h = np.trunc(t)
    t = (t - h) * _S1
    m = np.trunc(t)
    t = (t - m) * _S1
    low = np.trunc(t)
    residual = (t - low) / _S3 + np.where(defined & ~inside, v, 0.0)
    return np.stack([h, m, low, residual, defined.astype(np.float64)], axis=-1)


@dataclass(frozen=True)
class Parts:
    """Exact partial sums of limbs (Python ints), the residual sum and the count."""

    h: int = 0
    m: int = 0
    low: int = 0
    residual: float = 0.0
    count: int = 0

    def __add__(self, other: "Parts") -> "Parts":
        return Parts(self.h + other.h, self.m + other.m, self.low + other.low,
                     self.residual + other.residual, self.count + other.count)

    def mean(self) -> float:
        """The correctly rounded mean of the summed values (NaN without values)."""
        if self.count == 0:
            return math.nan
        total = (self.h << (2 * _B)) + (self.m << _B) + self.low
        value = total / (self.count << (3 * _B))
        return value + self.residual / self.count if self.residual else value


def parts(values: np.ndarray) -> Parts:
    """`Parts` of all defined (non-NaN) values."""
    values = np.asarray(values, dtype=np.float64)
    defined = ~np.isnan(values)
    if not defined.all():
        values = values[defined]
    out = Parts()
    for start in range(0, values.size, _CHUNK):
        out = out + _chunk_parts(values[start:start + _CHUNK])
    return out


def _chunk_parts(v: np.ndarray) -> Parts:
    with np.errstate(invalid="ignore"):  # NaN compares False
        unit = bool(v.size) and 0.0 <= v.min() and 0.0 < v.max() <= 1.0
    if unit:
        # The common case (measures in [0, 1], not all zero, none below 2**-31 but 0;
        # then the residual is +0.0, as below): the same limbs from integer steps.
        # ``v·2**28`` splits exactly into ``h`` and a fraction, and the fraction times
        # 2**56 is an integer below 2**56 exactly when the residual is zero; its high
        # and low 28 bits are then ``m`` and ``l`` (``modf`` below gives the same
        # values, at several times the cost).
        t = v * _S1
        h = np.trunc(t)
        t -= h
        t *= _S2
        r = t.astype(np.int64)
        if np.array_equal(r, t):
            return Parts(int(h.sum()), int((r >> _B).sum()), int((r & _MASK).sum()), 0.0,
                         int(v.size))
    with np.errstate(invalid="ignore"):
        common = bool(np.all(np.abs(v) <= 1.0))
    if common:  # `limb_arrays` without the columns a sum does not need
        f, h = np.modf(v * _S1)
        f *= _S1
        f, m = np.modf(f, out=(f, np.empty_like(f)))
        f *= _S1
        f, low = np.modf(f, out=(f, np.empty_like(f)))
        # Residuals are zero for |v| >= 2**-31; then the scaled sum is the same ±0.
        residual = float(f.sum()) / _S3 if not f.any() else float((f / _S3).sum())
        return Parts(int(h.sum()), int(m.sum()), int(low.sum()), residual, int(v.size))
    h, m, low, residuals, defined = limb_arrays(v)
    return Parts(int(h.sum()), int(m.sum()), int(low.sum()), float(residuals.sum()),
                 int(defined.sum()))


def sums_to_parts(sums) -> Parts:
    """`Parts` from summed limb columns (as an engine's GROUP BY SUM returns them)."""
    h, m, low, residual, defined = sums
    return Parts(int(h), int(m), int(low), float(residual), int(defined))


_MASK = (1 << _B) - 1
_STEP = 8            # numerator bits brought down per long-division step
_WANT = 1 << 55      # quotient bits before rounding: 53, a guard bit and more
_SAFE = 1 << 60      # limb sums beyond this (or counts beyond _MAX_COUNT): Python ints
_MAX_COUNT = 1 << 54  # remainder·2**_STEP + chunk stays below 2**63


def means_of_sums(h, m, low, residual, count) -> np.ndarray:
    """`Parts.mean` of many summed limbs at once (one mean per position), bit for bit.

    ``Parts.mean`` divides the Python integer ``h·2**56 + m·2**28 + l`` by
    ``count·2**84``, correctly rounded. Here the same division runs as a long division
    in int64 columns, 8 bits at a time, until each quotient has at least 55 bits; it is
    then rounded to nearest, ties to even, with the remainder as the sticky bit — the
    same double. Sums that int64 cannot carry fall back to `Parts`.
    """
    residual = np.asarray(residual, dtype=np.float64)
    columns = [np.asarray(x) for x in (h, m, low, count)]
    n = residual.size
    if any(x.dtype.kind not in "iu" for x in columns) or (n and (
            max(int(np.abs(x).max()) for x in columns[:3]) >= _SAFE
            or int(columns[3].max()) >= _MAX_COUNT or int(columns[3].min()) < 0)):
        return np.array([sums_to_parts(p).mean() for p in zip(
            *(np.asarray(x).tolist() for x in (h, m, low, residual, count)))],
            dtype=np.float64)
    h, m, low, count = (x.astype(np.int64, copy=False) for x in columns)
    out = np.full(n, math.nan)
    defined = count > 0
    if not defined.all():
        h, m, low, d = h[defined], m[defined], low[defined], count[defined]
    else:
        d = count
    a, b, c = _normalised(h, m, low)
    negative = a < 0  # then the numerator is negative: divide its magnitude
    if negative.any():
        a[negative], b[negative], c[negative] = _normalised(-h[negative], -m[negative],
                                                            -low[negative])
    value = _quotient(a, (b << _B) | c, d)
    value[negative] = -value[negative]
    r, k = residual[defined], d.astype(np.float64)
    with np.errstate(all="ignore"):
        value = np.where(r != 0, value + r / k, value)
    out[defined] = value
    return out


def _normalised(h, m, low):
    """``h·2**56 + m·2**28 + l`` as ``a·2**56 + b·2**28 + c`` with ``0 <= b, c < 2**28``."""
    m = m + (low >> _B)
    c = low & _MASK
    a = h + (m >> _B)
    return a, m & _MASK, c


def _quotient(a, rest, d) -> np.ndarray:
    """``(a·2**56 + rest) / (d·2**84)`` correctly rounded, for ``a >= 0``,
    ``0 <= rest < 2**56`` and ``0 < d < 2**54`` (int64 columns)."""
    q, r = np.divmod(a, d)
    steps = np.zeros(a.size, dtype=np.int64)   # 8-bit quotient digits appended to q
    sticky = np.zeros(a.size, dtype=bool)      # a nonzero digit after the last one kept
    nonzero = (a | rest) != 0
    left = 2 * _B  # numerator bits not yet brought down
    for _ in range(64):
        grow = q < _WANT
        if not (grow & nonzero).any():
            break
        chunk = 0
        if left:
            left -= _STEP
            chunk = (rest >> left) & 0xFF
        digit, r = np.divmod((r << _STEP) + chunk, d)
        q = np.where(grow, (q << _STEP) + digit, q)
        steps += grow
        sticky |= ~grow & (digit != 0)
    # the quotient's bits beyond: nonzero unless the remainder and the bits left are 0
    sticky |= (r != 0) | ((rest & ((1 << left) - 1)) != 0)
    # round q (55 to 63 bits) to 53 bits: to nearest, ties to even
    _, bits = np.frexp(q.astype(np.float64))
    bits = bits.astype(np.int64)
    bits -= (q >> np.maximum(bits - 1, 0)) == 0  # q rounded up to a power of two
    drop = np.maximum(bits - 53, 0)
    kept = q >> drop
    dropped = q & ((np.int64(1) << drop) - 1)
    half = np.where(drop > 0, np.int64(1) << np.maximum(drop - 1, 0), 1)
    up = (dropped > half) | ((dropped == half) & (drop > 0) & (sticky | ((kept & 1) == 1)))
    kept = kept + up
    # q after `steps` digits is floor(numerator·2**(8·steps) / (d·2**56)): the mean is
    # q·2**(-28 - 8·steps)
    value = np.ldexp(kept.astype(np.float64), (drop - _B - _STEP * steps).astype(np.int32))
    value[~nonzero] = 0.0
    return value


def exact_total(values: np.ndarray) -> int | float:
    """The exact sum of one column: a Python int when every value is a whole number
    (an integer column, or floats that are all whole), else ``math.fsum`` (correctly
    rounded, so any order of summing agrees).

    Examples
    --------
    >>> exact_total(np.array([2.0**60, 1.0, -2.0**60])), exact_total(np.array([0.1, 0.2]))
    (1, 0.30000000000000004)
    >>> exact_total(np.array([], dtype=np.int64))
    0
    """
    col = np.asarray(values)
    if col.dtype.kind in "iu" or np.array_equal(col, np.trunc(col)):
        if not col.size or float(np.abs(col).max()) * col.size < 2.0**53:
            return int(col.sum())  # every partial sum is an integer below 2**53: exact
        return sum(int(x) for x in col.tolist())
    return math.fsum(col.tolist())


def exact_mean(values: np.ndarray) -> float:
    """Correctly rounded mean of the defined values; NaN when there are none."""
    return parts(values).mean()


def weighted_means(weights: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per row of ``weights`` (``(rows, n)``, whole numbers >= 0, e.g. bootstrap weights),
    the weighted mean of the defined (non-NaN) ``values`` — ``Σ w·v / Σ w`` over them —
    correctly rounded, so it does not depend on the order of the values; NaN for a row
    whose defined values all weigh 0.

    Each value's limbs are weighted and summed exactly (integers; float64 sums only while
    they stay below 2**53, else int64 in blocks), the residuals (nonzero only for values
    below 2**-31) with ``math.fsum``, then divided as `means_of_sums` does.
    """
    w = np.atleast_2d(np.asarray(weights, dtype=np.float64))
    lim = limbs(values)
    rows, n = w.shape
    peak = float(w.max()) if w.size else 0.0
    step = max(1, int(2**52 // (max(peak, 1.0) * 2**_B)))  # examples per exact block
    sums = np.zeros((rows, 3), dtype=np.int64)
    count = np.zeros(rows, dtype=np.int64)
    for a in range(0, n, step):
        block = w[:, a:a + step] @ lim[a:a + step]  # integer-valued below 2**53: exact
        sums += block[:, :3].astype(np.int64)
        count += block[:, 4].astype(np.int64)
    residual = np.zeros(rows)
    if lim[:, 3].any():
        weighted = w * lim[:, 3]
        residual = np.array([math.fsum(row) for row in weighted.tolist()])
    return means_of_sums(sums[:, 0], sums[:, 1], sums[:, 2], residual, count)


# ------------------------------------------------------------------ ratios
#
# Correctly rounded ``2ac / (ad + bc)`` (F1 from two ratios) for integers below 2**53,
# vectorised.
#
# Precision ``a / b`` and recall ``c / d`` are one IEEE division each, so correctly rounded
# whenever the integers are exact in float64 (below 2**53). F1's products ``a·d`` are not
# once the integers pass 2**26 (long spans: counts of characters). Instead of Python
# integers per row, the products are formed exactly as float pairs (Dekker's
# ``two_prod``), the quotient to about 2**-100 relative error, and rounded once; a row
# whose quotient lies so close to a rounding boundary that this error could matter
# (an exact midpoint, or within 2**-90 of one) is reported so the caller decides it in
# exact integers. Rows with NaN or infinite inputs are reported as well.
#
# Most rows never need the products: when both ratios share their numerator (``a == c``,
# every count metric but CLEval with a penalty), ``2a·a / (a·d + b·a)`` is exactly
# ``2a / (b + d)``, and ``2a`` and ``b + d`` are exact in float64 whenever ``b + d`` is
# below 2**53, so one IEEE division rounds the exact rational correctly (`f1_of_counts`).

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


# ------------------------------------------------------------------ weighted sums
#
# Exact weighted sums ``w @ matrix`` of integer-valued columns (resampling): each summed
# statistic as float64 limb columns (`limb_matrix`), their reweighted sums in small
# products (`reweight`), put back together as integers (`combine_limbs`).
#
# Weights are small integers (Poisson counts or 0/1 coins) and the columns integer limbs
# below 2**29, so float64 products over at most `PRODUCT_BLOCK` examples are exact. Each
# product is kept small (``_INNER`` examples): OpenBLAS runs products under its threading
# threshold on the calling thread, so a busy machine does not make its threads spin
# against each other (a threaded product of these shapes gains little idle and loses up
# to 15x loaded).

PRODUCT_BLOCK = 1 << 20  # examples per exact float64 product (weights * limbs < 2**53)
#: Examples per small matrix product: ``CHUNK x columns x _INNER`` stays
#: below OpenBLAS's threading threshold (65536 * 4 multiply-adds), so each product runs
#: on the calling thread. A threaded product of these shapes gains little on an idle
#: machine and loses up to 15x on a loaded one (its threads spin against each other).
_INNER = 32


def reweight(w: np.ndarray, matrix: np.ndarray, integral: bool = False) -> np.ndarray:
    """``w @ matrix`` exactly for integer-valued columns (each at most 2**29 in
    magnitude, as `limb_matrix` and `limbs` make them, or their
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
        for start in range(0, matrix.shape[0], PRODUCT_BLOCK):
            stop = start + PRODUCT_BLOCK
            out += small_products(w[:, start:stop], matrix[start:stop])
        return out
    residual = np.zeros((w.shape[0], matrix.shape[1]))
    for start in range(0, matrix.shape[0], PRODUCT_BLOCK):
        stop = start + PRODUCT_BLOCK
        part = small_products(w[:, start:stop], matrix[start:stop], as_int=False)
        out[:, exact] += part[:, exact].astype(np.int64)
        residual[:, ~exact] += part[:, ~exact]
    return np.where(exact, out, residual)


def small_products(w: np.ndarray, matrix: np.ndarray, as_int: bool = True) -> np.ndarray:
    """``w @ matrix`` (at most `PRODUCT_BLOCK` examples) as a stack of products over
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


_LIMB = _B  # bits per limb of a large integer statistic (as the value limbs above)


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
