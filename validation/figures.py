"""The study's figures (matplotlib, the optional ``validation`` extra).

Each function takes result tables and a path and writes one PNG. Titles state the
finding; axes say what is measured and in which unit.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .scoring import HEADLINE, LABELS

DPI = 110
_METADATA = {"Software": None}  # keep PNGs byte-stable across runs


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 10, "axes.titlesize": 11, "figure.titlesize": 12,
                         "axes.spines.top": False, "axes.spines.right": False})
    return plt


def _horizontal() -> dict:
    """Horizontal boxes: ``orientation=`` from matplotlib 3.10, ``vert=False`` before."""
    import matplotlib

    major, minor = (int(x) for x in matplotlib.__version__.split(".")[:2])
    return {"orientation": "horizontal"} if (major, minor) >= (3, 10) else {"vert": False}


def _err(t: pd.DataFrame, col: str) -> np.ndarray:
    """``yerr`` (2 x n, distances below and above) from ``<col>_low`` / ``<col>_high``."""
    v = t[col].to_numpy(np.float64)
    return np.vstack([v - t[f"{col}_low"].to_numpy(np.float64),
                      t[f"{col}_high"].to_numpy(np.float64) - v]).clip(min=0)


def _save(fig, path: Path) -> None:
    fig.savefig(path, dpi=DPI, metadata=_METADATA)
    import matplotlib.pyplot as plt

    plt.close(fig)


def inter_annotator(vs_hard: pd.DataFrame, vs_loo: pd.DataFrame, pairwise: pd.DataFrame,
                    loo_by_annotator: pd.DataFrame, path: Path, *, min_items: int,
                    titles: dict[str, str]) -> None:
    """IoU of annotators vs hard labels, vs the LOO majority and pairwise, per language."""
    plt = _plt()
    langs = [x for x in vs_hard["lang"] if x not in ("ALL", "MEAN")] + ["ALL"]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(11, 8), sharex=True,
                                      gridspec_kw={"height_ratios": [1, 1]})
    x = np.arange(len(langs))
    width = 0.27
    series = [("vs published hard labels (annotator included)", vs_hard, "#4C72B0"),
              ("vs majority of the other annotators (LOO)", vs_loo, "#DD8452"),
              ("vs each other annotator (pairwise)", pairwise, "#55A868")]
    for i, (label, table, colour) in enumerate(series):
        t = table.set_index("lang").loc[langs]
        values = t["iou_score"].to_numpy()
        err = _err(t, "iou_score")
        top.bar(x + (i - 1) * width, values, width, label=label, color=colour, yerr=err,
                error_kw={"elinewidth": 0.9, "capsize": 1.5, "ecolor": "black"})
    top.set_ylabel("IoU (macro mean over\nannotator-item examples;\nbars: 95% bootstrap CI)")
    top.set_ylim(0, 1.17)
    top.set_yticks(np.linspace(0, 1, 6))
    top.legend(loc="upper center", fontsize=8.5, ncol=3, framealpha=0.9,
               bbox_to_anchor=(0.5, 1.0))
    top.set_title(titles["top"])
    per = loo_by_annotator[loo_by_annotator["examples"] >= min_items]
    for i, lang in enumerate(langs):
        sub = per if lang == "ALL" else per[per["lang"] == lang]
        vals = sub["iou_score"]
        jitter = np.linspace(-0.25, 0.25, len(vals)) if len(vals) > 1 else np.zeros(1)
        bottom.vlines(np.full(len(vals), i) + jitter, sub["iou_score_low"],
                      sub["iou_score_high"], color="#DD8452", lw=0.5, alpha=0.35)
        bottom.scatter(np.full(len(vals), i) + jitter, vals, s=14, alpha=0.8,
                       color="#DD8452", edgecolor="none")
    bottom.set_ylabel(f"IoU vs LOO majority, one dot\nper annotator (≥ {min_items} items; "
                      "line: 95% CI)")
    bottom.set_ylim(0, 1)
    bottom.set_title(titles["bottom"])
    bottom.set_xticks(x, langs)
    bottom.set_xlabel("language (val v2 + test pooled; ALL = all languages pooled)")
    fig.tight_layout()
    _save(fig, path)


def metric_tau(summary: pd.DataFrame, path: Path, *, titles: dict[str, str]) -> None:
    """Heatmap of the mean Kendall tau between the rankings of every pair of metrics."""
    plt = _plt()
    names = list(HEADLINE)
    mat = np.eye(len(names))
    low = np.eye(len(names))
    high = np.eye(len(names))
    for _, r in summary.iterrows():
        i, j = names.index(r["measure_a"]), names.index(r["measure_b"])
        mat[i, j] = mat[j, i] = r["tau_mean"]
        low[i, j] = low[j, i] = r["tau_mean_low"]
        high[i, j] = high[j, i] = r["tau_mean_high"]
    fig, ax = plt.subplots(figsize=(8.2, 6.8))
    shown = np.ma.masked_where(np.eye(len(names), dtype=bool), mat)
    cmap = plt.get_cmap("RdBu").with_extremes(bad="#EEEEEE")
    im = ax.imshow(shown, cmap=cmap, vmin=-1, vmax=1)
    labels = [LABELS[n] for n in names]
    ax.set_xticks(range(len(names)), labels, rotation=35, ha="right")
    ax.set_yticks(range(len(names)), labels)
    for i in range(len(names)):
        for j in range(len(names)):
            if i == j:
                continue
            colour = "white" if abs(mat[i, j]) > 0.6 else "black"
            ax.text(j, i, f"{mat[i, j]:.2f}\n[{low[i, j]:.2f}, {high[i, j]:.2f}]", ha="center",
                    va="center", fontsize=8, color=colour)
    fig.colorbar(im, ax=ax, label="Kendall's τ-b between detector rankings\n"
                 "(mean over languages [95% bootstrap CI]; 1 = same order)")
    ax.set_title(titles["title"])
    ax.spines[:].set_visible(False)
    fig.tight_layout()
    _save(fig, path)


def undercoverage(table: pd.DataFrame, scores: pd.DataFrame, path: Path, *,
                  titles: dict[str, str]) -> None:
    """Pinpoint per language (left) and every detector's Span Coverage F1 vs IoU (right)."""
    plt = _plt()
    per = table[table["lang"] != "ALL"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5.6),
                                      gridspec_kw={"width_ratios": [1.5, 1]})
    x = np.arange(len(per))
    width = 0.27
    for i, (col, label, colour) in enumerate([
            ("span_coverage_f1_refs", "Span Coverage F1", "#4C72B0"),
            ("iou_refs", "IoU", "#DD8452"),
            ("character_recall_refs", "character recall", "#55A868")]):
        left.bar(x + (i - 1) * width, per[col], width, label=label, color=colour,
                 yerr=_err(per, col), error_kw={"elinewidth": 0.9, "capsize": 1.5})
    left.set_xticks(x, per["lang"])
    left.set_ylim(0, 1.08)
    left.set_ylabel("score (macro over items with reference spans)")
    left.set_xlabel("language")
    left.legend(loc="upper center", ncol=3, fontsize=9, framealpha=0.9,
                bbox_to_anchor=(0.5, 0.99))
    left.set_title(titles["left"])
    groups = [("annotator", None, "annotators A1–A6", "#8172B3", "o", 16),
              ("synthetic", "other", "other synthetic detectors", "#AAAAAA", "s", 14),
              ("synthetic", "extended", "extended (over-covers)", "#4C72B0", "D", 22),
              ("synthetic", "truncated", "truncated (under-covers)", "#DD8452", "^", 26),
              ("synthetic", "pinpoint", "pinpoint", "#C44E52", "*", 60)]
    named = {"extended", "truncated", "pinpoint"}
    for kind, name, label, colour, marker, size in groups:
        part = scores[scores["kind"] == kind]
        if name == "other":
            part = part[~part["detector"].isin(named)]
        elif name is not None:
            part = part[part["detector"] == name]
        right.errorbar(part["iou_score"], part["span_coverage_f1"],
                       xerr=_err(part, "iou_score"), yerr=_err(part, "span_coverage_f1"),
                       fmt="none", ecolor=colour, elinewidth=0.5, alpha=0.4)
        right.scatter(part["iou_score"], part["span_coverage_f1"], s=size, alpha=0.8,
                      color=colour, marker=marker, label=label, edgecolor="none")
    right.plot([0, 1], [0, 1], color="black", lw=0.8, ls="--", label="y = x")
    right.set_xlim(-0.02, 1.02)
    right.set_ylim(-0.02, 1.05)
    right.set_xlabel("IoU (macro over all items, one point per language; lines: 95% CI)")
    right.set_ylabel("Span Coverage F1 (macro over all items)")
    right.legend(loc="upper left", bbox_to_anchor=(0.0, 0.85), fontsize=8.5,
                 framealpha=0.9)
    right.set_title(titles["right"])
    fig.tight_layout()
    _save(fig, path)


