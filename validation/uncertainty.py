"""Bootstrap intervals, paired tests and rank-correlation intervals for every table.

Resampling uses the library's Poisson bootstrap (`mycelium.stats.bootstrap`): each item's
weight in resample ``r`` is a pure function of (seed, r, hash of the item id), so a
language's interval does not depend on which other languages are run, nor on row order.
The resampling unit is always the **item** (an output text): rows that share an item
(its annotators, the detectors scored on it) share its weight, which is the paired and
clustered bootstrap. A macro mean over rows is ``sum_j w_item(j) v_j / sum_j w_item(j)``,
NaN values (undefined Cor) left out, as ``df.groupby().mean()`` leaves them out.

- `Resampler.interval`: estimate and 95% percentile interval of a mean.
- `Resampler.paired`: the same for a mean difference of two aligned columns, with two
  two-sided p-values: ``p_value`` from the bootstrap standard error (normal
  approximation, ``erfc(|d| / se / sqrt 2)``), which Holm's correction
  (`mycelium.stats.comparison.holm`) is applied to, and ``p_bootstrap``, the percentile
  p-value of `mycelium.compare` (``2 (1 + #{d* on the far side of 0}) / (R + 1)``), whose
  floor of 2 / (R + 1) would make Holm over dozens of tests reject nothing. A claim "A
  above B" needs the Holm-adjusted p below 0.05 **and** the percentile interval to
  exclude 0.
- `Resampler.tau`: Kendall's tau-b between the rankings two measures induce on a set of
  detectors, recomputed in every resample.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mycelium.stats.bootstrap import example_keys, percentile_interval, poisson_weights
from mycelium.stats.comparison import holm  # noqa: F401  (re-exported for the parts)

#: Item resamples of every interval (the central table, FaithBench and SHROOM-Visions use
#: `validation.ranking.CENTRAL_RESAMPLES`, the same number and the same weights).
RESAMPLES = 10_000
SEED = 0
LEVEL = 0.95
#: Level of every test (after Holm's correction).
ALPHA = 0.05
MEAN = "MEAN"
#: The power of the detectable difference.
POWER = 0.80
#: z_{0.975} + z_{POWER}: a paired difference this many standard errors wide is detected
#: with 80% power by a two-sided 5% test (normal approximation).
MDD_Z = 1.959963984540054 + 0.8416212335729143


class Resampler:
    """Poisson weights of every item, computed once (``RESAMPLES x items``)."""

    def __init__(self, item_ids) -> None:
        ids = [str(x) for x in item_ids]
        self.weights = poisson_weights(example_keys(len(ids), ids), SEED,
                                       range(RESAMPLES))

    def _means(self, item: np.ndarray, values: np.ndarray) -> tuple:
        """Full-data and resampled means of ``values`` (one column, or ``rows x M``)."""
        values = np.asarray(values, dtype=np.float64)
        flat = values.ndim == 1
        v = values[:, None] if flat else values
        ok = ~np.isnan(v)
        uniq, inv = np.unique(np.asarray(item), return_inverse=True)
        inv = inv.ravel()
        cols = range(v.shape[1])
        sums = np.column_stack([np.bincount(inv, np.where(ok[:, j], v[:, j], 0.0),
                                            minlength=uniq.size) for j in cols])
        counts = np.column_stack([np.bincount(inv, ok[:, j].astype(np.float64),
                                              minlength=uniq.size) for j in cols])
        w = self.weights[:, uniq]
        num, den = w @ sums, w @ counts
        with np.errstate(invalid="ignore", divide="ignore"):
            star = np.where(den > 0, num / den, np.nan)
        est = np.array([v[ok[:, j], j].mean() if ok[:, j].any() else np.nan for j in cols])
        return (float(est[0]), star[:, 0]) if flat else (est, star)

    def intervals(self, item, values) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Column-wise ``(means, lows, highs)`` of a ``rows x M`` array."""
        est, star = self._means(item, values)
        lows, highs = np.full(est.size, np.nan), np.full(est.size, np.nan)
        for k in range(est.size):
            lows[k], highs[k] = percentile_interval(star[:, k], LEVEL, float(est[k]))
        return est, lows, highs

    def interval(self, item, values) -> tuple[float, float, float]:
        """``(mean, low, high)`` of ``values`` (rows of the items ``item``)."""
        est, star = self._means(item, values)
        low, high = percentile_interval(star, LEVEL, est)
        return est, low, high

    def paired(self, item, a, b) -> dict:
        """Mean of ``a - b`` over rows where both are defined: estimate, interval, p."""
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        d = a - b
        est, star = self._means(item, d)
        low, high = percentile_interval(star, LEVEL, est)
        s = star[~np.isnan(star)]
        far = min(int((s <= 0).sum()), int((s >= 0).sum()))
        p_boot = min(1.0, 2.0 * (1 + far) / (s.size + 1)) if s.size else float("nan")
        se = float(np.std(s, ddof=1)) if s.size > 1 else float("nan")
        p = math.erfc(abs(est) / se / math.sqrt(2.0)) if se > 0 else (
            1.0 if est == 0 else 0.0)
        ok = ~np.isnan(d)
        sd = float(np.std(d[ok], ddof=1)) if ok.sum() > 1 else float("nan")
        return {"difference": est, "ci_low": low, "ci_high": high, "bootstrap_se": se,
                "p_value": p, "p_bootstrap": p_boot, "rows": int(ok.sum()),
                "sd_difference": sd}

    def group_means(self, item, detector, values) -> tuple[list, np.ndarray, np.ndarray]:
        """Per detector: full-data means (``detectors x M``) and the resampled means
        (``R x detectors x M``) of the columns of ``values`` (``rows x M``)."""
        item, values = np.asarray(item), np.asarray(values, np.float64)
        names = list(dict.fromkeys(detector))
        det = np.asarray(detector)
        est = np.empty((len(names), values.shape[1]))
        star = np.empty((RESAMPLES, len(names), values.shape[1]))
        for k, name in enumerate(names):
            sel = det == name
            est[k], star[:, k] = self._means(item[sel], values[sel])
        return names, est, star


