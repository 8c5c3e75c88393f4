"""Paired comparison of detectors scored on the same examples.

For every pair of detectors (or every detector against a baseline), every metric and
measure: both scores, their difference, a paired-bootstrap interval of the difference
and a p-value, Holm-corrected across the detector pairs of each metric and measure.
Everything is computed from per-example statistics; spans are matched once.

Tests
    ``"paired_bootstrap"``: both detectors are reweighted with the *same* Poisson
    bootstrap weights (`mycelium.stats.bootstrap`), giving the distribution of the difference;
    the two-sided p-value is ``min(1, 2 (1 + #{d* on the far side of 0}) / (R + 1))``.
    ``"permutation"``: under the null hypothesis the two detectors are exchangeable on
    each example, so each resample swaps the two detectors' statistics on a random half
    of the examples; ``p = (1 + #{|d*| >= |d|}) / (R + 1)``. The interval is the paired
    bootstrap one in both cases.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from ..core.aggregate import metric_measures, aggregate
from ..core.exactsum import LIMB_COLUMNS, Parts, limbs
from ..core.groups import COMPARISON_COLUMNS
from ..core.pipeline import compute_statistics, prepare, warn_empty_spans
from ..core.progress import Bar, running, wanted
from ..core.settings import Settings, resolve_settings
from ..core.signature import signature_with
from ..core.profiles import Profile
from ..core.types import TESTS, Average, Missing, ProfileName, Test, ZeroDivision
from ..errors import MyceliumError
from ..metrics import STATISTIC_METRICS
from ..core.exactsum import combine_limbs, exact_total, limb_matrix, reweight
from .bootstrap import (example_keys, mix64, percentile_interval, resample_chunks,
                        resampled_values)

__all__ = ["compare", "holm"]

#: The frame's columns, in order (`mycelium.core.groups` reserves them from ``by``).
COLUMNS = COMPARISON_COLUMNS


def compare(references: Any, predictions: Mapping[str, Any], *, baseline: str | None = None,
            text: Any = None, profile: ProfileName | str | Profile | None = None,
            metrics: str | Sequence[str] | None = None, average: Average | None = None,
            zero_division: ZeroDivision | None = None,
            params: Mapping[str, Mapping[str, Any]] | None = None,
            missing: Missing = "error", test: Test = "paired_bootstrap",
            n_resamples: int = 1000, seed: int = 0, ci: float = 0.95,
            ids: Sequence[Any] | None = None, progress: bool | None = None) -> pd.DataFrame:
    """Compare detectors pairwise on the same examples.

    Parameters
    ----------
    references : span sets
        The reference spans, one span set per example (any form `evaluate` accepts).
    predictions : mapping of str to span sets
        Each detector's predictions for the same examples in the same order.
    baseline : str, optional
        Compare every other detector with this one; default: every pair, in the
        mapping's order (``a`` before ``b``).
    test : {"paired_bootstrap", "permutation"}
        How the p-value is computed (see the module docstring).
    n_resamples, seed, ci
        Resamples, seed and level of the paired-bootstrap interval of the difference.
    ids : sequence, optional
        Example ids: the resampling keys (results then do not depend on row order).
    progress : bool, optional
        A progress bar over the resamples of every detector (and, for the permutation
        test, of every pair); default: only on a terminal or in a notebook, for long runs.
    text, profile, metrics, average, zero_division, params, missing
        As in `mycelium.evaluate`.

    Returns
    -------
    pandas.DataFrame
        One row per (pair, metric, measure) with columns ``detector_a, detector_b,
        metric, measure, value_a, value_b, difference (a - b), ci_low, ci_high, p_value,
        p_holm, test, n_resamples, examples, average, profile``; ``attrs`` holds the
        signature (``"mycelium_signature"``) and the zero-length spans given
        (``"mycelium_empty_spans"``: the references' once, every detector's predictions).

    Raises
    ------
    TypeError
        ``predictions`` is not a mapping of at least two detectors.
    KeyError
        ``baseline`` is not one of the detectors.
    ValueError
        Bad option values, ``ids`` of the wrong length, or detectors dropping different
        examples under ``missing="drop"``.
    SpanValidationError
        Bad spans (the message names the side, example and span).

    Examples
    --------
    >>> refs = [[[0, 10]], [[4, 7]], [[2, 5]], [[0, 3]]] * 10
    >>> good = [[[0, 10]], [[4, 7]], [[2, 5]], [[0, 3]]] * 10
    >>> poor = [[[5, 9]], [], [[0, 1]], [[1, 9]]] * 10
    >>> out = compare(refs, {"good": good, "poor": poor}, metrics="iou", n_resamples=200)
    >>> row = out.iloc[0]
    >>> row.detector_a, row.detector_b, round(float(row.difference), 4), bool(row.p_value < 0.01)
    ('good', 'poor', 0.8444, True)
    """
    if test not in TESTS:
        raise ValueError(f"test={test!r}; expected one of {', '.join(map(repr, TESTS))}.")
    names = _detector_names(predictions, baseline)
    settings = resolve_settings(profile=profile, metrics=metrics, average=average,
                                zero_division=zero_division, params=params, missing=missing,
                                ci=ci, n_resamples=n_resamples, seed=seed,
                                ids=ids is not None)
    stats, n, empty = _statistics(references, predictions, names, text, settings)
    keys = example_keys(n, ids) if ids is not None else np.arange(n, dtype=np.uint64)
    if ids is not None and len(ids) != n:
        raise ValueError(f"ids has {len(ids)} entries but there are {n} examples.")
    pairs = ([(d, baseline) for d in names if d != baseline] if baseline is not None
             else list(itertools.combinations(names, 2)))
    R = settings.resampling().n_resamples
    steps = R * (len(names) + (len(pairs) if test == "permutation" else 0))
    with running(steps, "compare", wanted(progress, steps * n), unit="resample") as bar:
        boot = {d: _resampled(stats[d], keys, settings, bar) for d in names}
        nulls = (_permutation_differences(stats, pairs, keys, settings, bar)
                 if test == "permutation" else {})
    rows = []
    for a, b in pairs:
        rows.extend(_pair_rows(a, b, stats, boot, nulls.get((a, b)), settings, test, n))
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    frame["p_holm"] = _holm_by_measure(frame)
    frame.attrs["mycelium_signature"] = signature_with(settings.signature(), test=test)
    frame.attrs["mycelium_empty_spans"] = {"references": empty[0], "predictions": empty[1]}
    return frame


def _detector_names(predictions, baseline) -> list[str]:
    if not isinstance(predictions, Mapping) or len(predictions) < 2:
        raise TypeError("predictions must be a mapping of at least two detector names to "
                        "their span sets, e.g. {'a': preds_a, 'b': preds_b}.")
    names = list(predictions)
    if baseline is not None and baseline not in predictions:
        raise KeyError(f"baseline {baseline!r} is not one of the detectors {names}.")
    return names


def _statistics(references, predictions, names, text, settings: Settings):
    """Each detector's per-example statistics, and the number of examples kept. Zero-length
    spans are told once: the references' once, the predictions' of every detector."""
    stats: dict[str, dict[str, dict[str, np.ndarray]]] = {}
    kept: np.ndarray | None = None
    empty, first = [0, 0], None
    for d in names:
        try:
            prepared = prepare(references, predictions[d], text=text,
                               missing=settings.missing, warn_empty=False)
        except (ValueError, TypeError) as exc:
            if isinstance(exc, MyceliumError):
                raise
            raise type(exc)(f"detector {d!r}: {exc}") from None
        if kept is not None and not np.array_equal(kept, prepared.kept):
            raise ValueError(f"detector {d!r} has null predictions on other examples than "
                             f"{names[0]!r}; with missing='drop' every detector must drop "
                             "the same examples, so that the comparison stays paired.")
        kept = prepared.kept
        stats[d] = compute_statistics(prepared.refs, prepared.preds, settings.span_metrics,
                                      settings.params)
        refs, preds = prepared.empty_spans
        empty = [refs, empty[1] + preds]  # the same references for every detector
        at = prepared.first_empty
        if first is None and at is not None:
            first = str(at) if at.side == "references" else f"detector {d!r}: {at}"
    if first is not None:
        warn_empty_spans((empty[0], empty[1]), first)
    return stats, 0 if kept is None else int(kept.sum()), empty


def _resampled(stats, keys, settings: Settings, bar: Bar):
    b = settings.resampling()
    return resampled_values(stats, keys=keys, average=settings.average,
                            zero_division=settings.zero_division, params=settings.params,
                            seed=b.seed, n_resamples=b.n_resamples, progress=bar.update)


def _pair_rows(a, b, stats, boot, nulls, settings: Settings, test: str, n: int):
    va = aggregate(stats[a], average=settings.average, zero_division=settings.zero_division,
                   params=settings.params)
    vb = aggregate(stats[b], average=settings.average, zero_division=settings.zero_division,
                   params=settings.params)
    ci, R = settings.resampling().ci, settings.resampling().n_resamples
    profile = settings.profile.name if settings.profile else None
    for metric in settings.metrics:
        for measure, value_a in va[metric].items():
            value_b = vb[metric][measure]
            diff = value_a - value_b
            star = boot[a][metric][measure] - boot[b][metric][measure]
            low, high = percentile_interval(star, ci, diff)
            if nulls is None:
                p = _bootstrap_p(star)
            else:
                p = _permutation_p(nulls[metric][measure], diff)
            yield (a, b, metric, measure, value_a, value_b, diff, low, high, p, math.nan,
                   test, R, n,
                   "macro" if metric not in STATISTIC_METRICS else settings.average,
                   profile)


def _bootstrap_p(star: np.ndarray) -> float:
    star = star[~np.isnan(star)]
    if star.size == 0:
        return math.nan
    far = min(int((star <= 0).sum()), int((star >= 0).sum()))
    return min(1.0, 2.0 * (1 + far) / (star.size + 1))


def _permutation_p(null: np.ndarray, diff: float) -> float:
    null = null[~np.isnan(null)]
    if null.size == 0 or math.isnan(diff):
        return math.nan
    tol = 1e-12 * max(1.0, abs(diff))
    return (1 + int((np.abs(null) >= abs(diff) - tol).sum())) / (null.size + 1)


def _coins(keys: np.ndarray, seed: int, resamples: range) -> np.ndarray:
    """1.0 where resample r swaps the detectors on example i (a fair, keyed coin)."""
    with np.errstate(over="ignore"):
        salt = mix64(np.uint64(seed) ^ np.uint64(0xC0FFEE15BADC0DE5))
        base = mix64(keys.astype(np.uint64) ^ salt)
        r = np.arange(resamples.start, resamples.stop, dtype=np.uint64)[:, None]
        bits = mix64(base[None, :] + (r + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15))
    return (bits >> np.uint64(63)).astype(np.float64)


def _permutation_differences(stats, pairs, keys, settings: Settings, bar: Bar):
    """Difference a - b in each permutation resample, for every pair:
    ``{(a, b): {metric: {measure: (R,)}}}``. One coin matrix per chunk of resamples
    serves every pair; each pair's reweighting is one matrix product."""
    b = settings.resampling()
    layout = {pair: _SwapLayout(stats[pair[0]], stats[pair[1]], settings) for pair in pairs}
    out: dict = {pair: {} for pair in pairs}
    for chunk in resample_chunks(b.n_resamples):
        c = _coins(keys, b.seed, chunk)
        for pair, lay in layout.items():
            for metric, values in lay.differences(c).items():
                for measure, arr in values.items():
                    out[pair].setdefault(metric, {}).setdefault(measure, []).append(arr)
            bar.update(len(chunk))
    return {pair: {m: {k: np.concatenate(v) for k, v in meas.items()}
                   for m, meas in res.items()} for pair, res in out.items()}


