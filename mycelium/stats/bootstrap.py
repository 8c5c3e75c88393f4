"""Bootstrap resampling of per-example statistics: intervals without re-matching spans.

Every aggregate is a function of per-example sufficient statistics, so a resample is
just a reweighting of them: micro re-sums the statistics, macro re-averages the
per-example values. mycelium uses the **Poisson bootstrap**: in resample r, example i
appears ``w[r, i] ~ Poisson(1)`` times, and ``w`` is a pure function of
``(seed, r, key_i)`` where ``key_i`` identifies the example (its position, or a hash of
an example id). Hence the intervals

- are reproducible from the seed alone;
- do not depend on how the work is chunked (over resamples or examples), on the order
  of the examples when ids are given, or on how a distributed engine partitions rows;
- resample *within* each group when results are grouped (a group's resamples reweight
  that group's examples only).

The percentile interval at level ``ci`` is the ``(1 - ci)/2`` and ``(1 + ci)/2``
quantiles (numpy's linear interpolation) of the resampled values, undefined resamples
left out. A resample that draws no example at all (every weight 0, likely in small
groups) is left out of every interval, micro and macro alike, and counted
(``report["meta"]["ci"]["empty_resamples"]``).
"""

from __future__ import annotations

import hashlib
import math
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from ..core.aggregate import metric_measures, resolve_zero_division
from ..core.exactsum import (LIMB_COLUMNS, PRODUCT_BLOCK, Parts, combine_limbs, limb_matrix,
                              limbs, reweight, small_products)
from ..core.types import Average, ZeroDivision
from ..metrics import STATISTIC_METRICS, resolve_params

__all__ = ["example_keys", "poisson_weights", "resampled_values", "percentile_interval",
           "Resampled", "leave_out_empty"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)

# Inverse CDF of Poisson(1): P(W <= k) for k = 0..19 (the tail beyond is < 1e-18).
_POISSON_CDF = np.cumsum([math.exp(-1) / math.factorial(k) for k in range(20)])

#: Resamples generated and reduced together.
CHUNK = 64
#: Examples whose weights are generated and reduced together: memory is bounded by
#: CHUNK x EXAMPLE_BLOCK weights whatever the number of examples. The reweighted sums are
#: exact integers, so the block size never changes a result.
EXAMPLE_BLOCK = 1 << 14


def mix64(x: np.ndarray, inplace: bool = False) -> np.ndarray:
    """splitmix64 finaliser: a bijective, well-mixed hash of uint64 values (of ``x``
    itself when ``inplace``: a uint64 array nobody else holds)."""
    x = x if inplace else np.array(x, dtype=np.uint64)  # a copy, mixed in place
    tmp = np.empty_like(x)
    with np.errstate(over="ignore"):
        for shift, mult in ((30, _M1), (27, _M2), (31, None)):
            np.right_shift(x, np.uint64(shift), out=tmp)
            np.bitwise_xor(x, tmp, out=x)
            if mult is not None:
                np.multiply(x, mult, out=x)
    return x


def example_keys(n: int, ids: Sequence[Any] | None = None) -> np.ndarray:
    """uint64 key per example: its position, or a stable hash of its id (any str/int).

    Parameters
    ----------
    n : int
        Number of examples (used when ``ids`` is None).
    ids : sequence, optional
        One unique id per example; ``np.int64(1)`` and ``1`` are the same id. The key is
        the first 8 bytes of the BLAKE2b hash of ``repr(id)``, so it is the same in every
        process, face and engine.

    Returns
    -------
    numpy.ndarray
        ``uint64`` keys, one per example: the resampling weights of an example are a
        function of its key and the seed only.

    Raises
    ------
    ValueError
        An id occurs more than once.

    Examples
    --------
    >>> example_keys(3).tolist()
    [0, 1, 2]
    >>> example_keys(2, ["a", "b"]).tolist()
    [16860193610431497119, 6211167524623026585]
    """
    if ids is None:
        return np.arange(n, dtype=np.uint64)
    keys = np.empty(len(ids), dtype=np.uint64)
    for i, value in enumerate(ids):
        if isinstance(value, np.generic):
            value = value.item()  # np.int64(1) and 1 are the same id
        digest = hashlib.blake2b(repr(value).encode(), digest_size=8).digest()
        keys[i] = int.from_bytes(digest, "little")
    if np.unique(keys).size != keys.size:
        seen: dict = {}
        for value in ids:
            value = value.item() if isinstance(value, np.generic) else value
            if value in seen:
                raise ValueError(f"example id {value!r} occurs more than once; ids must be "
                                 "unique (each example is one resampling unit).")
            seen[value] = True
    return keys


