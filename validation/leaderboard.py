"""The published Mu-SHROOM 2025 test leaderboards, both of them: ``iou_rankings.md``
(each team's best-IoU submission) and ``cor_rankings.md`` (each team's best-Cor
submission, for some teams a different one), found next to ``splits/`` (provenance in
their SOURCE.md). Every team's IoU and Cor (Spearman rho) per language, as computed by
the official scorer on the labeled test split.

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

FILES = {"iou": "iou_rankings.md", "cor": "cor_rankings.md"}
FILE = FILES["iou"]
_ROW = re.compile(r"^\|\s*(\d*)\s*\|\s*(.+?)\s*\|\s*([-\d.e]+)\s*\|\s*([-\d.e]+)\s*\|$")
_HEAD = re.compile(r"^\|\s*\|\s*Team name\s*\|\s*(\S+)\s*\|\s*(\S+)\s*\|$")


def find(root: Path, name: str = FILE) -> Path | None:
    """``leaderboard/<name>`` below or beside ``root`` (None if absent)."""
    for base in (root, root.parent):
        hits = sorted(base.rglob(name)) if base.is_dir() else []
        if hits:
            return hits[0]
    return None


def read_all(root: Path) -> pd.DataFrame | None:
    """Both rankings (``ranking`` = ``iou`` / ``cor``), or None when the IoU one is absent;
    a missing Cor ranking is simply left out."""
    parts = []
    for ranking, name in FILES.items():
        path = find(root, name)
        if path is not None:
            parts.append(read(path).assign(ranking=ranking))
    if not parts or parts[0]["ranking"].iat[0] != "iou":
        return None
    return pd.concat(parts, ignore_index=True)


def read(path: Path) -> pd.DataFrame:
    """``lang, rank, team, iou, cor, baseline`` for every row of every language (the
    column order is read from each table's header: IoU first or rho first)."""
    rows, lang, order = [], None, ("iou", "cor")
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            lang = line[3:].strip().upper()
            continue
        head = _HEAD.match(line.strip())
        if head:
            order = tuple("iou" if h == "IoU" else "cor" for h in head.groups())
            continue
        m = _ROW.match(line.strip())
        if m and lang:
            rank, team, x, y = m.groups()
            values = dict(zip(order, (float(x), float(y))))
            rows.append({"lang": lang, "rank": int(rank) if rank else np.nan,
                         "team": team.strip("_"), "iou": values["iou"],
                         "cor": values["cor"], "baseline": team.startswith("_Baseline")})
    if not rows:
        raise ValueError(f"Expected leaderboard tables in {path}, got none; fix by "
                         "copying the published ranking file unchanged.")
    return pd.DataFrame(rows)


def teams(board: pd.DataFrame) -> pd.DataFrame:
    return board[~board["baseline"]].reset_index(drop=True)


def tau_table(board: pd.DataFrame) -> pd.DataFrame:
    """Per ranking (``iou``, ``cor``) and language: Kendall tau-b between the IoU and Cor
    of that ranking's submissions, with a bootstrap-over-teams interval; the gaps between
    teams adjacent in the ranking's own metric; its top team, and whether the other
    ranking has the same top team; how many teams list a different submission in the two
    rankings. A ``MEAN`` row per ranking averages the languages."""
    from .uncertainty import tau_b

    out = []
    rankings = list(dict.fromkeys(board["ranking"]))
    tops = {r: {lg: _top(p, r) for lg, p in teams(board[board["ranking"] == r])
                .groupby("lang")} for r in rankings}
    for ranking in rankings:
        stars, rows = [], []
        own = teams(board[board["ranking"] == ranking])
        for lang, part in own.groupby("lang", sort=True):
            iou, cor = part["iou"].to_numpy(), part["cor"].to_numpy()
            n = iou.size
            est = float(tau_b(iou[None, :], cor[None, :])[0])
            rng = np.random.default_rng([SEED, n, sum(map(ord, lang))])
            pick = rng.integers(0, n, size=(RESAMPLES, n))
            star = tau_b(iou[pick], cor[pick])
            stars.append(star)
            low, high = percentile_interval(star, LEVEL, est)
            metric = part[ranking].to_numpy()
            other = [r for r in rankings if r != ranking]
            row = {"ranking": ranking, "lang": lang, "teams": n, "tau_iou_cor": est,
                   "tau_low": low, "tau_high": high,
                   "median_adjacent_gap": float(np.median(-np.diff(np.sort(metric)[::-1]))),
                   "top_team": tops[ranking][lang]}
            top_by_other = part.loc[part["cor" if ranking == "iou" else "iou"].idxmax()]
            row["top_team_by_other_metric"] = top_by_other["team"]
            row["rank_of_top_by_other_metric"] = int(part[ranking].rank(
                ascending=False, method="min")[top_by_other.name])
            if other and lang in tops[other[0]]:
                row["top_team_other_ranking"] = tops[other[0]][lang]
                row["same_top_team_both_rankings"] = bool(
                    tops[ranking][lang] == tops[other[0]][lang])
                row["teams_with_different_submission"] = _different(board, lang)
            rows.append(row)
        df = pd.DataFrame(rows)
        mean = float(df["tau_iou_cor"].mean())
        mlow, mhigh = percentile_interval(np.nanmean(np.vstack(stars), axis=0), LEVEL, mean)
        summary = {"ranking": ranking, "lang": "MEAN", "teams": int(df["teams"].sum()),
                   "tau_iou_cor": mean, "tau_low": mlow, "tau_high": mhigh,
                   "median_adjacent_gap": float(np.median(np.concatenate(
                       [-np.diff(np.sort(p[ranking].to_numpy())[::-1])
                        for _, p in own.groupby("lang")])))}
        if "same_top_team_both_rankings" in df:
            summary["same_top_team_both_rankings"] = int(df["same_top_team_both_rankings"]
                                                         .sum())
        out += [df, pd.DataFrame([summary])]
    return pd.concat(out, ignore_index=True)


def _top(part: pd.DataFrame, ranking: str) -> str:
    return str(part.loc[part[ranking].idxmax(), "team"])


def _different(board: pd.DataFrame, lang: str) -> int:
    """Teams of ``lang`` whose (IoU, Cor) differs between the two rankings."""
    t = teams(board[board["lang"] == lang])
    wide = t.pivot_table(index="team", columns="ranking", values=["iou", "cor"],
                         aggfunc="first")
    both = wide.dropna()
    return int(((both[("iou", "iou")] != both[("iou", "cor")])
                | (both[("cor", "iou")] != both[("cor", "cor")])).sum())