class _SwapLayout:
    """The columns of two detectors whose swap, example by example, is one product.

    Every swapped sum is exact, as in `mycelium.stats.bootstrap`: summed (micro) statistics
    as the 28-bit limbs of `mycelium.core.exactsum.limb_matrix` (one width for both
    detectors), averaged values as `mycelium.core.exactsum` limbs. A swap adds ``b - a`` of
    the swapped examples to detector a's sums (and takes it from b's): limb
    differences stay below 2**29, so the coin products (`mycelium.core.exactsum.reweight`)
    are exact, and each resample's sums — hence its values — equal the core's on the
    swapped examples.
    """

    def __init__(self, sa, sb, settings: Settings) -> None:
        self.settings = settings
        zd, params = settings.zero_division, settings.params
        micro = settings.average == "micro"
        self.summed = [(m, k) for m in sa if micro and m in STATISTIC_METRICS
                       for k in sa[m]]
        pa_ = {m: metric_measures(m, st, params.get(m, {}), zd) for m, st in sa.items()}
        pb_ = {m: metric_measures(m, st, params.get(m, {}), zd) for m, st in sb.items()}
        self.averaged = [(m, k) for m in sa if not (micro and m in STATISTIC_METRICS)
                         for k in pa_[m]]
        n = len(next(iter(next(iter(sa.values())).values()))) if sa else 0
        # both detectors' statistics in one limb matrix: the same width for a and b
        both = [np.concatenate([np.asarray(sa[m][k]).astype(object),
                                np.asarray(sb[m][k]).astype(object)])
                if _wide(sa[m][k], sb[m][k]) else
                np.concatenate([np.asarray(sa[m][k]), np.asarray(sb[m][k])])
                for m, k in self.summed]
        stat_limbs, self.widths = limb_matrix(both, 2 * n)
        self.kinds = both
        limbs_a = [stat_limbs[:n]] + [limbs(pa_[m][k]) for m, k in self.averaged]
        limbs_b = [stat_limbs[n:]] + [limbs(pb_[m][k]) for m, k in self.averaged]
        la, lb = np.hstack(limbs_a), np.hstack(limbs_b)
        self.delta = lb - la
        self.base_a = [exact_total(c) for c in la.T]
        self.base_b = [exact_total(c) for c in lb.T]

    def differences(self, c: np.ndarray) -> dict:
        moved = reweight(c, self.delta)
        ta = _shifted(self.base_a, moved, +1)
        tb = _shifted(self.base_b, moved, -1)
        zd, params = self.settings.zero_division, self.settings.params
        out: dict = {}
        width = sum(self.widths)
        sums_a: dict = {}
        sums_b: dict = {}
        summed_a = combine_limbs(_matrix(ta[:width]), self.widths, self.kinds)
        summed_b = combine_limbs(_matrix(tb[:width]), self.widths, self.kinds)
        for (m, k), a, b in zip(self.summed, summed_a, summed_b):
            sums_a.setdefault(m, {})[k] = a
            sums_b.setdefault(m, {})[k] = b
        for m in sums_a:
            ma = metric_measures(m, sums_a[m], params.get(m, {}), zd)
            mb = metric_measures(m, sums_b[m], params.get(m, {}), zd)
            out[m] = {k: ma[k] - mb[k] for k in ma}
        step = len(LIMB_COLUMNS)
        for i, (m, k) in enumerate(self.averaged):
            at = width + step * i
            mean_a = _means(ta[at:at + step])
            mean_b = _means(tb[at:at + step])
            out.setdefault(m, {})[k] = mean_a - mean_b
        return out


