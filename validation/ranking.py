"""The central table: what each convention change does to a language's ranking.

For every language and every change ``from -> to`` (`validation.conventions.CHANGES`),
over a set of detectors (``all``: systems, annotators and baselines; ``systems``: the
real system files only):

- ``tau``: Kendall's tau-b between the two rankings (1 = the same order);
- ``winner_changes``: the ``from`` winner is not (tied for) first under ``to``;
- ``max_rank_move``: the largest change of a detector's rank (ties share the mean rank);
- ``median_abs_delta``: the median over detectors of ``|score_to - score_from|``.

Each has a 95% percentile interval from `CENTRAL_RESAMPLES` resamples of the item
bootstrap (one Poisson weight per item, keyed by its id: the same for every detector,
every convention and every language's run), recomputing both rankings in every
resample; ``winner_change_share`` is the share of resamples in which the winner changes.
Each winner change is also set against its **noise floor** (`noise_floor`): how often
resampling the items alone, with no convention change, flips the pair of winners. ``MEAN`` rows treat languages as the unit:
the mean (or, for winners, the count) over languages, with an item-bootstrap interval
(the languages fixed, their items resampled) and a language-bootstrap interval
(languages resampled with replacement, `LANGUAGE_RESAMPLES`, seed `LANGUAGE_SEED`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mycelium.stats.bootstrap import example_keys, percentile_interval, poisson_weights
from mycelium.stats.comparison import holm

from .conventions import CHANGES, CONVENTIONS, micro_values, stat_columns
from .uncertainty import ALPHA, LEVEL, SEED, tau_b

LANGUAGE_RESAMPLES = 10_000
LANGUAGE_SEED = 0
#: Item resamples of the central table and its noise floor: the resamples of every other
#: table (`validation.uncertainty.RESAMPLES`; same seed, same item keys).
CENTRAL_RESAMPLES = 10_000
SETS = ("all", "systems")
STATS = ("tau", "winner_changes", "max_rank_move", "median_abs_delta")


def item_weights(item_ids) -> np.ndarray:
    """``CENTRAL_RESAMPLES x items`` Poisson weights of the given item ids (the library's
    bootstrap keyed by item id: a pure function of (seed, resample, id))."""
    ids = [str(x) for x in item_ids]
    return poisson_weights(example_keys(len(ids), ids), SEED, range(CENTRAL_RESAMPLES))


def detector_values(scored: pd.DataFrame, detectors: list[str], w: np.ndarray,
                    items: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per convention: full-data values (D,) and resampled values (R, D) of the
    detectors of one language, whose test items are ``items`` (row positions) with
    resampling weights ``w`` (``R x len(items)``)."""
    col = {d: k for k, d in enumerate(detectors)}
    pos = {i: k for k, i in enumerate(items.tolist())}
    r = np.array([pos[i] for i in scored["item"].tolist()])
    c = np.array([col[d] for d in scored["detector"].tolist()])
    out = {}
    for name in CONVENTIONS:
        if CONVENTIONS[name].metric is None:
            v = scored[name].to_numpy(np.float64)
            out[name] = _macro(w, r, c, v, len(items), len(detectors))
        else:
            cols = stat_columns(name, scored.columns)
            full, star = {}, {}
            for k in cols:
                m = np.zeros((len(items), len(detectors)))
                np.add.at(m, (r, c), scored[k].to_numpy(np.float64))
                full[k] = m.sum(axis=0)
                star[k] = (w @ m).ravel()
            est = micro_values(full, name)
            out[name] = (est, micro_values(star, name).reshape(w.shape[0], -1))
    return out


