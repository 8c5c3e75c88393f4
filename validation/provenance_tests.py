"""Provenance done properly: does a score depend on which model generated the text, once
the choice of models to compare is taken out of the hands of whoever looks?

- ``provenance_tests``: per language and split, the statistic fixed in advance is the
  **range of the model means** (best minus worst generating model, over the models with at
  least `MIN_MODEL_ITEMS` items); its null distribution permutes the model labels among
  the language's items (`PERMUTATIONS`, seeded per language), so the search for the best
  and worst model is repeated in every permutation. Adjusted: the same test on the
  residuals of an ordinary least-squares fit of the item's score on log text length and
  reference density (the share of the text's characters inside the hard labels), within
  the language. Holm across languages in each family. The item is the unit (an item's
  score is the mean over its annotators, or over the real systems).
- ``provenance_systems``: per language (test) and generating model, Kendall's tau-b
  between the real systems' IoU ranking on that model's items and on the language's other
  items (item-bootstrap interval), and whether the top system is the same; the permutation
  test of the mean of those tau (low = the model matters for the ranking) with Holm.
"""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd

from mycelium.stats.bootstrap import percentile_interval

from .uncertainty import LEVEL, Resampler, holm, tau_b

MIN_MODEL_ITEMS = 10
PERMUTATIONS = 10_000
PERMUTATION_SEED = 0


def _rng(*keys: str) -> np.random.Generator:
    return np.random.default_rng([PERMUTATION_SEED,
                                  *[zlib.crc32(k.encode("utf-8")) for k in keys]])


def _permuted_labels(codes: np.ndarray, rng) -> np.ndarray:
    """``PERMUTATIONS x n`` permutations of the label codes."""
    keys = rng.random((PERMUTATIONS, codes.size))
    return codes[np.argsort(keys, axis=1)]


def _group_means(labels: np.ndarray, y: np.ndarray, k: int) -> np.ndarray:
    """Row-wise means of ``y`` per label (``rows x k``)."""
    rows = labels.shape[0]
    flat = labels + k * np.arange(rows)[:, None]
    sums = np.bincount(flat.ravel(), weights=np.tile(y, rows), minlength=rows * k)
    counts = np.bincount(flat.ravel(), minlength=rows * k)
    return (sums / counts).reshape(rows, k)


def range_test(model: np.ndarray, y: np.ndarray, key: tuple) -> dict:
    """The permutation test of the range of model means (eligible models only)."""
    names, counts = np.unique(model, return_counts=True)
    keep_models = names[counts >= MIN_MODEL_ITEMS]
    sel = np.isin(model, keep_models)
    if keep_models.size < 2:
        return {}
    codes = np.searchsorted(keep_models, model[sel])
    yy = y[sel]
    means = _group_means(codes[None, :], yy, keep_models.size)[0]
    stat = float(means.max() - means.min())
    perm = _group_means(_permuted_labels(codes, _rng(*key)), yy, keep_models.size)
    null = perm.max(axis=1) - perm.min(axis=1)
    return {"models": int(keep_models.size), "items": int(sel.sum()),
            "best_model": str(keep_models[means.argmax()]),
            "worst_model": str(keep_models[means.argmin()]), "range": stat,
            "p_value": float((1 + (null >= stat - 1e-12).sum()) / (PERMUTATIONS + 1))}


def _residuals(y: np.ndarray, covariates: np.ndarray) -> np.ndarray:
    x = np.column_stack([np.ones(y.size), covariates])
    beta, *_ = np.linalg.lstsq(x, y, rcond=None)
    return y - x @ beta


def item_series(items: pd.DataFrame, per: dict, scored: pd.DataFrame) -> dict:
    """Per series, one value per item (``item`` -> value)."""
    loo = per["vs_loo"].groupby("item")["iou_score"].mean()
    systems = scored[scored["kind"] == "system"].groupby("item")["iou"].mean()
    return {"annotators_vs_loo": loo, "real_systems_vs_hard": systems}


