"""From per-example statistics to per-example, micro and macro values.

This module is the single place where undefined values (``0/0``) are decided:
``zero_division`` for precision and recall, the metric's fixed value where it has one
(IoU of two empty sets is 1.0). Everything that aggregates — `mycelium.evaluate`, the
dataframe faces, groups — goes through these functions.

Rules
    - A measure is ``numerator / denominator`` of the metric's statistics.
    - Undefined precision/recall take ``zero_division`` (0.0, 1.0 or NaN for ``"nan"``).
    - F1 of P = a/b and R = c/d is ``2ac / (ad + bc)`` (one rounding: P = 1, R = 0.6
      gives exactly 0.75); 0.0 when P + R = 0; NaN when P or R is NaN.
    - macro = mean over examples of the per-example values; under ``"nan"`` an undefined
      example is left out, and a mean over no values is NaN. Means are exact and
      correctly rounded (`mycelium.core.exactsum`): independent of order and batching.
    - micro = the measure computed from the batch sums of the statistics.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from ..metrics import STATISTIC_METRICS, resolve_params
from .exactsum import Parts, exact_mean, exact_total, f1_of_counts, f1_ratio, parts
from .types import AVERAGES, Average, ZeroDivision

__all__ = ["aggregate", "per_example", "sum_statistics", "resolve_zero_division",
           "undefined_counts", "warn_undefined"]


def resolve_zero_division(value: ZeroDivision) -> float:
    """0.0, 1.0 or NaN from the accepted spellings (0, 1, 0.0, 1.0, "nan", float nan;
    "warn" is 0.0 with a warning, see `warns`)."""
    if isinstance(value, str) and value.lower() == "nan":
        return math.nan
    if warns(value):
        return 0.0
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
            value, (bool, np.bool_)):
        if math.isnan(value):
            return math.nan
        if value in (0, 1):
            return float(value)
    raise ValueError(f"zero_division={value!r} is not supported; expected 0.0, 1.0, "
                     "'nan' or 'warn' (the value of an undefined precision or recall).")


def warns(value: object) -> bool:
    """Whether a ``zero_division`` value asks for an `UndefinedMetricWarning`."""
    return isinstance(value, str) and value.lower() == "warn"


def zero_division_name(value: ZeroDivision) -> ZeroDivision:
    """The canonical spelling of an accepted ``zero_division``: 0.0, 1.0, "nan" or "warn"."""
    return "warn" if warns(value) else zero_division_label(resolve_zero_division(value))


def zero_division_label(value: float) -> ZeroDivision:
    """The public spelling of a resolved ``zero_division`` (for meta and signatures)."""
    return "nan" if math.isnan(value) else float(value)


def per_example(stats: Mapping[str, Mapping[str, np.ndarray]], *,
                zero_division: ZeroDivision = 0.0,
                params: Mapping[str, Mapping[str, Any]] | None = None
                ) -> dict[str, dict[str, np.ndarray]]:
    """Per-example measure values for every metric in ``stats``.

    Parameters
    ----------
    stats : mapping
        ``{metric: {statistic: array}}`` as returned by `mycelium.statistics`.
    zero_division : {0.0, 1.0, "nan"}
        Value of an undefined precision or recall.
    params : mapping, optional
        Metric parameters (``{"deteval_1d": {...}}``); defaults where absent.

    Returns
    -------
    dict
        ``{metric: {measure: float64 array}}``.

    Raises
    ------
    ValueError
        An unsupported ``zero_division`` or a bad parameter.

    Notes
    -----
    A measure is ``numerator / denominator`` of the statistics; an undefined ``0/0``
    precision or recall takes ``zero_division`` (NaN for ``"nan"``), IoU of two empty
    sides is 1.0. F1 of P = a/b and R = c/d is ``2ac / (ad + bc)``, 0.0 when P + R = 0.

    Examples
    --------
    >>> import numpy as np
    >>> st = {"character": {"tp": np.array([6, 0]), "fp": np.array([0, 0]),
    ...                     "fn": np.array([4, 0])}}
    >>> {k: v.tolist() for k, v in per_example(st)["character"].items()}
    {'precision': [1.0, 0.0], 'recall': [0.6, 0.0], 'f1': [0.75, 0.0]}
    >>> per_example(st, zero_division="nan")["character"]["recall"].tolist()
    [0.6, nan]
    """
    zd = resolve_zero_division(zero_division)
    full = resolve_params(params)
    return {name: metric_measures(name, st, full.get(name, {}), zd)
            for name, st in stats.items()}


def aggregate(stats: Mapping[str, Mapping[str, np.ndarray]], *, average: Average = "macro",
              zero_division: ZeroDivision = 0.0,
              params: Mapping[str, Mapping[str, Any]] | None = None
              ) -> dict[str, dict[str, float]]:
    """Micro or macro values for every metric in ``stats`` (see the module rules).

    Parameters
    ----------
    stats : mapping
        ``{metric: {statistic: array}}`` as returned by `mycelium.statistics` (any
        subset of examples: a group, a resample).
    average : {"macro", "micro"}
        macro: exact mean of the per-example values; micro: the measure of the summed
        statistics. ``soft_spearman`` is always a mean.
    zero_division : {0.0, 1.0, "nan", "warn"}
        Value of an undefined precision or recall; under ``"nan"`` an undefined example
        is left out of macro means; ``"warn"`` is 0.0 plus one
        `mycelium.UndefinedMetricWarning` per measure naming how many examples were
        undefined.
    params : mapping, optional
        Metric parameters (``{"deteval_1d": {...}}``); defaults where absent.

    Returns
    -------
    dict
        ``{metric: {measure: float}}``.

    Raises
    ------
    ValueError
        An unsupported ``average`` or ``zero_division``, or a bad parameter.

    Examples
    --------
    >>> import numpy as np
    >>> st = {"character": {"tp": np.array([6, 3]), "fp": np.array([0, 0]),
    ...                     "fn": np.array([4, 0])}}
    >>> aggregate(st, average="micro")["character"]
    {'precision': 1.0, 'recall': 0.6923076923076923, 'f1': 0.8181818181818182}
    >>> aggregate(st, average="macro")["character"]["recall"]
    0.8
    >>> st["character"] = {"tp": np.array([6, 0]), "fp": np.array([0, 0]),
    ...                    "fn": np.array([4, 0])}
    >>> aggregate(st, zero_division="nan")["character"]  # example 2 is 0/0: left out
    {'precision': 1.0, 'recall': 0.6, 'f1': 0.75}
    """
    if average not in AVERAGES:
        raise ValueError(f"average={average!r} is not supported; expected 'macro' or 'micro'.")
    zd = resolve_zero_division(zero_division)
    full = resolve_params(params)
    if warns(zero_division):
        warn_undefined(stats, average=average, params=full)
    out = {}
    for name, st in stats.items():
        if average == "micro" and name in STATISTIC_METRICS:
            values = metric_measures(name, sum_statistics(st), full.get(name, {}), zd)
            no_score_without_examples(name, values, np.array([_n_examples(st)]))
            out[name] = {m: float(v[0]) for m, v in values.items()}
        elif name in STATISTIC_METRICS:
            out[name] = _macro_means(name, st, full.get(name, {}), zd)
        else:
            # Per-example scores outside the statistics registry (soft_spearman) keep
            # NaN in their mean, as the official Mu-SHROOM file mean does.
            values = metric_measures(name, st, full.get(name, {}), zd)
            out[name] = {m: _plain_mean(v) for m, v in values.items()}
    return out


#: Examples per block of a macro report: a block's per-example measures (a few arrays
#: of this many values) stay in cache, where the same numpy passes over a million
#: examples cost several times as much per value.
REPORT_BLOCK = 1 << 15


def _macro_means(name: str, st, params, zd: float) -> dict[str, float]:
    """``{measure: exact mean}`` of one metric's per-example measures, computed block by
    block of `REPORT_BLOCK` examples. Measures are per example and the exact sums
    (`mycelium.core.exactsum.Parts`) add up as integers, so the means are those of the
    whole arrays bit for bit; a measure with a float residual (values below 2**-31 or
    beyond 1) is summed over the whole array, as before."""
    columns = [np.asarray(v) for v in st.values()]
    n = columns[0].shape[0] if columns and columns[0].ndim == 1 else 0
    if n <= REPORT_BLOCK or any(c.ndim != 1 or c.shape[0] != n for c in columns):
        return {m: mean(v) for m, v in metric_measures(name, st, params, zd).items()}
    sums: dict[str, Parts] = {}
    residual = False
    for a in range(0, n, REPORT_BLOCK):
        block = {k: c[a:a + REPORT_BLOCK] for k, c in zip(st, columns)}
        for m, v in metric_measures(name, block, params, zd).items():
            p = parts(v)
            residual |= p.residual != 0.0
            sums[m] = sums[m] + p if m in sums else p
    if residual:  # float residuals: summed in one order, as for the whole array
        return {m: mean(v) for m, v in metric_measures(name, st, params, zd).items()}
    return {m: p.mean() for m, p in sums.items()}


def undefined_counts(stats: Mapping[str, Mapping[str, np.ndarray]], *, average: Average,
                     params: Mapping[str, Mapping[str, Any]] | None = None,
                     codes: np.ndarray | None = None, n_groups: int = 1
                     ) -> dict[tuple[str, str], tuple[int, int]]:
    """``{(metric, measure): (undefined, of)}`` for the measures ``zero_division`` governs
    (precision, recall; not IoU's fixed 1.0): how many examples have a 0/0 value (macro),
    or how many groups' pooled values are 0/0 (micro; ``codes`` gives each example's
    group, default one group)."""
    full = resolve_params(params)
    out = {}
    for name, st in stats.items():
        if name not in STATISTIC_METRICS:
            continue
        metric = STATISTIC_METRICS[name]
        pooled = st
        if average == "micro":
            pooled = sum_statistics(st) if codes is None else _by_group(st, codes, n_groups)
        for measure, (_, den) in metric.ratios(pooled, full.get(name, {})).items():
            if measure in metric.fixed_undefined:
                continue
            den = np.asarray(den)
            out[(name, measure)] = (int((den == 0).sum()), int(den.size))
    return out


def _by_group(st: Mapping[str, np.ndarray], codes: np.ndarray, n_groups: int
              ) -> dict[str, np.ndarray]:
    out = {}
    for k, v in st.items():
        v = np.asarray(v)
        total = np.zeros(n_groups, dtype=object if v.dtype == object else v.dtype)
        np.add.at(total, codes, v)
        out[k] = total
    return out


def warn_undefined(stats: Mapping[str, Mapping[str, np.ndarray]], *, average: Average,
                   params: Mapping[str, Mapping[str, Any]] | None = None,
                   codes: np.ndarray | None = None, n_groups: int = 1) -> None:
    """One `mycelium.UndefinedMetricWarning` per measure with an undefined value
    (arguments as `undefined_counts`)."""
    import warnings

    from ..errors import UndefinedMetricWarning

    counts = undefined_counts(stats, average=average, params=params, codes=codes,
                              n_groups=n_groups)
    for (metric, measure), (bad, n) in counts.items():
        if not bad:
            continue
        if average == "macro":
            where = f"{bad} of {n} examples are"
        elif codes is None:
            where = "the pooled (micro) value is"
        else:
            where = f"the pooled (micro) values of {bad} of {n} groups are"
        warnings.warn(UndefinedMetricWarning(metric, measure, where),
                      stacklevel=outside_mycelium())


def outside_mycelium(within: tuple[str, ...] = ()) -> int:
    """The ``stacklevel`` of the first frame outside the mycelium package (the user's
    call), so a warning points at the line that asked for it. ``within`` names packages
    whose frames are passed over too: a library that calls mycelium back (Polars, when a
    LazyFrame's ``collect()`` runs its plan).

    >>> outside_mycelium() >= 1
    True
    """
    import os
    import sys

    packages = tuple(os.path.dirname(os.path.abspath(str(sys.modules[name].__file__))) + os.sep
                     for name in within if name in sys.modules)
    packages += (os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,)
    frame: Any = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(packages):
        frame, level = frame.f_back, level + 1
    return level


def mean(values: np.ndarray) -> float:
    """Correctly rounded exact mean of the defined (non-NaN) values; NaN if none.

    Exact and order-independent (`mycelium.core.exactsum`): the same float however examples
    are ordered, grouped, batched or partitioned, so every face and engine agrees bit for
    bit. (The official Mu-SHROOM scorer's ``numpy.mean`` may differ in the last ulp or
    two; never in its printed digits.)
    """
    return exact_mean(values)


def _plain_mean(values: np.ndarray) -> float:
    """Exact mean, NaN if any value is NaN (the official Cor file mean) or none."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0 or np.isnan(values).any():
        return math.nan
    return exact_mean(values)


def _n_examples(st: Mapping[str, np.ndarray]) -> int:
    return int(np.asarray(next(iter(st.values()))).size) if st else 0


def no_score_without_examples(name: str, values: Mapping[str, np.ndarray],
                              examples) -> None:
    """Set NaN, in place, a micro measure's fixed value for an empty sum (IoU's 1.0 when
    ``Σ union = 0``) where there are no examples at all: both sides empty earns 1.0,
    nothing scored earns no score. Precision and recall keep ``zero_division``.

    Examples
    --------
    >>> values = {"score": np.array([1.0, 1.0])}
    >>> no_score_without_examples("iou", values, np.array([0, 3]))
    >>> values["score"].tolist()
    [nan, 1.0]
    """
    if name not in STATISTIC_METRICS:
        return
    none = np.asarray(examples) == 0
    if not none.any():
        return
    for measure in STATISTIC_METRICS[name].fixed_undefined:
        if measure in values:
            values[measure][none] = np.nan


def sum_statistics(st: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Batch sums as length-1 arrays.

    Integer sums (of integer arrays, or of object arrays of Python ints) are exact
    Python ints (object arrays), so micro measures are computed in exact integer
    arithmetic with one final rounding, however large the batch.
    """
    out = {}
    for key, arr in st.items():
        arr = np.asarray(arr)
        if arr.dtype.kind in "iu":
            out[key] = np.array([exact_total(arr)], dtype=object)
        elif arr.dtype == object and all(type(x) is int for x in arr.tolist()):
            # Exact partial sums (e.g. an engine's GROUP BY SUM beyond int64) stay exact.
            out[key] = np.array([sum(arr.tolist())], dtype=object)
        elif arr.size and np.isfinite(arr).all() and np.array_equal(arr, np.trunc(arr)):
            # Whole-number floats (CLEval numerators with a fractional weight that
            # happen to be whole): exact integer sums, as `mycelium.core.reduce` does.
            out[key] = np.array([exact_total(arr)], dtype=object)
        else:  # exactly rounded, so any face summing in any order agrees
            out[key] = np.array([math.fsum(arr.tolist())], dtype=np.float64)
    return out


def metric_measures(name: str, st, params, zd: float) -> dict[str, np.ndarray]:
    """Per-example (or per-sum) measures of metric ``name`` from its statistics ``st``:
    the one rule `per_example`, the reducer and the resampling all apply."""
    if name not in STATISTIC_METRICS:  # a metric that is already a per-example value
        return {key: np.asarray(v, dtype=np.float64) for key, v in st.items()}
    metric = STATISTIC_METRICS[name]
    ratios = {k: (np.asarray(n), np.asarray(d)) for k, (n, d) in metric.ratios(st, params).items()}
    out = finalize_ratios(metric, ratios, zd, exact=False)
    prf = "precision" in ratios
    big = _needs_exact(ratios, _FLOAT_EXACT if prf else _WIDE)  # one division: 2**53
    if big is not None and prf:
        big = _exact_f1(ratios, big, out, zd)
    if big is not None:
        # Integers beyond what float64 computes exactly: recompute those examples with
        # Python integers so every value is still rounded exactly once.
        sub = {k: (n[big].astype(object), d[big].astype(object)) for k, (n, d) in ratios.items()}
        for key, values in finalize_ratios(metric, sub, zd, exact=True).items():
            out[key][big] = values
    return out


_FLOAT_EXACT = 2**26  # products of two such integers stay below 2**53
_WIDE = 2**53  # integers beyond are inexact in float64


def _needs_exact(ratios, limit: int = _FLOAT_EXACT) -> np.ndarray | None:
    """Rows with an integer beyond ``limit`` (int64, or Python ints beyond int64): past
    2**26 a product of two may be inexact in float64 (a cheap bound, row by row)."""
    big = None
    for num, den in ratios.values():
        for arr in (num, den):
            if arr.size and (arr.dtype.kind in "iu" or arr.dtype == object):
                if arr.dtype != object and -limit < arr.min() and arr.max() < limit:
                    continue  # no row: bounds instead of a mask
                mask = (np.abs(arr) >= limit).astype(bool)
                big = mask if big is None else big | mask
    return big if big is not None and big.any() else None


def _exact_f1(ratios, big: np.ndarray, out, zd: float) -> np.ndarray | None:
    """Decide F1 of the ``big`` rows whose integers are all below 2**53 (precision and
    recall are single divisions, exact in float64 already); return the rows still
    needing Python numbers.

    Shared numerators take one division, other rows `mycelium.core.exactsum.f1_ratio`'s
    products. A row with an undefined ratio is already exact in ``out`` when ``zd`` is
    0 or 1: `_fill` puts ``zd / 1`` there, so every product is by 0, 1 or 2 (exact) and
    the float formula rounds once where Python numbers do, at the same operations.
    """
    (pn, pd), (rn, rd) = ratios["precision"], ratios["recall"]
    rows = np.flatnonzero(big)
    whole = rows.size == big.size  # long spans: every row, so no gathers
    ok = np.ones(rows.size, dtype=bool)
    cols = []
    for arr in (pn, pd, rn, rd):
        v = arr if whole else arr[rows]
        if v.dtype == object:
            v = np.array([x if -_WIDE < x < _WIDE else -1 for x in v.tolist()], dtype=np.int64)
        if not (v.min() >= 0 and v.max() < _WIDE):  # row by row only when bounds fail
            ok &= (v >= 0) & (v < _WIDE)
        cols.append(v.astype(np.float64, copy=False))
    if all(arr.dtype.kind in "iuO" for arr in (pn, rn)):
        f1, decided = f1_of_counts(*cols)
    else:  # fractional CLEval numerators: a shared numerator is not reduced
        defined = (cols[1] > 0) & (cols[3] > 0)
        idx = np.flatnonzero(defined)
        f1 = np.zeros(rows.size)
        decided = np.zeros(rows.size, dtype=bool)
        f1[idx], unsure = f1_ratio(*(c[idx] for c in cols))
        decided[idx] = ~unsure
    decided &= ok
    if zd in (0.0, 1.0):
        done = decided | (ok & ((cols[1] == 0) | (cols[3] == 0)))
    else:
        done = decided
    if whole:
        np.copyto(out["f1"], f1, where=decided)
        left = ~done
    else:
        out["f1"][rows[decided]] = f1[decided]
        left = np.zeros(big.size, dtype=bool)
        left[rows[~done]] = True
    return left if left.any() else None


def finalize_ratios(metric, ratios, zd: float, *, exact: bool) -> dict[str, np.ndarray]:
    """Measures from ``{measure: (num, den)}``; float64, or Python numbers if ``exact``."""
    convert = _as_object if exact else _as_float
    with np.errstate(divide="ignore", invalid="ignore"):
        if "precision" in ratios:
            (pn, pd), (rn, rd) = ratios["precision"], ratios["recall"]
            a, b = _fill(convert(pn), convert(pd), zd)
            c, d = _fill(convert(rn), convert(rd), zd)
            den = a * d + b * c
            f1 = np.where(den == 0, 0.0, (2 * a * c) / np.where(den == 0, 1, den))
            out = {"precision": a / b, "recall": c / d, "f1": f1}
        else:
            out = {}
            for measure, (num, den) in ratios.items():
                fixed = metric.fixed_undefined.get(measure, zd)
                a, b = _fill(convert(num), convert(den), fixed)
                out[measure] = a / b
    return {k: np.asarray(v, dtype=np.float64) for k, v in out.items()}


def _fill(num, den, value: float):
    """Replace an undefined ``0/0`` ratio by ``value / 1``."""
    undefined = den == 0
    if not undefined.any():
        return num, den
    return np.where(undefined, value, num), np.where(undefined, 1, den)


def _as_float(x) -> np.ndarray:
    x = np.asarray(x)
    return x if x.dtype == object else x.astype(np.float64, copy=False)


def _as_object(x) -> np.ndarray:
    return np.asarray(x).astype(object)
