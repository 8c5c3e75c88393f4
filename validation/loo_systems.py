"""Humans and systems on the same references: every real system and baseline scored
against each annotator's leave-one-out (LOO) reference, on that annotator's rows, and
averaged over rows exactly as the annotator is (test split).

Row (item ``i``, annotator ``a``) has reference LOO(a) — the majority of the *other*
annotators of ``i`` — so a detector's LOO score on ``i`` is the mean over the item's
annotators of its IoU (Cor) against each of their LOO references, and its language score
the mean over the language's rows; the annotators' score is the mean of IoU(a's spans,
LOO(a)) over the same rows. The paired difference detector - annotators therefore
compares two numbers computed on identical references.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mycelium.stats.bootstrap import percentile_interval

from . import scoring
from .flat import Flat
from .ranking import LANGUAGE_RESAMPLES, LANGUAGE_SEED
from .twoway import TwoWay, percentile_p
from .uncertainty import ALPHA, LEVEL, Resampler, holm

PROFILE = scoring.PROFILE


def score(items: pd.DataFrame, ann, loo_ref: Flat, loo_vecs, panel, pred_vecs,
          annotator_rows: pd.DataFrame) -> pd.DataFrame:
    """One row per (system or baseline, test annotation row): IoU and Cor against the
    row's LOO reference; plus the annotators' own rows (``kind == "annotators"``)."""
    t = ann.table
    test_rows = np.flatnonzero(items["split"].to_numpy()[t["item"].to_numpy()] == "test")
    by_item = pd.DataFrame({"item": t["item"].to_numpy()[test_rows], "ann_row": test_rows})
    p = panel.rows.reset_index().rename(columns={"index": "panel_row"})
    p = p[p["kind"] != "annotator"]
    pairs = p.merge(by_item, on="item", how="inner").sort_values(["panel_row", "ann_row"],
                                                                 kind="stable")
    pr, ar = pairs["panel_row"].to_numpy(), pairs["ann_row"].to_numpy()
    text = items["model_output_text"].to_numpy(dtype=object)
    df = scoring.frame(loo_ref.take(ar), panel.pred.take(pr), text[pairs["item"].to_numpy()],
                       scoring.cors(loo_vecs, ar, pred_vecs, pr))
    iou = df.mycelium.score("ref", "pred", text="text", profile=PROFILE,
                            metrics=["iou"])["iou_score"].to_numpy()
    out = pairs[["detector", "kind", "lang", "item", "ann_row"]].assign(
        iou=iou, cor=df["cor"].to_numpy())
    own = annotator_rows.iloc[test_rows]
    humans = pd.DataFrame({"detector": "annotators", "kind": "annotators",
                           "lang": own["lang"].to_numpy(), "item": own["item"].to_numpy(),
                           "ann_row": test_rows, "iou": own["iou_score"].to_numpy(),
                           "cor": own["cor"].to_numpy()})
    return pd.concat([humans, out], ignore_index=True)


def summary(long: pd.DataFrame, detectors: pd.DataFrame, hard_scores: pd.DataFrame,
            rs: Resampler, tw: TwoWay) -> pd.DataFrame:
    """Per language and detector: IoU and Cor vs LOO (item and two-way intervals) beside
    the official IoU against the hard labels."""
    rows = []
    official = hard_scores.set_index(["lang", "detector"])
    meta = detectors.set_index(["lang", "detector"])
    for (lang, det), g in long.groupby(["lang", "detector"], sort=True):
        item, ar = g["item"].to_numpy(), g["ann_row"].to_numpy()
        row = {"lang": lang, "detector": det, "kind": g["kind"].iat[0],
               "team": meta["team"].get((lang, det), "annotators"),
               "role": meta["role"].get((lang, det), "annotators"),
               "rows": len(g), "items": int(np.unique(item).size)}
        for m in ("iou", "cor"):
            row[f"{m}_loo"], row[f"{m}_loo_low"], row[f"{m}_loo_high"] = rs.interval(
                item, g[m].to_numpy())
            _, row[f"{m}_loo_two_way_low"], row[f"{m}_loo_two_way_high"] = tw.interval(
                item, ar, g[m].to_numpy())
        if (lang, det) in official.index:
            row["iou_hard"] = float(official.loc[(lang, det), "iou"])
            row["iou_hard_minus_loo"] = row["iou_hard"] - row["iou_loo"]
        rows.append(row)
    return pd.DataFrame(rows)


def tests(long: pd.DataFrame, detectors: pd.DataFrame, rs: Resampler,
          tw: TwoWay) -> pd.DataFrame:
    """Detector minus annotators on the same LOO rows (IoU), per language: each team's
    IoU-leaderboard submission, the best real system (re-selected in every resample),
    mark-all and the token classifier. Holm across languages within each comparison, on
    the two-way percentile p-value (`percentile_p`); MEAN rows average the languages
    (language bootstrap)."""
    out = []
    for lang, g in long.groupby("lang", sort=True):
        wide = g.pivot_table(index=["ann_row", "item"], columns="detector", values="iou",
                             aggfunc="first").reset_index()
        item, ar = wide["item"].to_numpy(), wide["ann_row"].to_numpy()
        humans = wide["annotators"].to_numpy()
        det = detectors[detectors["lang"] == lang]
        chosen = [(f"{r.team} (IoU row)", r.detector) for r in det.itertuples()
                  if r.kind == "system" and "IoU" in str(r.role)]
        chosen += [("mark_all", "mark_all"), ("token_classifier", "token_classifier")]
        for comparison, name in chosen:
            out.append({"comparison": comparison, "lang": lang, "detector": name,
                        **_paired(rs, tw, item, ar, wide[name].to_numpy(), humans)})
        systems = [d for d in det.loc[det["kind"] == "system", "detector"]]
        out.append({"comparison": "best real system", "lang": lang,
                    **_best(rs, tw, item, ar, wide[systems].to_numpy(), humans, systems)})
    df = pd.DataFrame(out)
    df["p_holm"] = np.nan
    for _, idx in df.groupby("comparison").groups.items():
        df.loc[idx, "p_holm"] = holm(df.loc[idx, "p_value"].to_numpy())
    df["significant"] = (df["p_holm"] < ALPHA) & ((df["two_way_low"] > 0)
                                                 | (df["two_way_high"] < 0))
    return pd.concat([df, _means(df)], ignore_index=True)


def _paired(rs, tw, item, ar, a, b) -> dict:
    item_r = rs.paired(item, a, b)
    two = tw.paired(item, ar, a, b)
    return {"difference": item_r["difference"], "ci_low": item_r["ci_low"],
            "ci_high": item_r["ci_high"], "two_way_low": two["ci_low"],
            "two_way_high": two["ci_high"], "p_value": two["p_value"],
            "p_value_items_only": item_r["p_bootstrap"], "rows": item_r["rows"]}


def _best(rs, tw, item, ar, sys_values, humans, names) -> dict:
    """The best system minus the annotators, the best re-picked in each resample."""
    diffs = sys_values - humans[:, None]
    est_each = diffs.mean(axis=0)
    k = int(np.argmax(sys_values.mean(axis=0)))
    est = float(est_each[k])
    res = {}
    for tag, means in (("ci", lambda v: rs._means(item, v)[1]),
                       ("two_way", lambda v: tw.means(item, ar, v)[1])):
        star_sys = np.column_stack([means(sys_values[:, j]) for j in range(len(names))])
        star_h = means(humans)
        best = star_sys.max(axis=1) - star_h
        res[tag] = percentile_interval(best, LEVEL, est)
        res[f"{tag}_p"] = percentile_p(best)
    return {"detector": names[k], "difference": est, "ci_low": res["ci"][0],
            "ci_high": res["ci"][1], "two_way_low": res["two_way"][0],
            "two_way_high": res["two_way"][1], "p_value": res["two_way_p"],
            "p_value_items_only": res["ci_p"], "rows": int(item.size)}


def _means(df: pd.DataFrame) -> pd.DataFrame:
    """Per comparison: the mean difference over its languages, with a bootstrap over
    languages (seeded) — languages as the unit."""
    rng = np.random.default_rng(LANGUAGE_SEED)
    rows = []
    for comparison, g in df.groupby("comparison", sort=True):
        d = g["difference"].to_numpy()
        pick = rng.integers(0, d.size, size=(LANGUAGE_RESAMPLES, d.size))
        low, high = percentile_interval(d[pick].mean(axis=1), LEVEL, float(d.mean()))
        rows.append({"comparison": comparison, "lang": "MEAN", "detector": "",
                     "difference": float(d.mean()), "lang_low": low, "lang_high": high,
                     "languages": int(d.size),
                     "languages_below_zero": int((g["two_way_high"] < 0).sum()),
                     "languages_above_zero": int((g["two_way_low"] > 0).sum()),
                     "significant_below": int((g["significant"] & (d < 0)).sum()),
                     "significant_above": int((g["significant"] & (d > 0)).sum())})
    return pd.DataFrame(rows)
