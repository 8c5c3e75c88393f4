"""Exact, order-independent sums of per-example values, mergeable across batches.

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

__all__ = ["LIMB_COLUMNS", "limbs", "Parts", "parts", "exact_mean"]

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


def exact_mean(values: np.ndarray) -> float:
    """Correctly rounded mean of the defined values; NaN when there are none."""
    return parts(values).mean()
