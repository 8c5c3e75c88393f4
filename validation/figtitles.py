"""The figures' titles, as functions of the result tables, so ``--check`` guards them.

A title that carries a number or a direction ("above", "more") is a claim, like the
README's: each is a template (`TEMPLATES`, ``str.format`` fields only, no number typed
in it) filled from the tables by `titles`, with every direction word chosen by the
numbers it describes (`direction`). A figure stores the titles it was drawn with in its
PNG (`KEY`); ``--check`` (`validation.check.compare_figures`) renders them again from
the reproduced tables and fails on any difference, and on any number typed into a
template (`literal_numbers`).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd

from .uncertainty import ALPHA, LEVEL

KEY = "mycelium-validation-titles"
_FIELD = re.compile(r"\{[^{}]*\}")

#: Every figure's titles: ``{figure: {slot: template}}``.
TEMPLATES: dict[str, dict[str, str]] = {
    "fig1_inter_annotator": {
        "top": "Scored like detectors, annotators agree with the published labels (which "
               "include their own vote)\n{direction} than with the other annotators' "
               "majority or each other (IoU {hard:.2f}, {loo:.2f} and {pair:.2f}, all "
               "languages pooled)",
        "bottom": "Individual annotators' IoU against the others' majority ranges from "
                  "{low:.2f} to {high:.2f} (annotators with at least {min_items} items)"},
    "fig2_detector_scores": {
        "suptitle": "Every study detector under each metric, per language (val + test "
                    "items; lines: {level} item-bootstrap CI)"},
    "fig3_metric_tau": {
        "title": "How alike the metrics order the study's detectors: mean τ over "
                 "{languages} languages\n(IoU and Span Coverage F1 {spancov:.2f}, IoU and "
                 "character F1 {char:.2f})"},
    "fig4_undercoverage": {
        "left": "Pinpoint (one character per reference span): Span Coverage F1 "
                "{f1_low:.2f}–{f1_high:.2f} across languages,\nIoU {iou_low:.2f}–"
                "{iou_high:.2f}",
        "right": "Span Coverage F1 against IoU, every study detector and language"},
    "fig5_humans_and_systems": {
        "suptitle": "On the same references the annotators score above every team's "
                    "leaderboard submission in {above} of {languages} languages;\nthe hard "
                    "labels, which hold the annotator's own vote, {move} the annotators' IoU "
                    "by {shift:.2f} (mean over languages)",
        "xlabel": "language (systems: item-bootstrap CI; MSA submitted {msa} languages)"},
    "fig6_rank_agreement": {
        "left": "Published teams: IoU and Cor order the teams at mean τ {iou:.2f} (IoU "
                "leaderboard) and {cor:.2f} (Cor leaderboard)\n(test split; CI: bootstrap "
                "over teams)",
        "right": "Study detectors (IoU): rankings in character, word and token units\n"
                 "(val + test items; CI: bootstrap over items)"},
    "fig7_provenance": {
        "suptitle": "Test split: annotators' agreement by generating model. With the "
                    "statistic fixed in advance (range of model means, within-language "
                    "permutation, Holm), \nmodels differ in {raw}; after adjusting for text "
                    "length and reference density in {adjusted} (grey: models with < "
                    "{min_items} items, not tested)"},
    "fig8_convention_table": {
        "title": "What a scoring convention does to the ranking of {low}–{high} real "
                 "system files per language (test split).\nCell: τ [{level} item-bootstrap "
                 "CI]; W: the winner changes; MEAN: mean over languages [{level} bootstrap "
                 "over languages] and languages where the winner changes (of {languages})"},
}


def direction(values, more: str = "more", less: str = "less") -> str:
    """``more`` when every value is positive, ``less`` when every one is negative."""
    v = np.asarray(values, dtype=np.float64)
    if (v > 0).all():
        return more
    if (v < 0).all():
        return less
    return f"neither {more} nor {less}"


def names(langs) -> str:
    langs = list(langs)
    return ", ".join(langs) if langs else "no language"


def _fields(t: dict, min_items: int, prov_min_items: int) -> dict[str, dict]:
    level = f"{100 * LEVEL:.0f}%"
    out: dict[str, dict] = {}
    if all(k in t for k in ("annotators_vs_hard", "annotators_vs_loo", "annotators_pairwise",
                            "annotators_vs_loo_by_annotator")):
        pooled = [float(t[k].set_index("lang").loc["ALL", "iou_score"])
                  for k in ("annotators_vs_hard", "annotators_vs_loo", "annotators_pairwise")]
        by = t["annotators_vs_loo_by_annotator"]
        by = by[by["examples"] >= min_items]["iou_score"]
        out["fig1_inter_annotator"] = {
            "hard": pooled[0], "loo": pooled[1], "pair": pooled[2],
            "direction": direction([pooled[0] - pooled[1], pooled[0] - pooled[2]],
                                   "more", "less"),
            "low": float(by.min()), "high": float(by.max()), "min_items": min_items}
    out["fig2_detector_scores"] = {"level": level}
    if "metric_tau_summary" in t:
        s = t["metric_tau_summary"]
        s = s[s["measure_a"] == "iou_score"].set_index("measure_b")
        out["fig3_metric_tau"] = {"languages": int(s["languages"].max()),
                                  "spancov": float(s.loc["span_coverage_f1", "tau_mean"]),
                                  "char": float(s.loc["character_f1", "tau_mean"])}
    if "undercoverage" in t:
        u = t["undercoverage"]
        u = u[u["lang"] != "ALL"]
        out["fig4_undercoverage"] = {
            "f1_low": float(u["span_coverage_f1_refs"].min()),
            "f1_high": float(u["span_coverage_f1_refs"].max()),
            "iou_low": float(u["iou_refs"].min()), "iou_high": float(u["iou_refs"].max())}
    if all(k in t for k in ("annotators_two_way", "systems_vs_loo", "convention_scores")):
        tw = t["annotators_two_way"]
        per = tw[tw["lang"] != "MEAN"]
        shift = float((per["iou_a"] - per["iou_b"]).mean())
        cs = t["convention_scores"]
        out["fig5_humans_and_systems"] = {
            "above": languages_above(per, t["systems_vs_loo"]), "languages": len(per),
            "move": direction([shift], "raise", "lower"), "shift": abs(shift),
            "msa": int(cs.loc[(cs["team"] == "MSA") & cs["role"].astype(str).str.contains(
                "IoU"), "lang"].nunique())}
    if "leaderboard_tau" in t:
        b = t["leaderboard_tau"].set_index(["ranking", "lang"])
        out["fig6_rank_agreement"] = {"iou": float(b.loc[("iou", "MEAN"), "tau_iou_cor"]),
                                      "cor": float(b.loc[("cor", "MEAN"), "tau_iou_cor"])}
    if "provenance_tests" in t:
        p = t["provenance_tests"]
        p = p[(p["series"] == "annotators_vs_loo") & (p["split"] == "test")]
        out["fig7_provenance"] = {
            "raw": names(p.loc[p["p_holm"] < ALPHA, "lang"]),
            "adjusted": names(p.loc[p["p_holm_adjusted"] < ALPHA, "lang"]),
            "min_items": prov_min_items}
    if "convention_effects" in t:
        e = t["convention_effects"]
        sys_ = e[(e["lang"] != "MEAN") & (e["detectors"] == "systems")]
        out["fig8_convention_table"] = {
            "low": int(sys_["n_detectors"].min()), "high": int(sys_["n_detectors"].max()),
            "level": level, "languages": int(sys_["lang"].nunique())}
    return out


def titles(t: dict, *, min_items: int = 20, prov_min_items: int = 10) -> dict[str, dict]:
    """``{figure: {slot: text}}`` for every figure whose tables are in ``t``."""
    fields = _fields(t, min_items, prov_min_items)
    return {fig: {slot: tpl.format(**fields[fig]) for slot, tpl in TEMPLATES[fig].items()}
            for fig in TEMPLATES if fig in fields}


def languages_above(two_way: pd.DataFrame, vs_loo: pd.DataFrame) -> int:
    """Languages where the annotators' LOO IoU exceeds every IoU-row submission's."""
    sub = vs_loo[(vs_loo["kind"] == "system") & vs_loo["role"].astype(str).str.contains("IoU")]
    best = sub.groupby("lang")["iou_loo"].max()
    humans = two_way.set_index("lang")["iou_b"]
    return int((humans.reindex(best.index) > best).sum())


def stored(value: dict[str, str]) -> str:
    """The text a PNG stores under `KEY` (ASCII: a PNG text chunk is Latin-1)."""
    return json.dumps(value, ensure_ascii=True, sort_keys=True)  # PNG text is Latin-1


def literal_numbers() -> list[str]:
    """Numbers typed into a template (outside its format fields)."""
    from .readme import literal_numbers as numbers

    return [f"{fig}.{slot}: {x}" for fig, slots in TEMPLATES.items()
            for slot, tpl in slots.items() for x in numbers(_FIELD.sub(" ", tpl))]
