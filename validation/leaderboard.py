"""The published Mu-SHROOM 2025 test leaderboards (``leaderboard/iou_rankings.md`` next
to ``splits/``; provenance in its SOURCE.md): every team's best submission, IoU and Cor
(Spearman rho) per language, as computed by the official scorer on the labeled test split.

These are published figures, not system outputs, so no item-level bootstrap is possible:
intervals on the rank agreement of IoU and Cor resample **teams** (with replacement,
seeded), i.e. they describe how much tau depends on which teams took part.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from mycelium.stats.bootstrap import percentile_interval

from .uncertainty import LEVEL, RESAMPLES, SEED

FILE = "iou_rankings.md"
_ROW = re.compile(r"^\|\s*(\d*)\s*\|\s*(.+?)\s*\|\s*([-\d.e]+)\s*\|\s*([-\d.e]+)\s*\|$")


def find(root: Path) -> Path | None:
    """``leaderboard/iou_rankings.md`` below or beside ``root`` (None if absent)."""
    for base in (root, root.parent):
        hits = sorted(base.rglob(FILE)) if base.is_dir() else []
        if hits:
            return hits[0]
    return None


def read(path: Path) -> pd.DataFrame:
    """``lang, rank, team, iou, cor, baseline`` for every row of every language."""
    rows, lang = [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            lang = line[3:].strip().upper()
            continue
        m = _ROW.match(line.strip())
        if m and lang:
            rank, team, iou, cor = m.groups()
            base = team.startswith("_Baseline")
            rows.append({"lang": lang, "rank": int(rank) if rank else np.nan,
                         "team": team.strip("_"), "iou": float(iou), "cor": float(cor),
                         "baseline": base})
    if not rows:
        raise ValueError(f"Expected leaderboard tables in {path}, got none; fix by "
                         "copying the published iou_rankings.md unchanged.")
    return pd.DataFrame(rows)


def teams(board: pd.DataFrame) -> pd.DataFrame:
    return board[~board["baseline"]].reset_index(drop=True)


def tau_table(board: pd.DataFrame) -> pd.DataFrame:
    """Per language: Kendall tau-b between the IoU and Cor rankings of the teams, with a
    bootstrap-over-teams interval, and the gaps between teams adjacent in IoU."""
    from .uncertainty import tau_b

    out, stars = [], []
    for lang, part in teams(board).groupby("lang", sort=True):
        iou, cor = part["iou"].to_numpy(), part["cor"].to_numpy()
        n = iou.size
        est = float(tau_b(iou[None, :], cor[None, :])[0])
        rng = np.random.default_rng([SEED, n, sum(map(ord, lang))])
        pick = rng.integers(0, n, size=(RESAMPLES, n))
        star = tau_b(iou[pick], cor[pick])
        stars.append(star)
        low, high = percentile_interval(star, LEVEL, est)
        gaps = -np.diff(np.sort(iou)[::-1])
        top_iou = part.loc[part["iou"].idxmax()]
        top_cor = part.loc[part["cor"].idxmax()]
        out.append({"lang": lang, "teams": n, "tau_iou_cor": est, "tau_low": low,
                    "tau_high": high,
                    "median_adjacent_iou_gap": float(np.median(gaps)),
                    "top_team_iou": top_iou["team"], "top_iou": top_iou["iou"],
                    "top_team_cor": top_cor["team"], "top_cor": top_cor["cor"],
                    "same_top_team": bool(top_iou["team"] == top_cor["team"]),
                    "rank_by_iou_of_top_cor": int(part["iou"].rank(ascending=False,
                                                                   method="min")
                                                  [part["cor"].idxmax()])})
    df = pd.DataFrame(out)
    mean = float(df["tau_iou_cor"].mean())
    mlow, mhigh = percentile_interval(np.nanmean(np.vstack(stars), axis=0), LEVEL, mean)
    summary = {"lang": "MEAN", "teams": int(df["teams"].sum()),
               "tau_iou_cor": mean, "tau_low": mlow, "tau_high": mhigh,
               "median_adjacent_iou_gap": float(np.median(np.concatenate(
                   [-np.diff(np.sort(p["iou"].to_numpy())[::-1])
                    for _, p in teams(board).groupby("lang")])))}
    return pd.concat([df, pd.DataFrame([summary])], ignore_index=True)
