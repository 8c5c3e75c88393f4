"""Provenance, granularity and typology.

- **Provenance**: scores by generating model (``model_id``) within each language, with
  intervals; the spread between a language's best and worst model (models with at least
  `MIN_MODEL_ITEMS` items) with a bootstrap interval of that difference (the pair is
  picked on the full data, so the interval is optimistic about the spread's size).
- **Granularity**: IoU counted in characters, words (`mycelium` ``granularity="word"``)
  and tokens (the generating model's tokens, `mycelium.align_tokens` offsets of
  ``model_output_tokens``: a span marks every token it overlaps, zero-length tokens mark
  nothing), and Kendall's tau between the detector rankings of two units, with
  item-bootstrap intervals.
- **Typology**: Mu-SHROOM spans carry no type. `typology_illustrative` runs the
  per-type breakdown on the hand-written RAGTruth-style records of
  ``tests/views/test_typology.py`` (copied here): illustrative only, not data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import mycelium

from . import scoring
from .flat import Flat, merge
from .uncertainty import LEVEL, Resampler, percentile_interval, tau_b, tau_interval

MIN_MODEL_ITEMS = 10
UNITS = ("char", "word", "token")

#: The hand-written RAGTruth-style records of tests/views/test_typology.py (REFS, PREDS).
TYPED_REFS = [
    [{"start": 0, "end": 10, "label_type": "Evident Conflict"},
     {"start": 20, "end": 30, "label_type": "Subtle Baseless Info"}],
    [{"start": 5, "end": 15, "label_type": "Evident Conflict"}],
    [],
]
TYPED_PREDS = [[[0, 10], [22, 26]], [[0, 4]], [[3, 8]]]


def provenance(items: pd.DataFrame, series: dict[str, pd.DataFrame],
               rs: Resampler) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``series``: name -> per-example rows with ``item`` and ``iou_score``."""
    model = items["model_id"].to_numpy()
    split = items["split"].to_numpy()
    lang = items["lang"].to_numpy()
    out, spread = [], []
    for name, rows in series.items():
        item = rows["item"].to_numpy()
        v = rows["iou_score"].to_numpy()
        for scope in ("all", "test"):
            sel0 = np.ones(len(rows), bool) if scope == "all" else split[item] == "test"
            for lg in sorted(set(lang[item[sel0]])):
                stars = {}
                for m in sorted(set(model[item[sel0 & (lang[item] == lg)]])):
                    sel = sel0 & (lang[item] == lg) & (model[item] == m)
                    est, star = rs._means(item[sel], v[sel])
                    low, high = percentile_interval(star, LEVEL, est)
                    n_items = int(np.unique(item[sel]).size)
                    out.append({"series": name, "split": scope, "lang": lg, "model_id": m,
                                "items": n_items, "rows": int(sel.sum()), "iou": est,
                                "iou_low": low, "iou_high": high})
                    if n_items >= MIN_MODEL_ITEMS:
                        stars[m] = (est, star, n_items)
                if len(stars) >= 2:
                    hi = max(stars, key=lambda k: stars[k][0])
                    lo = min(stars, key=lambda k: stars[k][0])
                    d = stars[hi][1] - stars[lo][1]
                    est = stars[hi][0] - stars[lo][0]
                    low, high = percentile_interval(d, LEVEL, est)
                    spread.append({"series": name, "split": scope, "lang": lg,
                                   "models": len(stars), "best_model": hi,
                                   "best_iou": stars[hi][0], "best_items": stars[hi][2],
                                   "worst_model": lo, "worst_iou": stars[lo][0],
                                   "worst_items": stars[lo][2], "difference": est,
                                   "ci_low": low, "ci_high": high,
                                   "excludes_zero": bool(low > 0)})
    return pd.DataFrame(out), pd.DataFrame(spread)


