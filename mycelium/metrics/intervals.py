"""Vectorised interval kernels shared by the metrics: order keys, overlap pairs, merging, sums.

Everything here works on flat int64 arrays of many examples at once. Costs depend on the
number of spans (and of overlapping span pairs), never on span lengths: no per-character
array is ever built, so a span ``[0, 2**62)`` costs the same as ``[0, 2)``.

Sums and threshold tests are exact for every valid input. Lengths fit in int64, but a
sum of several lengths (overlapping spans of one example, each near 2**62) may not: a
cheap bound check keeps the int64 path, and only when it fails are the sums that could
leave int64 recomputed with Python integers. Such a result is an object array of Python
ints (every value, so that downstream code never mixes the two); everything that reads
statistics (`mycelium.core.aggregate`, `mycelium.stats.bootstrap`, `mycelium.core.reduce`) accepts it.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import numpy as np

INT64_MAX = np.iinfo(np.int64).max
#: Sums whose float estimate stays below this are exact in int64 (the estimate's error is
#: far below 2**62 for any realistic count of terms).
_SAFE = 2.0**62


@lru_cache(maxsize=64)
def threshold_ratio(threshold: float) -> tuple[int, int]:
    """``(p, q)`` with ``threshold`` read as the decimal it is written as (0.8 = 4/5)."""
    f = Fraction(repr(float(threshold)))
    return f.numerator, f.denominator


def passes(num: np.ndarray, den: np.ndarray, threshold: float) -> np.ndarray:
    """Return ``num / den >= threshold`` decided exactly (``den > 0``, ties pass).

    The threshold is read as its decimal ``p / q`` and the test is ``num·q >= p·den``:
    in int64 when both products fit (the common case), else on a float estimate with
    the near ties (and object inputs) decided in Python integers. ``num >= 0``.
    """
    num, den = np.asarray(num), np.asarray(den)
    p, q = threshold_ratio(threshold)
    if num.size == 0:
        return np.zeros(num.shape, dtype=bool)
    if num.dtype != object and den.dtype != object:
        nmax, dmax = int(num.max()), int(den.max())
        if nmax * q <= INT64_MAX and dmax * p <= INT64_MAX:  # num >= 0: no product wraps
            return num * np.int64(q) >= den * np.int64(p)
    t = p / q
    r = num.astype(np.float64) / den.astype(np.float64)
    out = r >= t
    near = np.flatnonzero(np.abs(r - t) <= 1e-9 * np.maximum(np.abs(r), abs(t)))
    if near.size:
        out[near] = [int(a) * q >= p * int(b)
                     for a, b in zip(num[near].tolist(), den[near].tolist())]
    return out


def exact_add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a + b`` of int64 (or object) arrays, exactly: Python ints where int64 overflows."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == object or b.dtype == object:
        return narrow(a.astype(object) + b.astype(object))
    s = a + b
    if ((a ^ s) & (b ^ s) < 0).any():  # two's-complement overflow test
        return a.astype(object) + b.astype(object)
    return s


def narrow(values: np.ndarray) -> np.ndarray:
    """An object array of Python ints as int64 when every value fits, else unchanged."""
    ints = values.tolist()
    if all(-INT64_MAX <= x <= INT64_MAX for x in ints):
        return np.array(ints, dtype=np.int64)
    return np.array(ints + [None], dtype=object)[:-1]


def order_keys(groups: list[np.ndarray], values: list[np.ndarray],
               n_groups: int, *, spans: bool = False) -> list[np.ndarray]:
    """Map ``(group, value)`` pairs to int64 keys that sort in ``(group, value)`` order
    (`linear_order_keys`, without its flag)."""
    return linear_order_keys(groups, values, n_groups, spans=spans)[0]


def linear_order_keys(groups: list[np.ndarray], values: list[np.ndarray],
                      n_groups: int, *, spans: bool = False
                      ) -> tuple[list[np.ndarray], bool]:
    """Map ``(group, value)`` pairs to int64 keys that sort in ``(group, value)`` order,
    and whether the keys are *linear*: each the value plus a constant of its group, so
    that two keys of one group differ as their values do (False only where some group's
    values were replaced by their ranks, below).

    Keys of different arrays are comparable with each other, so one ``searchsorted`` can
    find, across a whole batch, the spans of the *same* example that satisfy a bound;
    the last key of a group is always below the first key of the next one (so runs never
    touch across groups). Fast path: ``group * K + value`` with ``K = max(value) + 1``
    when that fits in int64. Otherwise (offsets near 2**63) each group keeps only its own
    range: ``base[group] + value - low[group]``, the bases stacking the ranges; a group
    whose range alone is too wide for that (checked group by group) uses the dense ranks
    of its values instead, so only those groups pay for a sort. Values are ``>= 0``.

    ``spans=True``: the arrays come as (starts, ends) pairs over one group array each, as
    in a canonical `SpanBatch`, so the ranges take one reduction per pair
    (`_span_extremes`; checked, else every array is reduced).
    """
    vmax = max((int(v.max()) for v in values if v.size), default=0)
    width = vmax + 1
    if n_groups * width <= INT64_MAX:
        w = np.int64(width)
        return [g.astype(np.int64) * w + v for g, v in zip(groups, values)], True
    runs: dict[int, np.ndarray | None] = {}  # run starts, per group array (often shared)
    if len({id(g) for g in groups}) == 1 and groups[0].size:
        # One sorted group array (a subset of spans): number its runs instead, so that
        # the per-group arrays below are sized to the groups present, not to n_groups.
        first = _runs(groups[0])
        if first is not None and first.size < n_groups:
            new = np.zeros(groups[0].size, dtype=np.int64)
            new[first] = 1
            g = np.cumsum(new) - 1
            groups, n_groups = [g] * len(groups), int(first.size)
            runs[id(g)] = first
    for g in groups:
        if id(g) not in runs:
            runs[id(g)] = _runs(g)
    low, high = _ranges(groups, values, n_groups, runs, spans)
    extent = np.where(low <= high, high - np.minimum(low, high), -1)  # -1: no value
    ranks = None
    if float((extent.astype(np.float64) + 2.0).sum()) >= _SAFE:
        # The ranges do not stack within int64: group by group, a range wider than its
        # share of int64 is replaced by its ranks (the others keep their offsets).
        wide = extent >= (INT64_MAX // 2) // max(n_groups, 1)
        ranks, n_ranks = _dense_ranks(groups, values, wide, n_groups)
        extent = np.where(wide, n_ranks - 1, extent)
    span = extent + 1  # key values per group
    base = np.zeros(n_groups, dtype=np.int64)
    np.cumsum(span[:-1] + 1, out=base[1:])  # +1: a gap between groups
    shift = base - np.minimum(low, high)  # >= -INT64_MAX; base + (v - low) fits
    out, gathered = [], {}
    for k, (g, v) in enumerate(zip(groups, values)):
        if id(g) not in gathered:
            gathered[id(g)] = shift[g]
        key = v + gathered[id(g)]
        if ranks is not None:
            w = wide[g]
            key[w] = base[g[w]] + ranks[k]
        out.append(key)
    return out, ranks is None


def _runs(g: np.ndarray) -> np.ndarray | None:
    """Where each run of equal groups begins, or None when ``g`` is not sorted."""
    if g.size > 1 and not (g[1:] >= g[:-1]).all():
        return None
    new = np.ones(g.size, dtype=bool)
    np.not_equal(g[1:], g[:-1], out=new[1:])
    return np.flatnonzero(new)


def _ranges(groups, values, n_groups, runs, spans):
    """``(low, high)``: the smallest and largest value of each group over every array."""
    low = np.full(n_groups, INT64_MAX, dtype=np.int64)
    high = np.zeros(n_groups, dtype=np.int64)
    if spans and _span_extremes(groups, values, runs, low, high):
        return low, high
    low.fill(INT64_MAX)
    high.fill(0)
    for g, v in zip(groups, values):
        _group_extremes(g, v, low, high, runs[id(g)])
    return low, high


def _span_extremes(groups, values, runs, low, high) -> bool:
    """The extremes from (starts, ends) pairs with one reduction per pair, not four: with
    starts sorted within their groups and no end before its start, a group's smallest
    value is its first start and its largest the largest end. False (``low`` and
    ``high`` then partial) when the pairs are not so."""
    if len(values) % 2:
        return False
    for k in range(0, len(values), 2):
        g, s, e = groups[k], values[k], values[k + 1]
        first = runs[id(g)]
        if groups[k + 1] is not g or first is None or s.size != e.size:
            return False
        if s.size == 0:
            continue
        rising = s[1:] >= s[:-1]
        rising[first[1:] - 1] = True  # a new group may start lower
        if not rising.all() or not (e >= s).all():
            return False
        ids = g[first]
        low[ids] = np.minimum(low[ids], s[first])
        high[ids] = np.maximum(high[ids], np.maximum.reduceat(e, first))
    return True


def _group_extremes(g, v, low, high, first) -> None:
    """Fold each group's minimum and maximum of ``v`` into ``low`` and ``high``
    (``first``: the run starts of a sorted ``g``, see `_runs`)."""
    if v.size == 0:
        return
    if first is None:
        np.minimum.at(low, g, v)
        np.maximum.at(high, g, v)
        return
    ids = g[first]
    rising = v[1:] >= v[:-1]
    rising[first[1:] - 1] = True  # a new group may start lower
    if rising.all():  # sorted within each group (starts): its ends are the extremes
        lo, hi = v[first], v[np.append(first[1:], v.size) - 1]
    else:
        lo, hi = np.minimum.reduceat(v, first), np.maximum.reduceat(v, first)
    low[ids] = np.minimum(low[ids], lo)
    high[ids] = np.maximum(high[ids], hi)


def _dense_ranks(groups, values, wide, n_groups):
    """Dense ranks (from 0, per group) of the values of the ``wide`` groups, across all
    arrays; returns the ranks per array (for its wide entries) and the count per group."""
    sel = [wide[g] for g in groups]
    all_groups = np.concatenate([g[s] for g, s in zip(groups, sel)]).astype(np.int64)
    all_values = np.concatenate([v[s] for v, s in zip(values, sel)])
    order = np.lexsort((all_values, all_groups))
    sg, sv = all_groups[order], all_values[order]
    new_group = np.ones(sg.size, dtype=bool)
    new_group[1:] = sg[1:] != sg[:-1]
    new = new_group.copy()
    new[1:] |= sv[1:] != sv[:-1]
    dense = np.cumsum(new) - 1
    first_rank = dense[np.flatnonzero(new_group)]
    dense -= np.repeat(first_rank, np.diff(np.append(np.flatnonzero(new_group), sg.size)))
    ranks_flat = np.empty(sg.size, dtype=np.int64)
    ranks_flat[order] = dense
    n_ranks = np.zeros(n_groups, dtype=np.int64)
    if sg.size:
        last = np.append(np.flatnonzero(new_group)[1:] - 1, sg.size - 1)
        n_ranks[sg[last]] = dense[last] + 1
    out, pos = [], 0
    for s in sel:
        n = int(s.sum())
        out.append(ranks_flat[pos:pos + n])
        pos += n
    return out, n_ranks


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


def example_blocks(items: np.ndarray, size: int) -> list[tuple[int, int]]:
    """Consecutive example ranges ``[lo, hi)`` covering every example, each of about
    ``size`` items (``items``: per example, each example counting one more), an example
    never split: blocks whose temporaries stay in the cache and reuse their memory.

    Examples
    --------
    >>> import numpy as np
    >>> example_blocks(np.array([3, 0, 5, 1]), 4)
    [(0, 1), (1, 2), (2, 3), (3, 4)]
    >>> example_blocks(np.array([3, 0, 5, 1]), 100)
    [(0, 4)]
    """
    if items.size == 0:
        return []
    ends = np.cumsum(items + 1)
    cuts = np.searchsorted(ends, np.arange(size, int(ends[-1]), size), side="right")
    bounds = np.concatenate([[0], cuts, [items.size]])  # sorted; repeated cuts are empty
    kept = np.flatnonzero(bounds[1:] > bounds[:-1])
    return list(zip(bounds[kept].tolist(), bounds[kept + 1].tolist()))


def span_rows(flat: tuple, lo: int, hi: int) -> tuple:
    """Flat per-example spans ``(offsets, *columns)`` of examples ``lo..hi-1``: their
    offsets counted from 0, views of the columns.

    Examples
    --------
    >>> import numpy as np
    >>> off, s = span_rows((np.array([0, 2, 3, 5]), np.array([1, 4, 7, 8, 9])), 1, 3)
    >>> off.tolist(), s.tolist()
    ([0, 1, 3], [7, 8, 9])
    """
    offsets, *columns = flat
    a, b = int(offsets[lo]), int(offsets[hi])
    return (offsets[lo:hi + 1] - a, *(c[a:b] for c in columns))


def merge_order(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The stable order of ``first`` then ``second`` concatenated (ties: ``first``
    first); for two sorted arrays a single linear merge, several times cheaper than a
    binary search per value."""
    return np.argsort(np.concatenate([first, second]), kind="stable")