def _macro(w, r, c, v, n_items, n_det):
    ok = ~np.isnan(v)
    s = np.zeros((n_items, n_det))
    k = np.zeros((n_items, n_det))
    np.add.at(s, (r[ok], c[ok]), v[ok])
    np.add.at(k, (r[ok], c[ok]), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        est = s.sum(axis=0) / k.sum(axis=0)
        star = (w @ s) / (w @ k)
    return est, star


def ranks(values: np.ndarray) -> np.ndarray:
    """Row-wise descending ranks (1 = best), ties sharing their mean rank."""
    v = np.atleast_2d(values)
    greater = (v[:, None, :] > v[:, :, None]).sum(axis=2)
    equal = (v[:, None, :] == v[:, :, None]).sum(axis=2)
    return 1.0 + greater + (equal - 1) / 2.0


def change_stats(a: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
    """The four statistics of one change, row-wise over ``(rows, detectors)`` arrays."""
    a, b = np.atleast_2d(a), np.atleast_2d(b)
    winner = np.argmax(a, axis=1)
    rows = np.arange(a.shape[0])
    return {"tau": tau_b(a, b),
            "winner_changes": (b[rows, winner] < b.max(axis=1)).astype(np.float64),
            "max_rank_move": np.abs(ranks(a) - ranks(b)).max(axis=1),
            "median_abs_delta": np.median(np.abs(b - a), axis=1)}


def noise_floor(sa: np.ndarray, sb: np.ndarray, a: int, b: int) -> dict[str, float]:
    """How often item resampling alone flips the pair of a winner change.

    ``a`` won under the ``from`` convention, ``b`` under the ``to`` one; ``sa`` and ``sb``
    are their resampled values (``R x detectors``) under each. ``flip_share_from`` is the
    share of resamples in which, with no convention change, ``b`` is not below ``a``
    under ``from`` (ties and undefined values count as flips); ``flip_share_to`` the
    same for ``a`` under ``to``. The change is the convention's, not the items', only
    if both orders hold beyond resampling: ``p_value`` is the larger of the two
    ``(1 + flips) / (R + 1)`` (an intersection-union test, valid without adjustment
    for taking the larger).
    """
    flips_from = int((~(sa[:, a] > sa[:, b])).sum())
    flips_to = int((~(sb[:, b] > sb[:, a])).sum())
    n = sa.shape[0]
    return {"flip_share_from": flips_from / n, "flip_share_to": flips_to / n,
            "p_value": (1 + max(flips_from, flips_to)) / (n + 1)}


def language_table(lang: str, values: dict, names: list[str], kinds: np.ndarray
                   ) -> tuple[list[dict], dict, list[dict]]:
    """The rows of one language, the per-resample statistics for the MEAN rows, and the
    noise floor of each winner change."""
    rows, stars, floor = [], {}, []
    for family, src, dst in CHANGES:
        for dset in SETS:
            keep = np.ones(len(names), bool) if dset == "all" else kinds == "system"
            (ea, sa), (eb, sb) = values[src], values[dst]
            est = {k: float(v[0]) for k, v in change_stats(ea[keep], eb[keep]).items()}
            star = change_stats(sa[:, keep], sb[:, keep])
            stars[(src, dst, dset)] = (est, star)
            row = {"lang": lang, "family": family, "from": src, "to": dst,
                   "change": f"{CONVENTIONS[src].label} -> {CONVENTIONS[dst].label}",
                   "detectors": dset, "n_detectors": int(keep.sum()),
                   "winner_from": names[int(np.flatnonzero(keep)[np.argmax(ea[keep])])],
                   "winner_to": names[int(np.flatnonzero(keep)[np.argmax(eb[keep])])]}
            for k in STATS:
                row[k] = est[k]
                if k == "winner_changes":
                    row["winner_change_share"] = float(np.nanmean(star[k]))
                else:
                    row[f"{k}_low"], row[f"{k}_high"] = percentile_interval(
                        star[k], LEVEL, est[k])
            rows.append(row)
            if est["winner_changes"] == 1.0:
                cols = np.flatnonzero(keep)
                a, b = int(np.argmax(ea[keep])), int(np.argmax(eb[keep]))
                floor.append({k: row[k] for k in ("lang", "family", "from", "to", "change",
                                                  "detectors", "winner_from", "winner_to")}
                             | {"gap_from": float(ea[cols[a]] - ea[cols[b]]),
                                "gap_to": float(eb[cols[b]] - eb[cols[a]])}
                             | noise_floor(sa[:, keep], sb[:, keep], a, b))
    return rows, stars, floor


def floor_table(rows: list[dict]) -> pd.DataFrame:
    """Every winner change with its noise floor; Holm across the changes of a detector
    set (every language and every change); ``significant``: Holm-adjusted p below
    `ALPHA`."""
    t = pd.DataFrame(rows)
    if t.empty:
        return t
    t["p_holm"] = np.nan
    for dset in t["detectors"].unique():
        sel = (t["detectors"] == dset).to_numpy()
        t.loc[sel, "p_holm"] = holm(t.loc[sel, "p_value"].to_numpy())
    t["significant"] = t["p_holm"] < ALPHA
    return t


def mean_rows(per_lang: dict[str, dict], floor: pd.DataFrame) -> list[dict]:
    """Languages as the unit: mean (count of winner changes) over languages; with the
    count of winner changes that clear their noise floor (`floor_table`)."""
    langs = sorted(per_lang)
    rng = np.random.default_rng(LANGUAGE_SEED)
    pick = rng.integers(0, len(langs), size=(LANGUAGE_RESAMPLES, len(langs)))
    out = []
    for family, src, dst in CHANGES:
        for dset in SETS:
            row = {"lang": "MEAN", "family": family, "from": src, "to": dst,
                   "change": f"{CONVENTIONS[src].label} -> {CONVENTIONS[dst].label}",
                   "detectors": dset, "languages": len(langs)}
            for k in STATS:
                est = np.array([per_lang[lg][(src, dst, dset)][0][k] for lg in langs])
                star = np.column_stack([per_lang[lg][(src, dst, dset)][1][k] for lg in langs])
                agg = np.sum if k == "winner_changes" else np.mean
                value = float(agg(est))
                row[k] = value
                row[f"{k}_low"], row[f"{k}_high"] = percentile_interval(
                    agg(star, axis=1), LEVEL, value)
                lang_star = agg(est[pick], axis=1)
                row[f"{k}_lang_low"], row[f"{k}_lang_high"] = percentile_interval(
                    lang_star, LEVEL, value)
                if k == "winner_changes":  # the count's bootstrap mean (it is discrete)
                    row["winner_changes_expected"] = float(np.nanmean(agg(star, axis=1)))
            sel = ((floor["from"] == src) & (floor["to"] == dst)
                   & (floor["detectors"] == dset)) if len(floor) else []
            row["winner_changes_significant"] = int(floor.loc[sel, "significant"].sum()) \
                if len(floor) else 0
            out.append(row)
    return out


def central(scored: pd.DataFrame, detectors: pd.DataFrame, items: pd.DataFrame
            ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``convention_effects`` (the headline), ``convention_scores`` (every detector
    under every convention, with intervals) and ``winner_noise_floor`` (each winner
    change against item resampling alone), from `CENTRAL_RESAMPLES` item resamples."""
    effects, scores, per_lang, floor = [], [], {}, []
    test = (items["split"] == "test").to_numpy()
    for lang in sorted(scored["lang"].unique()):
        part = scored[scored["lang"] == lang]
        det = detectors[detectors["lang"] == lang]
        names = det["detector"].tolist()
        idx = np.flatnonzero(test & (items["lang"] == lang).to_numpy())
        values = detector_values(part, names, item_weights(items["id"].to_numpy()[idx]), idx)
        rows, per_lang[lang], changes = language_table(lang, values, names,
                                                       det["kind"].to_numpy())
        effects += rows
        floor += changes
        scores.append(_scores(lang, det, values))
    noise = floor_table(floor)
    effects += mean_rows(per_lang, noise)
    return pd.DataFrame(effects), pd.concat(scores, ignore_index=True), noise


def _scores(lang: str, det: pd.DataFrame, values: dict) -> pd.DataFrame:
    out = det[["lang", "detector", "kind", "team", "role"]].reset_index(drop=True).copy()
    for name, (est, star) in values.items():
        out[name] = est
        ci = [percentile_interval(star[:, k], LEVEL, float(est[k])) for k in range(est.size)]
        out[f"{name}_low"] = [c[0] for c in ci]
        out[f"{name}_high"] = [c[1] for c in ci]
        out[f"{name}_rank"] = ranks(est)[0]
    return out