def token_units(flat: Flat, item_of_row: np.ndarray, token_offsets: list) -> Flat:
    """Each row's spans as spans over its item's non-empty tokens: a span marks every
    token it overlaps (``ts < e and te > s``), zero-length tokens mark nothing.

    Token indices count the item's non-empty tokens only; IoU, the one measure taken in
    token units, compares sets of tokens, so this is the same as indexing every token.
    Vectorised: non-empty tokens are in text order (starts and ends non-decreasing) in
    every item of the data; an item where they are not takes `_token_units_slow`.
    """
    ts, te, base, ordered = _token_table(token_offsets)
    item = np.asarray(item_of_row, dtype=np.int64)[flat.row]
    fast = ordered[item]
    key = np.repeat(np.arange(base.size - 1, dtype=np.int64), np.diff(base)) * _BIG
    lo = np.searchsorted(te + key, flat.start[fast] + item[fast] * _BIG, side="right")
    hi = np.searchsorted(ts + key, flat.end[fast] + item[fast] * _BIG, side="left")
    hit = hi > lo
    rows = flat.row[fast][hit]
    first = base[item[fast][hit]]
    spans = Flat.build(flat.n, rows, lo[hit] - first, hi[hit] - first)
    slow = _token_units_slow(flat.where(~fast), item_of_row, token_offsets)
    both = Flat.build(flat.n, np.concatenate([spans.row, slow.row]),
                      np.concatenate([spans.start, slow.start]),
                      np.concatenate([spans.end, slow.end]))
    return merge(both, adjacent=True)


_BIG = np.int64(1) << 32


def _token_table(token_offsets: list):
    """Non-empty tokens of every item, concatenated: starts, ends, per-item offsets into
    them, and whether each item's tokens are in text order."""
    keep = [np.asarray(t, np.int64).reshape(-1, 2) for t in token_offsets]
    keep = [t[t[:, 1] > t[:, 0]] for t in keep]
    base = np.concatenate(([0], np.cumsum([t.shape[0] for t in keep]))).astype(np.int64)
    ordered = np.array([bool((np.diff(t[:, 0]) >= 0).all() and (np.diff(t[:, 1]) >= 0).all())
                        for t in keep], dtype=bool)
    allt = np.vstack(keep) if keep else np.zeros((0, 2), np.int64)
    return allt[:, 0], allt[:, 1], base, ordered


def _token_units_slow(flat: Flat, item_of_row: np.ndarray, token_offsets: list) -> Flat:
    """`token_units` by brute force, row by row (same token indexing)."""
    r_out, s_out, e_out = [], [], []
    off = flat.offsets
    for r in range(flat.n):
        a, b = off[r], off[r + 1]
        if a == b:
            continue
        tok = np.asarray(token_offsets[item_of_row[r]], np.int64).reshape(-1, 2)
        tok = tok[tok[:, 1] > tok[:, 0]]
        ts, te = tok[:, 0], tok[:, 1]
        mark = np.zeros(ts.size, dtype=bool)
        for s, e in zip(flat.start[a:b].tolist(), flat.end[a:b].tolist()):
            mark |= (ts < e) & (te > s)
        edges = np.diff(np.concatenate(([0], mark.astype(np.int8), [0])))
        starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
        r_out.extend([r] * starts.size)
        s_out.extend(starts.tolist())
        e_out.extend(ends.tolist())
    return Flat.build(flat.n, r_out, s_out, e_out)


def unit_scores(frame: pd.DataFrame, token_offsets: list) -> pd.DataFrame:
    """Per row of a (ref, pred, text, item, ...) frame: IoU in each unit."""
    out = frame.drop(columns=["ref", "pred", "text"]).copy()
    for unit in ("char", "word"):
        out[f"iou_{unit}"] = frame.mycelium.score(
            "ref", "pred", text="text", profile=scoring.PROFILE, metrics=["iou"],
            granularity=unit)["iou_score"].to_numpy()
    item = frame["item"].to_numpy()
    ref = token_units(Flat.from_arrow(pa_array(frame["ref"])), item, token_offsets)
    pred = token_units(Flat.from_arrow(pa_array(frame["pred"])), item, token_offsets)
    tok = scoring.frame(ref, pred, [None] * len(frame), np.zeros(len(frame)))
    out["iou_token"] = tok.mycelium.score("ref", "pred", profile=scoring.PROFILE,
                                          metrics=["iou"])["iou_score"].to_numpy()
    return out