def merged_ranks(a: np.ndarray, b: np.ndarray, order: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """For two sorted arrays: ``(#b < a[i] per i, #a <= b[j] per j)``, that is
    ``np.searchsorted(b, a, "left")`` and ``np.searchsorted(a, b, "right")``, from their
    `merge_order` (given, or computed)."""
    if order is None:
        order = merge_order(a, b)
    from_b, b_so_far = _so_far(order, a.size)
    at_a, at_b = np.flatnonzero(~from_b), np.flatnonzero(from_b)
    return b_so_far[at_a], at_b + 1 - b_so_far[at_b]


def count_below(keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``np.searchsorted(keys, values, "left")`` (``keys`` sorted, ``values`` in any
    order) by a `merge_order`: cheaper than binary searches when ``values`` are nearly
    sorted, as the ends of spans sorted by start are."""
    order = merge_order(values, keys)
    from_keys, keys_so_far = _so_far(order, values.size)
    at = np.flatnonzero(~from_keys)
    out = np.empty(values.size, dtype=np.int64)
    out[order[at]] = keys_so_far[at]
    return out


def _so_far(order: np.ndarray, n_first: int) -> tuple[np.ndarray, np.ndarray]:
    """Of a `merge_order`: whether each place holds a value of the second array, and
    how many of the second array's values lie at or before it."""
    second = order >= n_first
    return second, np.cumsum(second, dtype=np.int64)


def running_max(values: np.ndarray) -> np.ndarray:
    """``np.maximum.accumulate``: for integers as ``np.fmax.accumulate``, the same values
    (``fmax`` differs only for NaN) from a several times cheaper loop."""
    return (np.fmax if values.dtype.kind in "iub" else np.maximum).accumulate(values)


def running_min(values: np.ndarray) -> np.ndarray:
    """``np.minimum.accumulate``, as `running_max`."""
    return (np.fmin if values.dtype.kind in "iub" else np.minimum).accumulate(values)


def merge_runs(key_start: np.ndarray, key_end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where merged runs begin, for intervals sorted by (group, start) keys.

    Returns ``(new, reach)``: a bool per interval, True where a new run begins
    (overlapping and touching intervals of one group share a run; a group change always
    starts one, because keys of different groups never interleave), and the running
    maximum of the end keys.
    """
    reach = running_max(key_end) if key_end.size else key_end
    new = np.ones(key_start.size, dtype=bool)
    if key_start.size:
        np.greater(key_start[1:], reach[:-1], out=new[1:])
    return new, reach


def added_lengths(key_start: np.ndarray, key_end: np.ndarray,
                  values: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Characters each interval adds to the earlier ones of its group, for intervals
    sorted by (group, start) keys: ``|[start, end) − ∪ earlier|``, whose sums over a
    group are the characters its intervals cover (every one counted once).

    The earlier intervals reach ``r`` (the running maximum of the end keys; keys of
    different groups never interleave, so an earlier group's reach lies below every
    start of the next) and each adds ``max(0, end − max(start, r))``: read off the key
    differences when the keys are linear (`linear_order_keys`), else off the
    ``values`` ``(starts, ends)``, with the reach's own end value.
    """
    out = np.empty(key_start.size, dtype=np.int64)
    if key_start.size == 0:
        return out
    reach = running_max(key_end)
    if values is None:
        np.maximum(key_start[1:], reach[:-1], out=out[1:])
        out[0] = key_start[0]
        np.subtract(key_end, out, out=out)
        return np.maximum(out, 0, out=out)
    starts, ends = values
    holder = running_max(np.where(key_end == reach, np.arange(reach.size), 0))
    base = starts.copy()
    over = np.flatnonzero(reach[:-1] > key_start[1:]) + 1  # the reach is past its start
    base[over] = np.maximum(starts[over], ends[holder[over - 1]])
    np.subtract(ends, base, out=out)
    return np.maximum(out, 0, out=out)


def segment_sum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Exact per-segment sums of ``values`` for segments ``offsets[k]:offsets[k+1]``
    (int64, or Python ints when a sum leaves int64; see the module docstring)."""
    n = offsets.size - 1
    counts = np.diff(offsets)
    if not _may_overflow(values):
        return _reduceat(values, offsets, counts, n)
    if values.dtype != object and values.dtype.kind != "f":
        # Segment by segment: int64 sums wrap, so they are exact wherever a float
        # estimate of the segment's magnitude stays well inside int64.
        size = _reduceat(np.abs(values.astype(np.float64)), offsets, counts, n)
        if size.max(initial=0.0) < _SAFE:
            return _reduceat(values, offsets, counts, n)
    return group_sum(np.repeat(np.arange(n, dtype=np.int64), counts), values, n)


def segment_count(mask: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """How many of each segment's ``mask`` values are True (segments as `segment_sum`),
    int64."""
    return _running_differences(mask, offsets)


def _running_differences(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per-segment sums of integers (or bools) as differences of their running int64 sum
    at the offsets: the running sum wraps modulo 2**64, so each difference is exact
    where its segment's sum fits; cheaper than ``reduceat`` or ``bincount``."""
    run = np.zeros(values.size + 1, dtype=np.int64)
    np.cumsum(values, out=run[1:])
    return np.diff(run[offsets])


def _reduceat(values, offsets, counts, n):
    """Per-segment sums: `_running_differences` for integers, ``reduceat`` for floats."""
    if values.dtype.kind == "i":
        return _running_differences(values, offsets)
    out = np.zeros(n, dtype=values.dtype)
    nonempty = counts > 0
    if values.size:
        out[nonempty] = np.add.reduceat(values, offsets[:-1][nonempty])
    return out


def _may_overflow(values: np.ndarray) -> bool:
    """Whether some sum of ``values`` could leave int64 (a bound on the whole array)."""
    if values.dtype == object:
        return True
    if values.dtype.kind == "f" or values.size == 0:
        return False
    return int(np.abs(values).max()) * values.size > INT64_MAX


def group_sum(groups: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Exact sums of integer ``values`` by group id (``bincount`` when floats are exact).

    int64 unless a group's sum leaves int64; then every sum is a Python int (object).
    int64 accumulation wraps modulo 2**64, so it is exact for every group whose sum fits;
    a float estimate of each group's magnitude finds the groups that may not.
    """
    if values.size == 0:
        return np.zeros(n, dtype=values.dtype if values.dtype != object else np.int64)
    if values.dtype.kind == "f":
        return np.bincount(groups, weights=values, minlength=n)
    if values.dtype != object:
        bound = int(np.abs(values).max()) * values.size
        if bound < 2**53:
            return np.bincount(groups, weights=values, minlength=n).astype(np.int64)
        if values.min() >= 0:  # lengths: a float sum is exact where it stays below 2**53
            sums = np.bincount(groups, weights=values, minlength=n)
            if sums.max() < 2.0**52:  # each partial sum is then an exact integer
                return sums.astype(np.int64)
        out = np.zeros(n, dtype=np.int64)
        np.add.at(out, groups, values)
        if bound <= INT64_MAX:
            return out
        size = np.bincount(groups, weights=np.abs(values.astype(np.float64)), minlength=n)
        risky = size >= _SAFE
        if not risky.any():
            return out
    else:
        out = np.zeros(n, dtype=np.int64)
        risky = np.ones(n, dtype=bool)
    exact = out.tolist()
    sel = risky[groups]
    for g in np.flatnonzero(risky).tolist():
        exact[g] = 0
    for g, v in zip(groups[sel].tolist(), values[sel].tolist()):
        exact[g] += int(v)
    return narrow(np.array(exact + [None], dtype=object)[:-1])


def count(groups: np.ndarray, n: int) -> np.ndarray:
    """Number of occurrences of each group id in ``0..n-1`` as int64."""
    return np.bincount(groups, minlength=n).astype(np.int64, copy=False)