def poisson_weights(keys: np.ndarray, seed: int, resamples: range) -> np.ndarray:
    """``w[r, i] ~ Poisson(1)`` for r in ``resamples``: a pure function of (seed, r, key).

    Parameters
    ----------
    keys : numpy.ndarray
        Example keys (`example_keys`).
    seed : int
        The seed recorded in the signature.
    resamples : range
        The resample indices wanted; any sub-range gives the same rows as the full one,
        so resamples can be generated in chunks, in any order, on any worker.

    Returns
    -------
    numpy.ndarray
        ``float64`` array of shape ``(len(resamples), keys.size)`` with integer weights.

    Examples
    --------
    >>> w = poisson_weights(example_keys(5), seed=0, resamples=range(3))
    >>> w.shape, w.dtype
    ((3, 5), dtype('float64'))
    >>> w.tolist()
    [[0.0, 0.0, 1.0, 1.0, 0.0], [0.0, 1.0, 0.0, 2.0, 1.0], [0.0, 2.0, 1.0, 3.0, 1.0]]
    >>> bool((poisson_weights(example_keys(5), 0, range(1, 3)) == w[1:]).all())
    True
    """
    return _weights(_key_base(keys, seed), resamples)


def _key_base(keys: np.ndarray, seed: int) -> np.ndarray:
    """Each example's hash under ``seed``, shared by all its resamples."""
    with np.errstate(over="ignore"):
        salt = mix64(np.uint64(seed) * _GOLDEN + np.uint64(1))
        return mix64(keys.astype(np.uint64) + salt)


def _weights(base: np.ndarray, resamples: range) -> np.ndarray:
    """`poisson_weights` from the examples' `_key_base` (one pass per step, in place)."""
    with np.errstate(over="ignore"):
        r = np.arange(resamples.start, resamples.stop, dtype=np.uint64)[:, None]
        bits = base[None, :] + (r + np.uint64(1)) * _GOLDEN
        mix64(bits, inplace=True)
    # Inverse CDF of u = (bits >> 11) / 2**53 by a 2**16-bucket table on the top bits;
    # the few buckets that straddle a CDF step are resolved exactly.
    top = np.right_shift(bits, np.uint64(48)).view(np.int64)
    weights = np.take(_TABLE, top)
    straddle = np.take(_STRADDLE, top)
    if straddle.any():
        u = (bits[straddle] >> np.uint64(11)).astype(np.float64) * (1.0 / 2**53)
        weights[straddle] = np.searchsorted(_POISSON_CDF, u, side="right")
    return weights


def _poisson_table(bits: int = 16) -> tuple[np.ndarray, np.ndarray]:
    lo = np.arange(2**bits, dtype=np.float64) / 2**bits
    hi = (np.arange(2**bits, dtype=np.float64) + 1) / 2**bits
    first = np.searchsorted(_POISSON_CDF, lo, side="right")
    last = np.searchsorted(_POISSON_CDF, hi, side="left")
    return first.astype(np.float64), first != last


_TABLE, _STRADDLE = _poisson_table()


class Resampled(dict):
    """``{metric: {measure: (R,) array}}`` with ``n_empty``: the resamples that drew no
    example (every weight 0), NaN in every array and so left out of every interval.

    Returned by `resampled_values`; a plain dict otherwise.
    """

    n_empty: int = 0


