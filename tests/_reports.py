"""Comparing reports: nested dicts of numbers equal to the last bit, NaN equal to NaN."""

from __future__ import annotations

import math


def same(a, b) -> bool:
    """Reports equal to the last bit (NaN == NaN)."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b
