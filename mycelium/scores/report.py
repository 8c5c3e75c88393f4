"""The values and intervals of the score metrics and ``response_level`` in a report
(`mycelium.scores.spans`): from a batch's scores, or from the `ScoreRuns` of the kept
examples that `mycelium.Accumulator` keeps batch by batch."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.score_metrics import pooled_values, score_values
from ..core.score_rules import rules_of
from ..core.scores import ScoreInput, ScoreRuns, score_run_blocks
from ..metrics import SCORE_METRICS

__all__ = ["score_report", "report_from_runs"]


def score_report(si: ScoreInput | None, lengths, prepared, stats, names, settings, *,
                 include_per_example: bool, keys=None) -> tuple[dict, dict | None, dict]:
    """(values, intervals or None, per-example values) of the extra metrics."""
    kept = prepared.kept
    runs: Any = None
    if si is not None:
        si_k = si if kept.all() else si.take(kept)
        runs = score_run_blocks(si_k, lengths[kept], prepared.refs)
    return report_from_runs(runs, stats, names, settings,
                            include_per_example=include_per_example, keys=keys)


def report_from_runs(runs, stats, names, settings, *, include_per_example: bool, keys=None
                     ) -> tuple[dict, dict | None, dict]:
    """`score_report` from the kept examples' `ScoreRuns` (one, or blocks of consecutive
    examples; None without scores) and
    the pooled metrics' per-example statistics (what `mycelium.Accumulator` keeps)."""
    scored = [m for m in names if m in SCORE_METRICS]
    values: dict[str, Any] = {}
    undefined = rules_of(settings.profile).char_ap_undefined
    est = score_values(runs, scored, average=settings.average,
                       ap_undefined=undefined) if scored else {}
    for m in names:
        if m in SCORE_METRICS:
            values[m] = {"score": float(est[m][0, 0])}
        else:
            v = pooled_values(stats[m], m, zero_division=settings.zero_division)
            values[m] = {k: float(a[0]) for k, a in v.items()}
    per: dict[str, list] = {}
    if include_per_example and scored:
        n = runs.n if isinstance(runs, ScoreRuns) else sum(r.n for r in runs)
        pe = score_values(runs, [m for m in scored if SCORE_METRICS[m].UNIT == "char"],
                          average="macro", groups=np.arange(n), n_groups=n,
                          ap_undefined=undefined)
        per = {m: a[0].tolist() for m, a in pe.items()}
    ci = None
    if settings.bootstrap is not None:
        ci = _intervals(runs, stats, names, settings, keys, values)
    return values, ci, per


def _intervals(runs, stats, names, settings, keys, estimates) -> dict:
    from ..stats.bootstrap import resample_chunks, percentile_interval, poisson_weights

    b = settings.bootstrap
    scored = [m for m in names if m in SCORE_METRICS]
    draws: dict[str, dict[str, list]] = {m: {} for m in names}
    for chunk in resample_chunks(b.n_resamples):
        w = poisson_weights(keys, b.seed, chunk)
        empty = w.sum(axis=1) == 0
        sv = score_values(runs, scored, average=settings.average, weights=w,
                          ap_undefined=rules_of(settings.profile).char_ap_undefined) \
            if scored else {}
        for m in names:
            got = {"score": sv[m][:, 0]} if m in SCORE_METRICS else pooled_values(
                stats[m], m, zero_division=settings.zero_division, weights=w)
            for k, a in got.items():
                draws[m].setdefault(k, []).append(np.where(empty, np.nan, a))
    out: dict = {}
    for m in names:
        out[m] = {}
        for k, parts in draws[m].items():
            low, high = percentile_interval(np.concatenate(parts), b.ci, estimates[m][k])
            out[m][k] = {"low": low, "high": high}
    return out
