"""Uncertainty on every table, test-only tables, and parts 4-6 (real detectors on the
same references as the annotators, the published leaderboard, provenance, granularity,
typology). Called by `validation.run.study` after parts 1-3.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import dimensions, leaderboard, scoring, systems
from .uncertainty import Resampler, add_intervals, tau_interval

#: The per-example measures that get intervals in the summary tables.
MEASURES = scoring.HEADLINE


def intervals(tables: dict, frames: dict, per_example_det: pd.DataFrame,
              rs: Resampler, hard_counts: np.ndarray) -> dict:
    """Add ``<measure>_low/_high`` to the summary tables and write test-only twins."""
    per = {name: scoring.per_example(frames[name]) for name in ("vs_hard", "vs_loo",
                                                                 "pairwise")}
    out = {}
    specs = [("annotators_vs_hard", "vs_hard", ["lang"]),
             ("annotators_vs_loo", "vs_loo", ["lang"]),
             ("annotators_pairwise", "pairwise", ["lang"]),
             ("annotators_vs_hard_by_annotator", "vs_hard", ["lang", "annotator"]),
             ("annotators_vs_loo_by_annotator", "vs_loo", ["lang", "annotator"]),
             ("annotators_pairwise_by_annotator", "pairwise", ["lang", "annotator"])]
    for table, frame, by in specs:
        out[table] = add_intervals(tables[table], per[frame], by, MEASURES, rs)
    out["detector_scores"] = add_intervals(tables["detector_scores"], per_example_det,
                                           ["lang", "detector", "kind"], MEASURES, rs)
    # Test-only twins of the main tables (the leaderboard is test-only).
    for table, frame in (("annotators_vs_hard", "vs_hard"), ("annotators_vs_loo", "vs_loo")):
        test = frames[frame][frames[frame]["split"] == "test"]
        summ = scoring.add_language_mean(scoring.summarise(test, ["lang"]))
        out[f"{table}_test"] = add_intervals(summ, per[frame][per[frame]["split"] == "test"],
                                             ["lang"], MEASURES, rs)
    det_test = frames["detectors"][frames["detectors"]["split"] == "test"]
    summ = scoring.summarise(det_test, ["lang", "detector", "kind"], pooled=False)
    summ = summ.set_index(["lang", "detector"]).loc[
        [k for k in zip(out["detector_scores"]["lang"], out["detector_scores"]["detector"])
         if k in set(zip(summ["lang"], summ["detector"]))]].reset_index()
    out["detector_scores_test"] = add_intervals(
        summ, per_example_det[per_example_det["split"] == "test"],
        ["lang", "detector", "kind"], MEASURES, rs)
    # Part 3: pinpoint on the items with reference spans.
    pin = per_example_det[(per_example_det["detector"] == "pinpoint")
                          & (hard_counts[per_example_det["item"].to_numpy()] > 0)]
    pin = pin.rename(columns={"iou_score": "iou_refs",
                              "span_coverage_f1": "span_coverage_f1_refs",
                              "character_recall": "character_recall_refs"})
    out["undercoverage"] = add_intervals(
        tables["undercoverage"], pin, ["lang"],
        ("span_coverage_f1_refs", "iou_refs", "character_recall_refs"), rs)
    out["_per"] = per
    return out


def metric_tau_intervals(tau: pd.DataFrame, per_example_det: pd.DataFrame,
                         rs: Resampler) -> pd.DataFrame:
    """Item-bootstrap intervals of every per-language tau of part 2."""
    from .comparison import SPLIT

    names = {v: k for k, v in SPLIT.items()}
    cols = list(SPLIT)
    cache = {}
    for lang, g in per_example_det.groupby("lang"):
        cache[lang] = rs.group_means(g["item"].to_numpy(), g["detector"].to_numpy(),
                                     g[cols].to_numpy(np.float64))
    out = tau.copy()
    low, high = [], []
    for r in tau.itertuples(index=False):
        _, est, star = cache[r.lang]
        a = cols.index(names[(r.metric_a, r.measure_a)])
        b = cols.index(names[(r.metric_b, r.measure_b)])
        _, lo, hi = tau_interval(est[:, a], star[:, :, a], est[:, b], star[:, :, b])
        low.append(lo)
        high.append(hi)
    out["tau_low"], out["tau_high"] = low, high
    return out, _tau_mean_intervals(tau, cache, names, cols)


def _tau_mean_intervals(tau, cache, names, cols) -> pd.DataFrame:
    """Interval of the mean over languages of each pair's tau (languages resampled
    together: the per-language resampled taus are averaged resample by resample)."""
    from .uncertainty import LEVEL, percentile_interval, tau_b

    rows = []
    for (ma, sa, mb, sb), g in tau.groupby(["metric_a", "measure_a", "metric_b",
                                            "measure_b"], sort=False):
        a, b = cols.index(names[(ma, sa)]), cols.index(names[(mb, sb)])
        stars = [tau_b(cache[lang][2][:, :, a], cache[lang][2][:, :, b])
                 for lang in g["lang"]]
        est = float(g["kendall_tau"].mean())
        low, high = percentile_interval(np.nanmean(np.vstack(stars), axis=0), LEVEL, est)
        rows.append({"measure_a": names[(ma, sa)], "measure_b": names[(mb, sb)],
                     "tau_mean_low": low, "tau_mean_high": high})
    return pd.DataFrame(rows)


def real_detectors(root, items, ann, hard, soft_vecs, ann_vecs, part1, per: dict,
                   det_frame: pd.DataFrame, rs: Resampler) -> dict:
    """Parts 4-6: every new table (``{name: DataFrame}``)."""
    offsets, scores, data_table = systems.token_logit_inputs(items)
    logit, token_flat, token_items = systems.token_logit(items, offsets, scores, rs)
    preds = systems.predictors(items, token_flat)
    loo_ref, loo_vecs = part1["_loo"]
    same = systems.same_reference(items, ann, hard, loo_ref, soft_vecs, loo_vecs, ann_vecs,
                                  preds, token_items, rs,
                                  {"hard": part1["_frames"]["vs_hard"]["cor"].to_numpy(),
                                   "loo": part1["_frames"]["vs_loo"]["cor"].to_numpy()})
    board_all = leaderboard.read_all(root)
    board = (board_all[board_all["ranking"] == "iou"].reset_index(drop=True)
             if board_all is not None else None)
    out = {"token_logit_data": data_table, "token_logit": _with_baselines(logit, same, rs),
           "same_reference": same["same_reference"],
           "same_reference_tests": same["same_reference_tests"]}
    if board_all is not None:
        out["leaderboard"] = board_all
        out["leaderboard_tau"] = leaderboard.tau_table(board_all)
    hs = systems.humans_and_systems(same["same_reference"], board)
    own = out["token_logit"][out["token_logit"]["split"] == "test"].set_index("lang")
    hs["study_mark_all_iou"] = hs["lang"].map(own["mark_all_iou"])
    if "published_mark_all_iou" in hs:
        # the official scorer's published mark-all baseline, recomputed from the items
        hs["mark_all_abs_difference"] = (hs["study_mark_all_iou"]
                                         - hs["published_mark_all_iou"]).abs()
    out["humans_and_systems"] = hs
    out["detectable_difference"] = systems.detectable(items, hard, ann, per["vs_hard"],
                                                      preds, token_items, board)
    # Provenance: annotators vs LOO, mark_all and token_logit vs hard labels, by model.
    long = same["_long"]
    series = {"annotators_vs_loo": per["vs_loo"]}
    for name in ("mark_all", "token_logit"):
        sel = long[(long["predictor"] == name) & (long["reference"] == "hard")]
        first = sel.drop_duplicates("item")  # one row per item (the value is per item)
        series[f"{name}_vs_hard"] = first.rename(columns={"iou": "iou_score"})
    out["provenance"], out["provenance_spread"] = dimensions.provenance(items, series, rs)
    # Granularity: the part-2 detectors plus token_logit (test items), in three units.
    tok = [np.asarray(o, dtype=np.int64).reshape(-1, 2) for o in offsets]
    lengths = items["text_len"].to_numpy()
    text = items["model_output_text"].to_numpy(dtype=object)
    rows = np.asarray(token_items, dtype=np.int64)
    if rows.size:
        extra = scoring.frame(hard.take(rows), token_flat.take(rows), text[rows],
                              np.zeros(rows.size), lang=items["lang"].to_numpy()[rows],
                              item=rows, split=items["split"].to_numpy()[rows],
                              detector=np.full(rows.size, "token_logit", dtype=object),
                              kind=np.full(rows.size, "real", dtype=object))
        frame = pd.concat([det_frame, extra[det_frame.columns]], ignore_index=True)
    else:
        frame = det_frame
    del lengths
    units = dimensions.unit_scores(frame, tok)
    out["granularity"], out["granularity_tau"] = dimensions.granularity(units, rs)
    out["typology_illustrative"] = dimensions.typology_illustrative()
    return out


def _with_baselines(logit: pd.DataFrame, same: dict, rs: Resampler) -> pd.DataFrame:
    """The token-logit table with mark-all / mark-none on the same items (IoU vs the
    hard labels, intervals) and the paired test of token-logit minus mark-all (Holm
    across languages)."""
    from .uncertainty import holm

    long = same["_long"]
    hard = long[long["reference"] == "hard"].drop_duplicates(["predictor", "item"])
    wide = hard.pivot_table(index=["item", "lang", "split"], columns="predictor",
                            values="iou", aggfunc="first").reset_index()
    out = logit.copy()
    cols: dict[str, list] = {}
    for k, r in enumerate(out.itertuples(index=False)):
        w = wide[(wide["lang"] == r.lang) & (wide["split"] == r.split)]
        item = w["item"].to_numpy()
        for name in ("mark_all", "mark_none"):
            est, low, high = rs.interval(item, w[name].to_numpy())
            for key, v in ((f"{name}_iou", est), (f"{name}_iou_low", low),
                           (f"{name}_iou_high", high)):
                cols.setdefault(key, [np.nan] * len(out))[k] = v
        if "token_logit" in w and w["token_logit"].notna().any():
            ok = w["token_logit"].notna().to_numpy()
            t = rs.paired(item[ok], w["token_logit"].to_numpy()[ok],
                          w["mark_all"].to_numpy()[ok])
            for key in ("difference", "ci_low", "ci_high", "p_value"):
                cols.setdefault(f"minus_mark_all_{key}", [np.nan] * len(out))[k] = t[key]
    for key, v in cols.items():
        out[key] = v
    if "minus_mark_all_p_value" in out:
        out["minus_mark_all_p_holm"] = holm(out["minus_mark_all_p_value"].to_numpy())
    return out