def _wide(a, b) -> bool:
    """Whether two integer statistics must be joined as Python ints (one is beyond
    int64), so that `mycelium.core.exactsum.limb_matrix` splits both the same way."""
    return np.asarray(a).dtype == object or np.asarray(b).dtype == object


def _shifted(base: list, moved: np.ndarray, sign: int) -> list[np.ndarray]:
    """``base + sign · moved``, column by column: int64 when exact, else Python ints
    (object); float columns (residuals) in float64."""
    cols = []
    for total, col in zip(base, moved.T):
        if isinstance(total, float):
            cols.append(total + sign * col.astype(np.float64))
        elif abs(total) < 2**62 and (col.size == 0 or int(np.abs(col).max()) < 2**62):
            cols.append(np.int64(total) + sign * col.astype(np.int64))
        else:
            cols.append(np.array([total + sign * int(x) for x in col.tolist()],
                                 dtype=object))
    return cols


def _matrix(cols: list[np.ndarray]) -> np.ndarray:
    if all(c.dtype == np.int64 for c in cols):
        return np.stack(cols, axis=1) if cols else np.zeros((0, 0), np.int64)
    return np.array([list(row) for row in zip(*(c.tolist() for c in cols))], dtype=object)


def _means(cols: list[np.ndarray]) -> np.ndarray:
    """Correctly rounded means (`mycelium.core.exactsum.Parts`) of summed limb columns."""
    return np.array([Parts(int(h), int(m), int(low), float(r), int(n)).mean()
                     for h, m, low, r, n in zip(*(c.tolist() for c in cols))],
                    dtype=np.float64)


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values (NaN stays NaN).

    Parameters
    ----------
    p_values : array-like of float
        The p-values of one family of tests.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values in the input order: the i-th smallest of m is
        ``max_{j <= i} min(1, (m - j + 1) p_(j))``.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    m = order.size
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def _holm_by_measure(frame: pd.DataFrame) -> np.ndarray:
    """Holm across the detector pairs of each (metric, measure) family."""
    adjusted = np.full(len(frame), np.nan)
    if len(frame):
        for _, idx in frame.groupby(["metric", "measure"], sort=False).indices.items():
            adjusted[idx] = holm(frame["p_value"].to_numpy()[idx])
    return adjusted