def rank_agreement(board_tau: pd.DataFrame, gran_tau: pd.DataFrame, path: Path, *,
                   titles: dict[str, str]) -> None:
    """Kendall tau with intervals: IoU vs Cor over the published teams of each ranking,
    and character vs word vs token units over the study's detectors, per language."""
    plt = _plt()
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5), sharey=True)
    for k, (ranking, colour, label) in enumerate((
            ("iou", "#4C72B0", "IoU ranking (each team's best-IoU submission)"),
            ("cor", "#DD8452", "Cor ranking (each team's best-Cor submission)"))):
        bt = board_tau[(board_tau["lang"] != "MEAN") & (board_tau["ranking"] == ranking)]
        x = np.arange(len(bt))
        v = bt["tau_iou_cor"].to_numpy()
        left.errorbar(x + (k - 0.5) * 0.25, v,
                      yerr=np.vstack([v - bt["tau_low"], bt["tau_high"] - v]).clip(min=0),
                      fmt="o", ms=4, capsize=3, color=colour, label=label)
    left.axhline(1, color="black", lw=0.6, ls=":")
    left.axhline(0, color="black", lw=0.6)
    left.set_xticks(x, bt["lang"])
    left.set_ylim(-0.2, 1.05)
    left.set_ylabel("Kendall's τ-b (95% CI)")
    left.legend(fontsize=8, loc="lower left")
    left.set_title(titles["left"])
    gt = gran_tau[gran_tau["lang"] != "MEAN"]
    langs = sorted(gt["lang"].unique())
    xx = np.arange(len(langs))
    for k, ((a, b), colour) in enumerate(zip((("char", "word"), ("char", "token"),
                                              ("word", "token")),
                                             ("#4C72B0", "#DD8452", "#55A868"))):
        p = gt[(gt["unit_a"] == a) & (gt["unit_b"] == b)].set_index("lang").loc[langs]
        val = p["kendall_tau"].to_numpy()
        right.errorbar(xx + (k - 1) * 0.22, val,
                       yerr=np.vstack([val - p["tau_low"], p["tau_high"] - val]).clip(min=0),
                       fmt="o", ms=4, capsize=2, color=colour, label=f"{a} vs {b}")
    right.axhline(1, color="black", lw=0.6, ls=":")
    right.set_xticks(xx, langs)
    right.legend(fontsize=8, loc="lower left")
    right.set_title(titles["right"])
    fig.tight_layout()
    _save(fig, path)


