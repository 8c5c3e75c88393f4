"""The Markdown versions of the study's tables (rounded to 3 decimals; the CSVs keep full
precision)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .comparison import SPLIT
from .report import headline, md_table, write_md
from .scoring import HEADLINE, LABELS

_NOTE = ("Macro means over examples under the `mu_shroom` profile (undefined precision or "
         "recall = 0, IoU of two empty sets = 1). ALL pools every example of every "
         "language; MEAN is the unweighted mean of the language rows. Full precision in "
         "the CSV of the same name.\n\n")


def write_all(out: Path, t: dict) -> None:
    _data(out, t)
    _inter_annotator(out, t)
    _detectors(out, t)
    _tau(out, t)
    _undercoverage(out, t)
    if "token_logit" in t:
        _real(out, t)


def _data(out: Path, t: dict) -> None:
    h = t["data_handling"]
    per_lang = h[(h["lang"] != "ALL") & (h["spans"] > 0)]
    write_md(out / "data_handling.md", "Raw annotations: what the study changed", [
        ("Every issue, all languages", md_table(h[h["lang"] == "ALL"].drop(columns="lang"))),
        ("Per language (issues that occur)", md_table(per_lang.drop(columns="action"))),
        ("Annotators who marked nothing on any of their items",
         "Kept as they are (an empty span list is a valid annotation); they lower the "
         "inter-annotator scores of their language.\n\n" + md_table(t["silent_annotators"])),
        ("Published labels vs a plain vote over the raw annotations",
         "Raw majority: characters marked by more than half of the listed annotators; raw "
         "fraction: the share marking each character. Equality of soft labels allows "
         "1e-6 (the files round to 10 decimals).\n\n" + md_table(t["recompute_check"])),
        ("Leave-one-out references", "Votes needed = more than half of the other "
         "annotators.\n\n" + md_table(t["loo_reference"])),
    ])


def _inter_annotator(out: Path, t: dict) -> None:
    merged = t["annotators_vs_hard_adjacent_merged"]
    given = t["annotators_vs_hard"]
    cols = ["exact_span_f1", "deteval_1d_f1", "cleval_1d_f1", "span_coverage_f1"]
    sens = given[["lang"]].copy()
    for c in cols:
        sens[f"{LABELS[c]} as given"] = given[c]
        sens[f"{LABELS[c]} merged"] = merged[c]
    write_md(out / "inter_annotator.md", "Part 1: annotators scored as detectors", [
        ("", _NOTE),
        ("(a) Each annotator vs the published hard labels (Cor vs the published soft labels)",
         headline(given, ["lang"])),
        ("(b) Each annotator vs the majority of the other annotators (leave-one-out; Cor vs "
         "the other annotators' fraction)", headline(t["annotators_vs_loo"], ["lang"])),
        ("(c) Pairwise: each annotator vs each other annotator of the same item (ordered "
         "pairs; Cor between the two)", headline(t["annotators_pairwise"], ["lang"])),
        ("Sensitivity: adjacent spans of one annotator merged (instance metrics of (a))",
         "Character metrics, IoU and Cor are unchanged by merging.\n\n" + md_table(sens)),
    ])


def _detectors(out: Path, t: dict) -> None:
    s = t["detector_scores"]
    synth = s[s["kind"] == "synthetic"]
    mean = synth.groupby("detector", sort=False)[list(HEADLINE)].mean().reset_index()
    humans = s[s["kind"] == "annotator"][list(HEADLINE)].mean().to_frame().T
    humans.insert(0, "detector", "annotators A1–A6 (mean)")
    ranks = t["detector_ranks"].copy()
    ranks["detector"] = ranks["detector"].where(ranks["kind"] == "synthetic", "annotators")
    mean_rank = ranks.groupby("detector", sort=False)[list(SPLIT)].mean().reset_index()
    sections = [
        ("", "Reference: published hard labels; Cor against the published soft labels. "
             "Annotators A1–A6 are each language's most active annotators (see "
             "`annotator_detectors.csv`), scored on their own items. " + _NOTE),
        ("Mean over languages", md_table(pd.concat([mean, humans]), rename=LABELS)),
        ("Mean rank over languages (1 = best; annotators: mean over A1–A6)",
         md_table(mean_rank, digits=1, rename=LABELS)),
    ]
    for lang, part in s.groupby("lang", sort=True):
        sections.append((lang, headline(part, ["detector"])))
    write_md(out / "detectors.md", "Part 2: reference detectors under every metric",
             sections)


def _tau(out: Path, t: dict) -> None:
    summ = t["metric_tau_summary"].copy()
    for c in ("measure_a", "measure_b"):
        summ[c] = summ[c].map(LABELS)
    tau = t["metric_tau"].copy()
    tau["pair"] = [f"{LABELS[_key(a, b)]} / {LABELS[_key(c, d)]}" for a, b, c, d in
                   zip(tau["metric_a"], tau["measure_a"], tau["metric_b"], tau["measure_b"])]
    wide = tau.pivot(index="lang", columns="pair", values="kendall_tau").reset_index()
    keep = ["lang"] + [c for c in wide.columns if "SpanCov" in c or c == "IoU / Char F1"]
    write_md(out / "metric_tau.md", "Part 2: agreement between the rankings metrics induce", [
        ("", "Kendall's tau-b (`mycelium.stats.agreement.metric_agreement`) between the orders "
             "in which two measures rank the detectors of `detectors.md`, per language.\n\n"),
        ("Summary over languages", md_table(summ, digits=2)),
        ("Per language: pairs with Span Coverage F1, and IoU / Char F1",
         md_table(wide[keep], digits=2)),
    ])


def _key(metric: str, measure: str) -> str:
    return {v: k for k, v in SPLIT.items()}[(metric, measure)]


def _undercoverage(out: Path, t: dict) -> None:
    u = t["undercoverage"]
    cols = {"lang": "lang", "items": "items", "items_with_refs": "items with refs",
            "span_coverage_f1_refs": "SpanCov F1", "iou_refs": "IoU",
            "character_recall_refs": "Char recall", "gap_f1_minus_iou_refs": "F1 − IoU",
            "share_perfect_f1_iou_below_0.1": "share F1 = 1, IoU < 0.1",
            "chars_marked_share": "share of ref chars marked",
            "rank_span_coverage_f1": "rank by SpanCov F1", "rank_iou": "rank by IoU",
            "detectors": "detectors"}
    allitems = u[["lang", "span_coverage_f1", "iou", "character_recall",
                  "annotators_span_coverage_f1", "annotators_iou"]]
    write_md(out / "undercoverage.md", "Part 3: the under-coverage diagnostic", [
        ("", "Pinpoint = the middle character of every reference span. First table: items "
             "with at least one reference span (macro). Ranks are among the detectors of "
             "`detectors.md` (1 = best; ties share the best rank).\n\n"),
        ("Pinpoint on items with reference spans", md_table(u[list(cols)].rename(
            columns=cols))),
        ("All items, next to the annotators (vs hard labels)",
         "Items without reference spans score pinpoint 0 on F1 (0/0 = 0) and 1 on IoU "
         "(both empty).\n\n" + md_table(allitems.rename(columns={
             "span_coverage_f1": "pinpoint SpanCov F1", "iou": "pinpoint IoU",
             "character_recall": "pinpoint Char recall",
             "annotators_span_coverage_f1": "annotators SpanCov F1",
             "annotators_iou": "annotators IoU"}))),
    ])


def _real(out: Path, t: dict) -> None:
    from .report import with_ci

    tl = t["token_logit"]
    logit_cols = ["lang", "split", "examples", "char_auroc", "char_ap", "threshold", "iou",
                  "mark_all_iou", "mark_none_iou"]
    diff = tl[tl["split"] == "test"].rename(columns={
        "minus_mark_all_difference": "d", "minus_mark_all_ci_low": "d_low",
        "minus_mark_all_ci_high": "d_high", "minus_mark_all_p_holm": "p_holm"})
    sr = t["same_reference"]
    sr = sr[sr["lang"] == "ALL"]
    hs = t["humans_and_systems"]
    if "annotators_a" in hs.columns:  # with the real systems (parts 7-10)
        hs_view = hs.rename(columns={
            "annotators_a": "a", "annotators_a_two_way_low": "a_low",
            "annotators_a_two_way_high": "a_high", "annotators_b": "b",
            "annotators_b_two_way_low": "b_low", "annotators_b_two_way_high": "b_high",
            "best_real_b": "best_real_b", "published_teams": "teams"})
        hs_cols = ["lang", "a", "b", "best_real_system", "best_real_a", "best_real_b",
                   "teams", "published_top_a", "published_median_a",
                   "published_mark_all_iou", "study_mark_all_iou"]
        hs_note = ("Annotators: two-way (annotator × item) 95% CI; best real system by "
                   "IoU against LOO (item CI); published teams: IoU against (a) only, no "
                   "outputs.\n\n")
    else:
        hs_view = hs.rename(columns={"annotators_a_iou": "a", "annotators_a_low": "a_low",
                                     "annotators_a_high": "a_high", "annotators_b_iou": "b",
                                     "annotators_b_low": "b_low", "annotators_b_high": "b_high"})
        hs_cols = ["lang", "a", "b", "teams", "top_iou", "median_iou",
                   "published_mark_all_iou", "study_mark_all_iou"]
        hs_note = ""
    hs_cols = [c for c in hs_cols if c in hs_view.columns]
    sections = [
        ("Token-logit baseline, mark-all and mark-none (IoU vs hard labels, 95% CI)",
         "Threshold-free on each split; the threshold is tuned on validation (IoU, "
         "grid 0.00-0.99) and applied to test. CA, CS, EU, FA have no validation "
         "split.\n\n" + md_table(with_ci(tl, logit_cols))),
        ("Token-logit minus mark-all on test (paired, Holm across languages)",
         md_table(with_ci(diff, ["lang", "examples", "d", "p_holm"]))),
        ("Same references: annotators and detectors on the same annotation rows (ALL)",
         "(a) hard = published hard labels (the annotator's own vote included); (b) loo "
         "= majority of the other annotators.\n\n"
         + md_table(with_ci(sr, ["split", "predictor", "reference", "rows", "iou", "cor"]))),
        ("Test split: annotators (a, b) beside the real and the published systems",
         hs_note + md_table(with_ci(hs_view, hs_cols))),
    ]
    if "leaderboard_tau" in t:
        sections.append(("Published leaderboards (IoU ranking and Cor ranking, each with "
                         "its own submissions): Kendall tau between the IoU and Cor of "
                         "the teams (CI: bootstrap over teams)",
                         md_table(with_ci(t["leaderboard_tau"].rename(
                             columns={"tau_iou_cor": "tau"}),
                             ["ranking", "lang", "teams", "tau", "median_adjacent_gap",
                              "top_team", "same_top_team_both_rankings"]))))
    sections += [
        ("Smallest detectable difference with 150 test items (80% power, 5%, paired)",
         md_table(t["detectable_difference"])),
        ("Provenance: best minus worst generating model (models with >= 10 items)",
         md_table(with_ci(t["provenance_spread"].rename(columns={"difference": "d",
                                                                 "ci_low": "d_low",
                                                                 "ci_high": "d_high"}),
                          ["series", "split", "lang", "models", "best_model", "worst_model",
                           "d"]))),
        ("Granularity: Kendall tau between detector rankings in two units (IoU)",
         md_table(with_ci(t["granularity_tau"].rename(columns={"kendall_tau": "tau"}),
                          ["lang", "unit_a", "unit_b", "detectors", "tau"]))),
        ("Typology (illustrative: hand-written records, not Mu-SHROOM data)",
         md_table(t["typology_illustrative"])),
    ]
    write_md(out / "real_detectors.md", "Real detectors, the same references, the "
             "leaderboard, provenance, granularity", sections)
