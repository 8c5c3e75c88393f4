"""The Markdown of parts 7-10 (`real_systems.md`, `convention_effects.md`): rounded views of
the CSVs of the same names, which keep full precision."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .conventions import CHANGES, CONVENTIONS
from .report import md_table, with_ci, write_md


def write_all(out: Path, t: dict) -> None:
    if "convention_effects" not in t:
        return
    _effects(out, t)
    _real(out, t)


def _interval(df: pd.DataFrame, col: str, low: str, high: str, digits: int = 3) -> list[str]:
    return [f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"
            for v, lo, hi in zip(df[col], df[low], df[high])]


def mean_view(eff: pd.DataFrame, detectors: str) -> pd.DataFrame:
    """The MEAN rows of one detector set, one row per change."""
    m = eff[(eff["lang"] == "MEAN") & (eff["detectors"] == detectors)].copy()
    return pd.DataFrame({
        "change": m["change"],
        "tau [items]": _interval(m, "tau", "tau_low", "tau_high"),
        "tau [languages]": _interval(m, "tau", "tau_lang_low", "tau_lang_high"),
        f"winner changes (of {int(m['languages'].max())}) [items]": [
            f"{int(v)} [{int(lo)}, {int(hi)}]" for v, lo, hi in
            zip(m["winner_changes"], m["winner_changes_low"], m["winner_changes_high"])],
        "of which beyond the noise floor": m["winner_changes_significant"].astype(int),
        "largest rank move [items]": _interval(m, "max_rank_move", "max_rank_move_low",
                                               "max_rank_move_high", 1),
        "median |Δ score| [items]": _interval(m, "median_abs_delta", "median_abs_delta_low",
                                              "median_abs_delta_high"),
    })


def _effects(out: Path, t: dict) -> None:
    eff = t["convention_effects"]
    per = eff[(eff["lang"] != "MEAN") & (eff["detectors"] == "systems")].copy()
    per["tau [CI]"] = _interval(per, "tau", "tau_low", "tau_high", 2)
    per["tau [CI]"] = per["tau [CI]"] + per["winner_changes"].map({1.0: " W", 0.0: ""})
    wide = per.pivot(index="change", columns="lang", values="tau [CI]")
    order = [f"{CONVENTIONS[a].label} -> {CONVENTIONS[b].label}" for _, a, b in CHANGES]
    wide = wide.loc[order].reset_index()
    write_md(out / "convention_effects.md", "The central table: what a convention change "
             "does to a ranking (test split)", [
                 ("", "Per language, the real system files (leaderboard rows and variants) "
                      "ranked under the official convention and under the changed one: "
                      "Kendall's tau-b between the two rankings, in how many languages the "
                      "winner changes, the largest rank move, and the median |Δ score| over "
                      "detectors. [items]: 95% item-bootstrap interval (the same resample for "
                      "every detector); [languages]: 95% bootstrap over the 14 languages "
                      "(languages as the unit). Full precision and per-language intervals "
                      "in `convention_effects.csv`.\n\n"),
                 ("Real systems only: mean over languages", md_table(mean_view(eff, "systems"))),
                 ("Every detector (systems, annotators, baselines): mean over languages",
                  md_table(mean_view(eff, "all"))),
                 ("Real systems, per language: tau [95% item CI]; W = the winner changes",
                  md_table(wide)),
             ])


def _real(out: Path, t: dict) -> None:
    s = t["systems"]
    fidelity = (s.groupby("team").agg(files=("file", "size"), languages=("lang", "nunique"),
                                      iou_reproduced=("iou_matches_official", "sum"),
                                      cor_reproduced=("cor_matches_official", "sum"),
                                      unlocated_spans_dropped=("unlocated_hard_dropped", "sum"),
                                      largest_cor_parse_shift=("cor_exact_minus_official",
                                                               lambda x: x.abs().max()))
                .reset_index())
    hv = t["humans_vs_systems"]
    per = hv[hv["lang"] != "MEAN"].copy()
    per["d [items] [two-way]"] = [f"{d:.3f} [{a:.3f}, {b:.3f}] [{c:.3f}, {e:.3f}]" for d, a, b, c, e
                                  in zip(per["difference"], per["ci_low"], per["ci_high"],
                                         per["two_way_low"], per["two_way_high"])]
    means = hv[hv["lang"] == "MEAN"].copy()
    means["d [languages]"] = _interval(means, "difference", "lang_low", "lang_high")
    tw = t["annotators_two_way"]
    tw = tw[tw["lang"] != "MEAN"].copy()
    for ref in ("a", "b"):
        tw[f"IoU ({ref}) [items] [two-way]"] = [
            f"{v:.3f} [{lo:.3f}, {hi:.3f}] [{tl:.3f}, {th:.3f}]" for v, lo, hi, tl, th in
            zip(tw[f"iou_{ref}"], tw[f"iou_{ref}_low"], tw[f"iou_{ref}_high"],
                tw[f"iou_{ref}_two_way_low"], tw[f"iou_{ref}_two_way_high"])]
    lw = t["language_weighting"].copy()
    lw["pooled (rows) [items]"] = _interval(lw, "pooled_iou", "pooled_low", "pooled_high")
    lw["mean over languages [items]"] = _interval(lw, "mean_over_languages", "mean_item_low",
                                                  "mean_item_high")
    lw["mean over languages [languages]"] = _interval(lw, "mean_over_languages",
                                                      "mean_lang_low", "mean_lang_high")
    pt = t["provenance_tests"]
    ps = t["provenance_systems"].drop_duplicates("lang")
    write_md(out / "real_systems.md", "Real system outputs: fidelity, the same references, "
             "annotators as a unit, provenance, baselines", [
                 ("The 187 system files against the official scorer",
                  "Per team: files whose study IoU and Cor (official float parsing), rounded "
                  "to 8 decimals, equal `OFFICIAL.csv`; `[-1, -1]` spans dropped; the largest "
                  "|Cor(exact parsing) − Cor(official parsing)| of a file.\n\n"
                  + md_table(fidelity, digits=4)),
                 ("Detectors minus annotators on the same leave-one-out references (IoU, test)",
                  "Paired on identical (item, annotator) rows; [items]: item bootstrap; "
                  "[two-way]: annotator × item bootstrap; Holm across languages on the "
                  "two-way p within each comparison. 'best real system' is re-selected in "
                  "every resample.\n\n"
                  + md_table(per[["comparison", "lang", "detector", "d [items] [two-way]",
                                  "p_holm", "significant"]])),
                 ("Mean over languages (languages as the unit)",
                  md_table(means[["comparison", "languages", "d [languages]",
                                  "significant_below", "significant_above"]])),
                 ("Annotators (test): item and two-way intervals",
                  md_table(tw[["lang", "annotators", "IoU (a) [items] [two-way]",
                               "IoU (b) [items] [two-way]"]])),
                 ("Spread across annotators (test; annotators with >= 20 items)",
                  md_table(t["annotator_spread"])),
                 ("Pooled rows vs languages as the unit",
                  md_table(lw[["series", "split", "rows", "share_rows_en_es_zh",
                               "pooled (rows) [items]", "mean over languages [items]",
                               "mean over languages [languages]"]])),
                 ("Provenance: permutation test of the range of generating-model means",
                  "Statistic fixed in advance: best minus worst model mean (models with >= "
                  "10 items); p from 10,000 within-language permutations of the model "
                  "labels; adjusted = on residuals after log length and reference "
                  "density; Holm across languages per series and split.\n\n"
                  + md_table(pt[["series", "split", "lang", "models", "items", "range",
                                 "p_holm", "range_adjusted", "p_holm_adjusted"]])),
                 ("Provenance x system: mean tau between a model's ranking and the rest's",
                  md_table(ps[["lang", "systems", "mean_tau", "p_value_mean_tau",
                               "p_holm_mean_tau"]])),
                 ("Token-logit baseline: tie and whitespace conventions (test)",
                  md_table(with_ci(t["token_logit_conventions"], [
                      "lang", "share_tied_at_max", "auroc_trimmed", "auroc_untrimmed",
                      "iou_minmax", "iou_midrank", "iou_mark_all", "threshold_from"]))),
                 ("Token classifier (trained on validation only; test)",
                  md_table(with_ci(t["token_classifier"].rename(columns={
                      "minus_mark_all_difference": "minus_mark_all",
                      "minus_mark_all_ci_low": "minus_mark_all_low",
                      "minus_mark_all_ci_high": "minus_mark_all_high"}), [
                      "lang", "items", "char_auroc", "char_ap", "threshold", "iou",
                      "iou_mark_all", "minus_mark_all", "minus_mark_all_significant"]))),
                 ("Token classifier: coefficients (standardised features)",
                  md_table(t["token_classifier_model"][["feature", "coefficient"]])),
             ])