def resampled_values(stats: Mapping[str, Mapping[str, np.ndarray]], *, keys: np.ndarray,
                     average: Average, zero_division: ZeroDivision,
                     params: Mapping[str, Mapping[str, Any]] | None, seed: int,
                     n_resamples: int,
                     progress: Callable[[int], object] | None = None) -> Resampled:
    """The value of every metric/measure in each resample: ``{metric: {measure: (R,)}}``.

    ``stats`` are the per-example statistics of one group (or of the whole batch);
    ``keys`` their example keys. Macro re-averages the per-example values with the
    weights (undefined values under ``zero_division="nan"`` are left out; a per-example
    score that is NaN by definition, as soft_spearman on an empty text, makes every
    resample that includes it NaN, as it makes the estimate NaN); micro re-sums the
    statistics. Every reweighted sum is exact — integer statistics (split into 28-bit
    limbs when they are large, so sums of lengths near 2**62 stay exact), and
    per-example values split into integer limbs (`mycelium.core.exactsum`) — so resampled
    values do not depend on chunking or order, and micro values are computed from the
    exact integer sums with one rounding, as the estimate is.

    A resample that draws no example (every weight 0: likely in small groups) has no
    value, micro or macro: it is NaN in every array (so `percentile_interval` leaves it
    out) and counted in the result's ``n_empty``.

    Parameters
    ----------
    stats : mapping
        ``{metric: {statistic: array}}`` (`mycelium.statistics`), one row per example.
    keys : numpy.ndarray
        The examples' keys (`example_keys`), aligned with the rows of ``stats``.
    average : {"macro", "micro"}
        As in `mycelium.evaluate` (soft_spearman is always a mean).
    zero_division : {0.0, 1.0, "nan"}
        Value of an undefined precision or recall.
    params : mapping or None
        Metric parameters; defaults where absent.
    seed, n_resamples : int
        The weights are `poisson_weights` ``(keys, seed, range(n_resamples))``.
    progress : callable, optional
        Called with the number of resamples done after each chunk.

    Returns
    -------
    Resampled
        ``{metric: {measure: float64 array of length n_resamples}}`` with ``n_empty``.

    Examples
    --------
    >>> st = {"character": {"tp": np.array([6, 3]), "fp": np.array([0, 0]),
    ...                     "fn": np.array([4, 0])}}
    >>> v = resampled_values(st, keys=example_keys(2), average="micro", zero_division=0.0,
    ...                      params=None, seed=0, n_resamples=5)
    >>> v["character"]["recall"].tolist(), v.n_empty
    ([nan, 1.0, 1.0, 0.6923076923076923, 0.6923076923076923], 1)
    """
    zd = resolve_zero_division(zero_division)
    full = resolve_params(params)
    per_ex = {m: metric_measures(m, st, full.get(m, {}), zd) for m, st in stats.items()}
    summed = [(m, k) for m, st in stats.items()
              if average == "micro" and m in STATISTIC_METRICS for k in st]
    averaged = [(m, k) for m, meas in per_ex.items()
                if not (average == "micro" and m in STATISTIC_METRICS) for k in meas]
    # Column layout: total weight, then each summed statistic (one or more limbs), then
    # the limbs of each averaged value, then each averaged value's NaN flag.
    # Columns are kept once each as they come (limb columns repeat), so memory holds the
    # distinct columns, not the whole layout.
    columns = _DistinctColumns(keys.size)
    columns.add(np.ones(keys.size))
    stat_limbs, widths = limb_matrix([stats[m][k] for m, k in summed], keys.size)
    columns.add_all(stat_limbs)
    del stat_limbs
    for m, k in averaged:
        columns.add_all(limbs(per_ex[m][k]))
    for m, k in averaged:
        columns.add(np.isnan(per_ex[m][k]).astype(np.float64))
    total = _sums(columns, keys, seed, n_resamples, progress)
    out = Resampled({m: {} for m in stats})
    sums: dict[str, dict[str, np.ndarray]] = {}
    col = 1 + sum(widths)
    for (m, k), arr in zip(summed, combine_limbs(total[:, 1:col], widths,
                                                 [stats[m][k] for m, k in summed])):
        sums.setdefault(m, {})[k] = arr
    for m, st in sums.items():
        out[m].update(metric_measures(m, st, full.get(m, {}), zd))
    base, width, n_avg = col, len(LIMB_COLUMNS), len(averaged)
    for i, (m, k) in enumerate(averaged):
        cols = total[:, base + width * i: base + width * (i + 1)]
        means = np.array([Parts(int(h), int(mm), int(lo), float(r), int(c)).mean()
                          for h, mm, lo, r, c in cols.tolist()])
        # a NaN score propagates into every resample containing it
        if m not in STATISTIC_METRICS:
            means[total[:, base + width * n_avg + i] > 0] = np.nan
        out[m][k] = means
    out.n_empty = leave_out_empty(out, total[:, 0])
    return out


