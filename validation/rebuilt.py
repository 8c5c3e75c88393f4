"""The two-way bootstrap with each reference rebuilt inside each resample.

`validation.twoway` reweights annotators and items but holds every reference fixed: an
annotator's leave-one-out (LOO) majority is the one of the full panel, whichever
annotators a resample draws. Here the references follow the resample. In resample ``r``
annotator ``b`` of a language is drawn ``m_r(b)`` times (the multinomial counts of
`validation.twoway`, same seed and same rule, `RESAMPLES` of them) and item ``i`` weighs
``w_r(i)`` (the library's Poisson weights keyed by item id, `validation.ranking.item_weights`):

- **LOO, rebuilt**: annotator ``a``'s reference on item ``i`` is the characters marked by
  more than half of the *drawn* other annotators of the item, each counted ``m_r(b)``
  times (count > sum_b m_r(b) / 2, strict, as `validation.annotators.leave_one_out`);
  with no other annotator of the item drawn, the reference is undefined and the row is
  left out of that resample.

The published hard labels are not a plain vote (``recompute_check.csv``), so they cannot
be rebuilt, and a rebuilt majority that holds ``a``'s own vote is ``a``'s own spans
whenever a resample draws ``a`` alone: neither is computed here.

An annotator's IoU against the rebuilt reference (characters; 1 when both are empty, as
the official scorer) is averaged over rows with weight ``w_r(i) m_r(a)``. With every
weight 1 the LOO reference is the study's, so the full-data value is ``annotators_two_way``'s
``iou_b``. A reference depends on the resample only through the counts of the item's
annotators, so it is computed once per distinct pattern of counts.
"""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd

from mycelium.stats.bootstrap import percentile_interval

from .data import Annotations
from .ranking import CENTRAL_RESAMPLES, item_weights
from .twoway import ANNOTATOR_SEED
from .uncertainty import LEVEL

RESAMPLES = CENTRAL_RESAMPLES


def annotator_weights(lang: np.ndarray, annotator: np.ndarray,
                      resamples: int = RESAMPLES) -> np.ndarray:
    """``resamples x rows`` multinomial counts of each row's annotator: per language its
    annotators (sorted) drawn with replacement as many times as it has annotators, from a
    generator seeded with ``(ANNOTATOR_SEED, crc32(language))`` (`validation.twoway`'s
    rule; its first 1,000 resamples are ``TwoWay``'s).

    Examples
    --------
    >>> w = annotator_weights(np.array(["EN", "EN", "DE"]), np.array(["x", "y", "z"]), 4)
    >>> w.shape, w[:, 2].tolist(), bool((w[:, :2].sum(axis=1) == 2).all())
    ((4, 3), [1.0, 1.0, 1.0, 1.0], True)
    """
    keys = pd.DataFrame({"lang": lang, "annotator": annotator})
    out = np.zeros((resamples, len(keys)))
    for lg, g in keys.groupby("lang", sort=True):
        names = sorted(g["annotator"].unique())
        rng = np.random.default_rng([ANNOTATOR_SEED, zlib.crc32(str(lg).encode())])
        counts = rng.multinomial(len(names), np.full(len(names), 1.0 / len(names)),
                                 size=resamples)
        col = {n: k for k, n in enumerate(names)}
        out[:, g.index.to_numpy()] = counts[:, [col[n] for n in g["annotator"]]]
    return out


def _vectors(ann: Annotations, rows: np.ndarray, length: int) -> np.ndarray:
    """Boolean character vectors (rows x length) of the given annotation rows."""
    m = ann.merged
    out = np.zeros((rows.size, length), dtype=bool)
    for k, r in enumerate(rows):
        lo, hi = np.searchsorted(m.row, [r, r + 1])
        for s, e in zip(m.start[lo:hi], m.end[lo:hi]):
            out[k, s:e] = True
    return out