def pa_array(series: pd.Series):
    import pyarrow as pa

    arr = pa.array(series)
    return arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr


def granularity(rows: pd.DataFrame, rs: Resampler) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Mean IoU per (lang, detector, unit) with intervals; tau between units per lang."""
    scores, taus, stars = [], [], {}
    for lang, g in rows.groupby("lang", sort=True):
        for det, d in g.groupby("detector", sort=False):
            row = {"lang": lang, "detector": det, "kind": d["kind"].iat[0],
                   "examples": len(d)}
            est, lows, highs = rs.intervals(d["item"].to_numpy(),
                                            d[[f"iou_{u}" for u in UNITS]].to_numpy())
            for k, u in enumerate(UNITS):
                row[f"iou_{u}"], row[f"iou_{u}_low"], row[f"iou_{u}_high"] = \
                    est[k], lows[k], highs[k]
            scores.append(row)
        _, est, star = rs.group_means(g["item"].to_numpy(), g["detector"].to_numpy(),
                                      g[[f"iou_{u}" for u in UNITS]].to_numpy(np.float64))
        for a, b in (("char", "word"), ("char", "token"), ("word", "token")):
            i, j = UNITS.index(a), UNITS.index(b)
            t, low, high = tau_interval(est[:, i], star[:, :, i], est[:, j], star[:, :, j])
            stars.setdefault((a, b), []).append(tau_b(star[:, :, i], star[:, :, j]))
            taus.append({"lang": lang, "unit_a": a, "unit_b": b,
                         "detectors": g["detector"].nunique(), "kendall_tau": t,
                         "tau_low": low, "tau_high": high})
    taus = pd.DataFrame(taus)
    mean = (taus.groupby(["unit_a", "unit_b"], sort=False)["kendall_tau"]
            .agg(["mean", "min"]).reset_index())
    mean = mean.rename(columns={"mean": "kendall_tau", "min": "tau_min_over_languages"})
    mean.insert(0, "lang", "MEAN")
    # interval of the mean over languages: per-language resampled taus averaged
    ci = [percentile_interval(np.nanmean(np.vstack(stars[(a, b)]), axis=0), LEVEL, t)
          for a, b, t in zip(mean["unit_a"], mean["unit_b"], mean["kendall_tau"])]
    mean["tau_low"] = [c[0] for c in ci]
    mean["tau_high"] = [c[1] for c in ci]
    return pd.DataFrame(scores), pd.concat([taus, mean], ignore_index=True)


def typology_illustrative() -> pd.DataFrame:
    """The per-type breakdown on the hand-written records (illustrative, not data)."""
    r = mycelium.evaluate(TYPED_REFS, TYPED_PREDS, type_field="label_type",
                          profile="ragtruth",
                          metrics=["exact_span", "character", "span_coverage", "iou"])
    rows = [{"type": "(all types)", "examples": r["meta"]["examples"],
             "reference_spans": sum(len(x) for x in TYPED_REFS),
             "exact_span_recall": r["exact_span"]["recall"],
             "character_recall": r["character"]["recall"],
             "span_coverage_recall": r["span_coverage"]["recall"]}]
    for t, v in r["by_type"].items():
        rows.append({"type": t, "examples": v["examples"], "reference_spans": v["n_ref"],
                     "exact_span_recall": v["exact_span"]["recall"],
                     "character_recall": v["character"]["recall"],
                     "span_coverage_recall": v["span_coverage"]["recall"]})
    df = pd.DataFrame(rows)
    df.insert(0, "status", "illustrative: hand-written records, not Mu-SHROOM data")
    return df