def tau_interval(est_a, star_a, est_b, star_b) -> tuple[float, float, float]:
    """tau-b of two detector rankings and its interval from resampled means."""
    est = float(tau_b(est_a[None, :], est_b[None, :])[0])
    low, high = percentile_interval(tau_b(star_a, star_b), LEVEL, est)
    return est, low, high

    def tau(self, item, detector, values_a, values_b) -> tuple[float, float, float]:
        """Kendall's tau-b between the detector rankings of two measures, with interval."""
        _, est, star = self.group_means(item, detector,
                                        np.column_stack([values_a, values_b]))
        return tau_interval(est[:, 0], star[:, :, 0], est[:, 1], star[:, :, 1])


def tau_b(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise Kendall tau-b of two ``(rows, n)`` arrays (NaN when a ranking is flat)."""
    i, j = np.triu_indices(a.shape[1], 1)
    sa, sb = np.sign(a[:, i] - a[:, j]), np.sign(b[:, i] - b[:, j])
    den = np.sqrt((sa * sa).sum(1) * (sb * sb).sum(1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (sa * sb).sum(1) / den, np.nan)


def add_intervals(summary: pd.DataFrame, rows: pd.DataFrame, by: list[str],
                  measures, rs: Resampler, *, pooled: str | None = "ALL") -> pd.DataFrame:
    """``<measure>_low`` / ``<measure>_high`` columns for a summary table.

    ``rows`` holds one row per scored example with ``item`` (the resampling unit), the
    ``by`` columns and the per-example ``measures``; ``summary`` one row per group.
    A ``lang == pooled`` summary row is the interval over every row (other ``by``
    columns still group). Rows of the summary with no matching group get NaN.
    """
    out = summary.copy()
    item = rows["item"].to_numpy()
    groups = rows.groupby(by, sort=False).indices
    rest = [c for c in by if c != "lang"]
    pooled_groups = (rows.groupby(rest, sort=False).indices if rest
                     else {(): np.arange(len(rows))})
    cols = {m: rows[m].to_numpy(np.float64) for m in measures}
    matrix = np.column_stack([cols[m] for m in measures])
    result = {f"{m}_{side}": np.full(len(out), np.nan) for m in measures
              for side in ("low", "high")}
    for k, key in enumerate(out[by].itertuples(index=False, name=None)):
        if pooled is not None and "lang" in by and key[by.index("lang")] == pooled:
            sub = tuple(v for c, v in zip(by, key) if c != "lang")
            idx = pooled_groups.get(sub[0] if len(sub) == 1 else sub)
        elif "lang" in by and key[by.index("lang")] == MEAN:
            for m in measures:
                low, high = _mean_of_languages(rs, rows, by, key, item, cols[m])
                result[f"{m}_low"][k], result[f"{m}_high"][k] = low, high
            continue
        else:
            idx = groups.get(key[0] if len(key) == 1 else key)
        if idx is None:
            continue
        _, lows, highs = rs.intervals(item[idx], matrix[idx])
        for j, m in enumerate(measures):
            result[f"{m}_low"][k], result[f"{m}_high"][k] = lows[j], highs[j]
    for name, values in result.items():
        out[name] = values
    return out


def _mean_of_languages(rs, rows, by, key, item, values) -> tuple[float, float]:
    """Interval of the unweighted mean of the language means (each resampled)."""
    sel = np.ones(len(rows), dtype=bool)
    for c, v in zip(by, key):
        if c != "lang":
            sel &= (rows[c] == v).to_numpy()
    langs = rows.loc[sel, "lang"].to_numpy()
    stars, ests = [], []
    for lang in sorted(set(langs)):
        idx = np.flatnonzero(sel & (rows["lang"] == lang).to_numpy())
        est, star = rs._means(item[idx], values[idx])
        ests.append(est)
        stars.append(star)
    if not stars:
        return float("nan"), float("nan")
    return percentile_interval(np.mean(stars, axis=0), LEVEL, float(np.mean(ests)))


def mdd(sd: float, n: int) -> float:
    """Smallest paired mean difference detected with 80% power at 5% (two-sided)."""
    return MDD_Z * sd / np.sqrt(n)