def _iou(pred: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Row-wise IoU of boolean arrays (1 when both are empty)."""
    inter = (pred & ref).sum(axis=-1)
    union = (pred | ref).sum(axis=-1)
    return np.where(union > 0, inter / np.maximum(union, 1), 1.0)


def item_values(vectors: np.ndarray, patterns: np.ndarray) -> np.ndarray:
    """IoU of each annotator (columns) against its rebuilt LOO reference, for each
    pattern of counts (rows of ``patterns``); NaN where the reference is undefined.

    Examples
    --------
    >>> v = np.array([[1, 1, 0, 0], [1, 0, 0, 0], [1, 1, 1, 0]], dtype=bool)
    >>> item_values(v, np.array([[1, 1, 1], [0, 3, 0], [1, 0, 0]])).round(3).tolist()
    [[0.5, 0.5, 0.333], [0.5, nan, 0.333], [nan, 0.5, 0.667]]
    """
    p = patterns.astype(np.float64)
    a = vectors.astype(np.float64)
    votes = p @ a                                   # patterns x chars
    total = p.sum(axis=1)
    loo = np.full(p.shape, np.nan)
    for j in range(a.shape[0]):
        others = total - p[:, j]
        ok = others > 0
        ref = (votes[ok] - p[ok, j, None] * a[j]) * 2 > others[ok, None]
        loo[ok, j] = _iou(vectors[j][None, :], ref)
    return loo


def table(items: pd.DataFrame, ann: Annotations, fixed: pd.DataFrame) -> pd.DataFrame:
    """``annotators_rebuilt``: per language (test split) the annotators' IoU against their
    LOO references with an interval whose references are rebuilt in every resample, and
    beside it ``annotators_two_way``'s (``fixed``), whose references are held. ``MEAN``:
    the mean over languages (resample by resample)."""
    t = ann.table
    item_of = t["item"].to_numpy()
    test = items["split"].to_numpy()[item_of] == "test"
    mw = annotator_weights(t["lang"].to_numpy(), t["annotator"].to_numpy())
    lengths, ids = items["text_len"].to_numpy(), items["id"].to_numpy()
    m = ann.merged
    span_end = np.zeros(len(t), dtype=np.int64)
    np.maximum.at(span_end, m.row, m.end)
    rows, stars = [], []
    for lang in sorted(t.loc[test, "lang"].unique()):
        sel = np.flatnonzero(test & (t["lang"] == lang).to_numpy())
        its = np.unique(item_of[sel])
        iw = item_weights(ids[its].tolist())
        pos = {i: k for k, i in enumerate(its.tolist())}
        num, den, full = np.zeros(RESAMPLES), np.zeros(RESAMPLES), []
        for item, grp in pd.Series(sel).groupby(item_of[sel]):
            r = grp.to_numpy()
            vec = _vectors(ann, r, int(max(lengths[item], span_end[r].max())))
            patterns, inverse = np.unique(mw[:, r], axis=0, return_inverse=True)
            loo = item_values(vec, patterns)
            full += item_values(vec, np.ones((1, r.size)))[0].tolist()
            w = iw[:, pos[item]][:, None] * mw[:, r]          # resamples x annotators
            vals = loo[inverse.ravel()]                       # resamples x annotators
            ok = ~np.isnan(vals)
            num += (np.where(ok, vals, 0.0) * w).sum(axis=1)
            den += (ok * w).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            star = np.where(den > 0, num / den, np.nan)
        est = float(np.mean(full))
        stars.append(star)
        low, high = percentile_interval(star[~np.isnan(star)], LEVEL, est)
        rows.append({"lang": lang, "rows": int(sel.size),
                     "annotators": int(t.loc[sel, "annotator"].nunique()),
                     "iou_loo": est, "iou_loo_rebuilt_low": low, "iou_loo_rebuilt_high": high,
                     "undefined_share": float(np.isnan(star).mean())})
    out = pd.DataFrame(rows)
    every = np.vstack(stars)
    ok = ~np.isnan(every)
    with np.errstate(invalid="ignore", divide="ignore"):
        star = np.where(ok.any(axis=0), np.where(ok, every, 0.0).sum(axis=0) / ok.sum(axis=0),
                        np.nan)
    est = float(out["iou_loo"].mean())
    low, high = percentile_interval(star[~np.isnan(star)], LEVEL, est)
    out = pd.concat([out, pd.DataFrame([{
        "lang": "MEAN", "rows": int(out["rows"].sum()),
        "annotators": int(out["annotators"].sum()), "iou_loo": est,
        "iou_loo_rebuilt_low": low, "iou_loo_rebuilt_high": high,
        "undefined_share": float(np.isnan(star).mean())}])], ignore_index=True)
    f = fixed.set_index("lang")
    out["iou_loo_fixed_low"] = out["lang"].map(f["iou_b_two_way_low"])
    out["iou_loo_fixed_high"] = out["lang"].map(f["iou_b_two_way_high"])
    out["width_fixed"] = out["iou_loo_fixed_high"] - out["iou_loo_fixed_low"]
    out["width_rebuilt"] = out["iou_loo_rebuilt_high"] - out["iou_loo_rebuilt_low"]
    return out