class _DistinctColumns:
    """Columns added one at a time, each distinct one kept once (limb columns repeat:
    all-ones definedness, zero residuals, zero NaN flags); ``where`` maps every column
    added to its kept copy."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.kept: list[np.ndarray] = []
        self.where: list[int] = []
        self._seen: dict[tuple, list[int]] = {}

    def add(self, column: np.ndarray) -> None:
        col = np.ascontiguousarray(column, dtype=np.float64)
        key = (float(col.sum()), col[:: max(1, self.n // 64)].tobytes())
        for i in self._seen.get(key, []):
            if np.array_equal(self.kept[i], col):
                self.where.append(i)
                return
        self._seen.setdefault(key, []).append(len(self.kept))
        self.where.append(len(self.kept))
        self.kept.append(col)

    def add_all(self, matrix: np.ndarray) -> None:
        for j in range(matrix.shape[1]):
            self.add(matrix[:, j])

    def matrix(self) -> np.ndarray:
        return np.column_stack(self.kept) if self.kept else np.zeros((self.n, 0))


def blocked_sums(matrix: np.ndarray, keys: np.ndarray, seed: int, n_resamples: int,
                 progress: Callable[[int], object] | None = None,
                 example_block: int | None = None) -> np.ndarray:
    """``poisson_weights(keys, seed, range(n_resamples)) @ matrix``, as `reweight` makes
    it, generated and reduced CHUNK resamples by ``example_block`` examples at a time
    (default `EXAMPLE_BLOCK`), each distinct column once.

    Integer-valued columns are summed exactly in int64, so any blocking gives the same
    sums. A column that is not (a float residual) is summed as `reweight` sums it, over
    blocks of 2**20 examples in order: the blocking falls back to those blocks for it.
    """
    columns = _DistinctColumns(keys.size)
    columns.add_all(matrix)
    return _sums(columns, keys, seed, n_resamples, progress, example_block)


def _sums(columns: _DistinctColumns, keys: np.ndarray, seed: int, n_resamples: int,
          progress: Callable[[int], object] | None = None,
          example_block: int | None = None) -> np.ndarray:
    core = columns.matrix()
    columns.kept = []  # the stacked copy is the only one kept
    where = np.asarray(columns.where, dtype=np.int64)
    exact = np.all(core == np.trunc(core), axis=0)
    step = example_block or EXAMPLE_BLOCK
    if not exact.all():
        step = PRODUCT_BLOCK  # float sums in reweight's block order, for identical rounding
    n = keys.size
    base = _key_base(keys, seed)
    ints = np.zeros((n_resamples, core.shape[1]), dtype=np.int64)
    floats = np.zeros((n_resamples, core.shape[1])) if not exact.all() else None
    for chunk in resample_chunks(n_resamples):
        rows = slice(chunk.start, chunk.stop)
        for start in range(0, n, step):
            stop = min(n, start + step)
            # small single-threaded products (`mycelium.core.exactsum.small_products`)
            part = small_products(_weights(base[start:stop], chunk), core[start:stop],
                                  as_int=False)
            if floats is None:
                ints[rows] += part.astype(np.int64)
            else:
                ints[rows, exact] += part[:, exact].astype(np.int64)
                floats[rows, ~exact] += part[:, ~exact]
        if progress is not None:
            progress(len(chunk))
    total = ints if floats is None else np.where(exact, ints, floats)
    return total[:, where]


def leave_out_empty(values: Mapping[str, Mapping[str, np.ndarray]],
                    weight_totals: np.ndarray) -> int:
    """Set NaN, in place, every resample whose total weight is 0 (it drew no example);
    return how many there are. For faces that compute their own resampled sums.

    Parameters
    ----------
    values : mapping
        ``{metric: {measure: (R,) float array}}``, modified in place.
    weight_totals : numpy.ndarray
        The total weight of each resample.

    Returns
    -------
    int
        The number of empty resamples.

    Examples
    --------
    >>> values = {"iou": {"score": np.array([0.5, 0.7])}}
    >>> leave_out_empty(values, np.array([0, 2])), values["iou"]["score"].tolist()
    (1, [nan, 0.7])
    """
    empty = np.asarray(weight_totals) == 0
    if empty.any():
        for measures in values.values():
            for arr in measures.values():
                arr[empty] = np.nan
    return int(empty.sum())


def resample_chunks(n: int) -> Iterator[range]:
    """The resamples ``0..n`` in ranges of `CHUNK` (the unit every resampler weighs)."""
    for start in range(0, n, CHUNK):
        yield range(start, min(n, start + CHUNK))


def percentile_interval(values: np.ndarray, ci: float,
                        estimate: float = 0.0) -> tuple[float, float]:
    """``((1 - ci)/2, (1 + ci)/2)`` quantiles of the defined resampled values.

    NaN when the full-data ``estimate`` itself is NaN (an interval around an undefined
    value would describe only the resamples that happened to avoid the cause).

    Parameters
    ----------
    values : numpy.ndarray
        Resampled values of one measure; NaN values (empty or undefined resamples) are
        left out.
    ci : float
        Confidence level in (0, 1).
    estimate : float
        The full-data estimate (only its NaN-ness matters).

    Returns
    -------
    tuple of float
        ``(low, high)``, by numpy's default (linear) quantile; ``(nan, nan)`` when the
        estimate is NaN or no resample is defined.

    Examples
    --------
    >>> percentile_interval(np.array([0.1, 0.2, 0.3, 0.4, np.nan]), 0.5, 0.25)
    (0.17500000000000002, 0.325)
    >>> percentile_interval(np.array([0.1, 0.2]), 0.95, float("nan"))
    (nan, nan)
    """
    if math.isnan(estimate):
        return math.nan, math.nan
    defined = values[~np.isnan(values)]
    if defined.size == 0:
        return math.nan, math.nan
    low, high = np.quantile(defined, [(1 - ci) / 2, (1 + ci) / 2])
    return float(low), float(high)
