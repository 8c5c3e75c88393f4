"""The annotators as what the comparison generalises over: two-way intervals, the spread
across annotators, languages (not rows) as the unit of cross-language claims, and where
the real and published systems stand.

- ``annotators_two_way``: per language (test split) the annotators' IoU and Cor against
  (a) the hard labels and (b) the leave-one-out references, with the item interval and
  the two-way (annotator x item) interval; ``MEAN`` is the mean over languages with a
  bootstrap over languages.
- ``annotator_spread``: per language, the annotators with at least `MIN_ITEMS` test items
  scored one by one (min, median, max, standard deviation).
- ``language_weighting``: the pooled (row-weighted) number beside the mean over
  languages, and the share of rows EN, ES and ZH supply.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mycelium.stats.bootstrap import percentile_interval

from .ranking import LANGUAGE_RESAMPLES, LANGUAGE_SEED
from .twoway import TwoWay
from .uncertainty import LEVEL, Resampler

MIN_ITEMS = 20
HEAVY = ("EN", "ES", "ZH")


def _language_interval(values: np.ndarray) -> tuple[float, float]:
    rng = np.random.default_rng(LANGUAGE_SEED)
    pick = rng.integers(0, values.size, size=(LANGUAGE_RESAMPLES, values.size))
    return percentile_interval(values[pick].mean(axis=1), LEVEL, float(values.mean()))


def two_way_table(items, per: dict, rs: Resampler, tw: TwoWay) -> pd.DataFrame:
    rows = []
    test = {ref: per[name][per[name]["split"] == "test"]
            for ref, name in (("a", "vs_hard"), ("b", "vs_loo"))}
    for lang in sorted(test["a"]["lang"].unique()):
        row = {"lang": lang}
        for ref, df in test.items():
            g = df[df["lang"] == lang]
            item, ar = g["item"].to_numpy(), g.index.to_numpy()
            row["rows"] = len(g)
            row["annotators"] = int(g["annotator"].nunique())
            for m, col in (("iou", "iou_score"), ("cor", "cor")):
                v = g[col].to_numpy()
                est, low, high = rs.interval(item, v)
                _, tlow, thigh = tw.interval(item, ar, v)
                row.update({f"{m}_{ref}": est, f"{m}_{ref}_low": low, f"{m}_{ref}_high": high,
                            f"{m}_{ref}_two_way_low": tlow, f"{m}_{ref}_two_way_high": thigh})
        rows.append(row)
    out = pd.DataFrame(rows)
    mean = {"lang": "MEAN", "rows": int(out["rows"].sum()),
            "annotators": int(out["annotators"].sum())}
    for col in [c for c in out.columns if c.endswith(("_a", "_b"))]:
        v = out[col].to_numpy()
        mean[col] = float(v.mean())
        mean[f"{col}_lang_low"], mean[f"{col}_lang_high"] = _language_interval(v)
    return pd.concat([out, pd.DataFrame([mean])], ignore_index=True)


def spread_table(per: dict) -> pd.DataFrame:
    rows = []
    for ref, name in (("a", "vs_hard"), ("b", "vs_loo")):
        df = per[name][per[name]["split"] == "test"]
        by = df.groupby(["lang", "annotator"]).agg(items=("item", "nunique"),
                                                   iou=("iou_score", "mean")).reset_index()
        by = by[by["items"] >= MIN_ITEMS]
        for lang, g in by.groupby("lang", sort=True):
            v = g["iou"].to_numpy()
            rows.append({"lang": lang, "reference": ref, "annotators": int(v.size),
                         "iou_min": float(v.min()), "iou_median": float(np.median(v)),
                         "iou_max": float(v.max()),
                         "iou_sd": float(np.std(v, ddof=1)) if v.size > 1 else np.nan,
                         "iou_range": float(v.max() - v.min())})
    return pd.DataFrame(rows)


def weighting_table(per: dict, rs: Resampler) -> pd.DataFrame:
    rows = []
    for series, name in (("annotators vs hard labels (a)", "vs_hard"),
                         ("annotators vs LOO (b)", "vs_loo"),
                         ("annotators pairwise", "pairwise")):
        for scope in ("all", "test"):
            df = per[name] if scope == "all" else per[name][per[name]["split"] == "test"]
            item, v = df["item"].to_numpy(), df["iou_score"].to_numpy()
            pooled = rs.interval(item, v)
            langs = sorted(df["lang"].unique())
            est, stars = [], []
            for lg in langs:
                sel = (df["lang"] == lg).to_numpy()
                e, s = rs._means(item[sel], v[sel])
                est.append(e)
                stars.append(s)
            est_a = np.array(est)
            mean = float(est_a.mean())
            ilow, ihigh = percentile_interval(np.mean(stars, axis=0), LEVEL, mean)
            llow, lhigh = _language_interval(est_a)
            rows.append({"series": series, "split": scope, "languages": len(langs),
                         "rows": len(df), "pooled_iou": pooled[0], "pooled_low": pooled[1],
                         "pooled_high": pooled[2], "mean_over_languages": mean,
                         "mean_item_low": ilow, "mean_item_high": ihigh,
                         "mean_lang_low": llow, "mean_lang_high": lhigh,
                         "share_rows_en_es_zh": float(df["lang"].isin(HEAVY).mean())})
    return pd.DataFrame(rows)


def tables(items, ann, per: dict, rs: Resampler, tw: TwoWay) -> dict:
    return {"annotators_two_way": two_way_table(items, per, rs, tw),
            "annotator_spread": spread_table(per),
            "language_weighting": weighting_table(per, rs)}


def humans_and_systems(two_way: pd.DataFrame, board: pd.DataFrame | None,
                       vs_loo: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """Per language (test): the annotators under (a) and (b) with both intervals, the
    best and median real system under both references, and the published top team
    (IoU against (a) only: no outputs are published) against the annotators' intervals;
    ``published`` (part 4's table) adds the published median team and the check that
    the study's mark-all reproduces the published mark-all baseline."""
    out = []
    sys_ = vs_loo[vs_loo["kind"] == "system"]
    for r in two_way[two_way["lang"] != "MEAN"].itertuples(index=False):
        row = {"lang": r.lang}
        for ref in ("a", "b"):
            for suffix in ("", "_low", "_high", "_two_way_low", "_two_way_high"):
                row[f"annotators_{ref}{suffix}"] = getattr(r, f"iou_{ref}{suffix}")
        g = sys_[sys_["lang"] == r.lang]
        best = g.loc[g["iou_loo"].idxmax()]
        row.update({"real_systems": len(g), "best_real_system": best["detector"],
                    "best_real_a": best["iou_hard"], "best_real_b": best["iou_loo"],
                    "best_real_b_low": best["iou_loo_low"],
                    "best_real_b_high": best["iou_loo_high"],
                    "median_real_a": float(g["iou_hard"].median()),
                    "median_real_b": float(g["iou_loo"].median()),
                    "real_a_minus_b_median": float(g["iou_hard_minus_loo"].median())})
        if board is not None:
            b = board[(board["lang"] == r.lang) & (board["ranking"] == "iou")
                      & ~board["baseline"]]
            if len(b):
                row["published_teams"] = len(b)
                row["published_top_a"] = float(b["iou"].max())
                for w in ("", "_two_way"):
                    row[f"published_top_above_a_high{w}"] = bool(
                        row["published_top_a"] > row[f"annotators_a{w}_high"])
                    row[f"published_top_above_b_high{w}"] = bool(
                        row["published_top_a"] > row[f"annotators_b{w}_high"])
        out.append(row)
    keep = [c for c in ("lang", "median_iou", "published_mark_all_iou", "study_mark_all_iou",
                        "mark_all_abs_difference") if c in published.columns]
    return pd.DataFrame(out).merge(published[keep].rename(
        columns={"median_iou": "published_median_a"}), on="lang", how="left")