def tests_table(items: pd.DataFrame, series: dict) -> pd.DataFrame:
    density = _density(items)
    loglen = np.log(items["text_len"].to_numpy().astype(np.float64))
    rows = []
    for name, values in series.items():
        idx = values.index.to_numpy()
        for split in ("test", "val"):
            for lang in sorted(items["lang"].unique()):
                sel = idx[(items["lang"].to_numpy()[idx] == lang)
                          & (items["split"].to_numpy()[idx] == split)]
                if sel.size == 0:
                    continue
                y = values.loc[sel].to_numpy()
                model = items["model_id"].to_numpy()[sel].astype(str)
                raw = range_test(model, y, (name, split, lang))
                if not raw:
                    continue
                adj = range_test(model, _residuals(y, np.column_stack(
                    [loglen[sel], density[sel]])), (name, split, lang, "adjusted"))
                rows.append({"series": name, "split": split, "lang": lang, **raw,
                             "range_adjusted": adj["range"],
                             "p_value_adjusted": adj["p_value"],
                             "best_model_adjusted": adj["best_model"],
                             "worst_model_adjusted": adj["worst_model"]})
    df = pd.DataFrame(rows)
    for col in ("p_value", "p_value_adjusted"):
        df[col.replace("p_value", "p_holm")] = np.nan
        for _, g in df.groupby(["series", "split"]).groups.items():
            df.loc[g, col.replace("p_value", "p_holm")] = holm(df.loc[g, col].to_numpy())
    return df


def _density(items: pd.DataFrame) -> np.ndarray:
    marked = [sum(int(s["end"]) - int(s["start"]) for s in spans)
              for spans in items["hard_labels"].tolist()]
    return np.asarray(marked, np.float64) / items["text_len"].to_numpy()


def systems_table(items: pd.DataFrame, scored: pd.DataFrame, detectors: pd.DataFrame,
                  rs: Resampler) -> pd.DataFrame:
    rows = []
    sysrows = scored[scored["kind"] == "system"]
    for lang, g in sysrows.groupby("lang", sort=True):
        wide = g.pivot_table(index="item", columns="detector", values="iou", aggfunc="first")
        model = items["model_id"].to_numpy()[wide.index.to_numpy()].astype(str)
        names, counts = np.unique(model, return_counts=True)
        eligible = names[counts >= MIN_MODEL_ITEMS]
        if eligible.size < 2:
            continue
        # Only the eligible models' items: "the rest" is the other eligible models.
        keep = np.isin(model, eligible)
        item, v, model = wide.index.to_numpy()[keep], wide.to_numpy()[keep], model[keep]
        obs = []
        for m in eligible:
            inside = model == m
            est_in, est_out = v[inside].mean(0), v[~inside].mean(0)
            t = float(tau_b(est_in[None], est_out[None])[0])
            w = rs.weights[:, item]
            with np.errstate(invalid="ignore", divide="ignore"):  # a resample drawing none
                star_in = (w[:, inside] @ v[inside]) / w[:, inside].sum(1, keepdims=True)
                star_out = (w[:, ~inside] @ v[~inside]) / w[:, ~inside].sum(1, keepdims=True)
            low, high = percentile_interval(tau_b(star_in, star_out), LEVEL, t)
            obs.append(t)
            rows.append({"lang": lang, "model_id": m, "items": int(inside.sum()),
                         "systems": v.shape[1], "tau_model_vs_rest": t, "tau_low": low,
                         "tau_high": high,
                         "top_system_model": wide.columns[int(est_in.argmax())],
                         "top_system_rest": wide.columns[int(est_out.argmax())],
                         "same_top": bool(est_in.argmax() == est_out.argmax())})
        p = _mean_tau_test(model, v, eligible, float(np.mean(obs)), lang)
        for r in rows[-len(eligible):]:
            r["mean_tau"] = float(np.mean(obs))
            r["p_value_mean_tau"] = p
    df = pd.DataFrame(rows)
    per_lang = df.drop_duplicates("lang")
    adj = dict(zip(per_lang["lang"], holm(per_lang["p_value_mean_tau"].to_numpy())))
    df["p_holm_mean_tau"] = df["lang"].map(adj)
    return df


def _mean_tau_test(model, v, eligible, stat: float, lang: str) -> float:
    """P(mean tau over models <= observed) when model labels are exchangeable."""
    codes = np.searchsorted(eligible, model)
    labels = _permuted_labels(codes, _rng("provenance_systems", lang))
    total = v.sum(0)
    taus = []
    for k in range(eligible.size):
        onehot = (labels == k).astype(np.float64)
        n_in = onehot.sum(1, keepdims=True)
        s_in = onehot @ v
        taus.append(tau_b(s_in / n_in, (total - s_in) / (model.size - n_in)))
    null = np.mean(taus, axis=0)
    return float((1 + (null <= stat + 1e-12).sum()) / (PERMUTATIONS + 1))


def tables(items, per, scored, detectors, rs) -> dict:
    return {"provenance_tests": tests_table(items, item_series(items, per, scored)),
            "provenance_systems": systems_table(items, scored, detectors, rs)}
