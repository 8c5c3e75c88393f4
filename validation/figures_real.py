"""The figures of the real-system parts, and the redrawn detector, humans-and-systems and
provenance figures (matplotlib, the optional ``validation`` extra). Every plotted number
has its interval; every point or bar is labelled; test-split figures say so."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .conventions import CHANGES, CONVENTIONS
from .detectors import SYNTHETIC
from .figures import _err, _plt, _save
from .scoring import HEADLINE, LABELS

TEAM_STYLE = {"MSA": ("#C44E52", "o"), "NCL-UoR": ("#4C72B0", "s"), "UZH": ("#55A868", "^")}
_DETECTOR_COLOURS = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860",
                     "#DA8BC3", "#8C8C8C", "#CCB974", "#000000"]
_MARKERS = ["o", "s", "^", "v", "D", "P", "X", "<", ">", "*"]


def detector_scores(scores: pd.DataFrame, path: Path, *, titles: dict[str, str],
                    fig=None) -> None:
    """One panel per metric: each synthetic detector and the language's most active
    annotator (A1) per language, with 95% item-bootstrap intervals."""
    plt = _plt()
    groups = list(SYNTHETIC) + ["A1"]
    langs = sorted(scores["lang"].unique())
    fig, axes = plt.subplots(len(HEADLINE), 1, figsize=(13, 2.3 * len(HEADLINE)),
                             sharex=True)
    x = np.arange(len(langs))
    offsets = np.linspace(-0.38, 0.38, len(groups))
    for ax, col in zip(axes, HEADLINE):
        for k, g in enumerate(groups):
            part = scores[scores["detector"] == g].set_index("lang").reindex(langs)
            ok = part[col].notna().to_numpy()
            ax.errorbar(x[ok] + offsets[k], part[col][ok], yerr=_err(part[ok], col),
                        fmt=_MARKERS[k], ms=3.5, lw=0.7, capsize=0,
                        color=_DETECTOR_COLOURS[k],
                        label=("A1 (most active annotator)" if g == "A1" else g))
        ax.set_ylabel(LABELS[col])
        ax.set_ylim(-0.05 if col != "cor" else -0.4, 1.05)
        ax.grid(axis="y", alpha=0.3)
        for b in x[:-1]:
            ax.axvline(b + 0.5, color="#DDDDDD", lw=0.6)
    axes[0].legend(ncol=5, fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.02))
    axes[-1].set_xticks(x, langs)
    axes[-1].set_xlabel("language (val + test items; vs the published hard labels; Cor vs "
                        "the published soft labels; lines: 95% item-bootstrap CI)")
    fig.suptitle(titles["suptitle"], y=0.995)
    fig.tight_layout()
    _save(fig, path)


def humans_and_systems(two_way: pd.DataFrame, conv_scores: pd.DataFrame,
                       vs_loo: pd.DataFrame, path: Path, *, titles: dict[str, str]) -> None:
    """Test split, per language: the annotators (two-way CI) and each team's IoU-row
    submission, mark-all and the token classifier (item CI), against (a) the hard labels
    and (b) the same leave-one-out references."""
    plt = _plt()
    tw = two_way[two_way["lang"] != "MEAN"]
    langs = tw["lang"].tolist()
    x = np.arange(len(langs))
    fig, axes = plt.subplots(2, 1, figsize=(13, 9), sharex=True)
    sources = {"a": (conv_scores, "iou"), "b": (vs_loo, "iou_loo")}
    panels = {"a": "(a) against the published hard labels (the annotator's own vote is in "
                   "the reference: an upper bound for humans)",
              "b": "(b) against the leave-one-out majority of the other annotators — the "
                   "same references for humans and systems"}
    for ax, ref in zip(axes, ("a", "b")):
        t = tw.set_index("lang")
        v = t[f"iou_{ref}"].to_numpy()
        ax.errorbar(x - 0.3, v, yerr=np.vstack([v - t[f"iou_{ref}_two_way_low"],
                                                t[f"iou_{ref}_two_way_high"] - v]),
                    fmt="D", ms=6, color="black", capsize=3,
                    label="annotators (two-way annotator × item CI)")
        table, col = sources[ref]
        shown = [(team, f"{team} (leaderboard IoU submission)") for team in TEAM_STYLE]
        for k, (team, label) in enumerate(shown):
            part = table[(table["team"] == team) & table["role"].astype(str).str.contains(
                "IoU")].set_index("lang").reindex(langs)
            ok = part[col].notna().to_numpy()
            colour, marker = TEAM_STYLE[team]
            ax.errorbar(x[ok] - 0.12 + 0.12 * k, part[col][ok], yerr=_err(part[ok], col),
                        fmt=marker, ms=5, color=colour, capsize=2, label=label)
        for k, (name, colour, marker, label) in enumerate((
                ("token_classifier", "#8172B3", "P", "token classifier (trained on val)"),
                ("mark_all", "#8C8C8C", "x", "mark all"))):
            part = table[table["detector"] == name].set_index("lang").reindex(langs)
            ax.errorbar(x + 0.26 + 0.1 * k, part[col], yerr=_err(part, col), fmt=marker,
                        ms=5, color=colour, capsize=2, label=label)
        ax.set_ylim(0, 1)
        ax.set_ylabel("IoU, test split\n(95% CI)")
        ax.set_title(panels[ref], fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=8, ncol=3, loc="lower left", framealpha=0.9)
    axes[1].set_xticks(x, langs)
    axes[1].set_xlabel(titles["xlabel"])
    fig.suptitle(titles["suptitle"], y=0.995)
    fig.tight_layout()
    _save(fig, path)


def provenance(prov: pd.DataFrame, tests: pd.DataFrame, path: Path, *, min_items: int,
               titles: dict[str, str]) -> None:
    """Test split, one panel per language: annotators vs the LOO majority by generating
    model (n items, 95% CI), with the permutation test of the range (Holm)."""
    plt = _plt()
    p = prov[(prov["series"] == "annotators_vs_loo") & (prov["split"] == "test")]
    t = tests[(tests["series"] == "annotators_vs_loo") & (tests["split"] == "test")
              ].set_index("lang")
    langs = sorted(p["lang"].unique())
    fig, axes = plt.subplots(4, 4, figsize=(18, 13), sharex=True)
    for ax in axes.flat[len(langs):]:
        ax.axis("off")
    for ax, lang in zip(axes.flat, langs):
        q = p[p["lang"] == lang].sort_values("iou")
        y = np.arange(len(q))
        small = (q["items"] < min_items).to_numpy()
        colours = np.where(small, "#AAAAAA", "#4C72B0")
        for k in range(len(q)):
            r = q.iloc[k]
            ax.errorbar(r["iou"], k, xerr=[[r["iou"] - r["iou_low"]], [r["iou_high"] - r["iou"]]],
                        fmt="o", ms=4, color=colours[k], capsize=2)
        ax.set_yticks(y, [f"{_short(m)} (n={n})" for m, n in zip(q["model_id"], q["items"])],
                      fontsize=7)
        ax.set_xlim(0.2, 1)
        ax.set_ylim(-0.6, len(q) - 0.4)
        if lang in t.index:
            r = t.loc[lang]
            ax.set_title(f"{lang}: p_Holm {r['p_holm']:.3f}\nadjusted {r['p_holm_adjusted']:.3f}",
                         fontsize=9)
        else:
            ax.set_title(f"{lang}: fewer than 2 models with ≥ {min_items} items", fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    for ax in axes.flat[len(langs) - 4:len(langs)]:
        ax.set_xlabel("annotators' IoU vs LOO (95% CI)", fontsize=8)
        ax.xaxis.set_tick_params(labelbottom=True)
    fig.suptitle(titles["suptitle"], y=0.995)
    fig.tight_layout()
    _save(fig, path)


def _short(model_id: str) -> str:
    name = str(model_id).split("/")[-1]
    return name if len(name) <= 22 else name[:20] + "…"


def convention_table(effects: pd.DataFrame, path: Path, *, titles: dict[str, str]) -> None:
    """The central table: tau between the official and the changed ranking of the real
    systems, per language and change, with its interval; W marks a changed winner."""
    plt = _plt()
    e = effects[effects["detectors"] == "systems"]
    langs = sorted(x for x in e["lang"].unique() if x != "MEAN") + ["MEAN"]
    labels = [f"{CONVENTIONS[a].label} → {CONVENTIONS[b].label}" for _, a, b in CHANGES]
    mat = np.full((len(CHANGES), len(langs)), np.nan)
    fig, ax = plt.subplots(figsize=(19, 8.5))
    for i, (_, a, b) in enumerate(CHANGES):
        for j, lang in enumerate(langs):
            r = e[(e["from"] == a) & (e["to"] == b) & (e["lang"] == lang)].iloc[0]
            mat[i, j] = r["tau"]
            lo, hi = (r["tau_lang_low"], r["tau_lang_high"]) if lang == "MEAN" else (
                r["tau_low"], r["tau_high"])
            win = (f"\nW {int(r['winner_changes'])}/{int(r['languages'])}" if lang == "MEAN"
                   else ("\nW" if r["winner_changes"] else ""))
            ax.text(j, i, f"{r['tau']:.2f}\n[{lo:.2f}, {hi:.2f}]{win}", ha="center",
                    va="center", fontsize=7, color="white" if abs(r["tau"]) > 0.75 else "black")
    im = ax.imshow(mat, cmap="RdBu", vmin=-1, vmax=1, aspect="auto")
    ax.set_xticks(range(len(langs)), langs)
    ax.set_yticks(range(len(CHANGES)), labels, fontsize=8.5)
    ax.axvline(len(langs) - 1.5, color="white", lw=3)
    fig.colorbar(im, ax=ax, fraction=0.025, pad=0.01,
                 label="Kendall's τ-b between the two rankings of the real systems")
    ax.set_title(titles["title"], fontsize=10)
    ax.spines[:].set_visible(False)
    fig.tight_layout()
    _save(fig, path)
