"""The token baselines on the data: the tie and whitespace conventions of the token-logit
baseline, and a token classifier trained on the validation split and tested on test.

Thresholds are tuned for IoU on validation (`mycelium.tune_threshold`, grid 0.00-0.99,
spans = runs of tokens scoring ``> t``): on the language's own validation split, or,
for the four languages without one (CA, CS, EU, FA), on every validation item pooled
(``threshold_from``). Test numbers are per-example values with item-bootstrap intervals
(`validation.uncertainty.Resampler`); paired differences are Holm-corrected across
languages within each comparison.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import mycelium

from . import logistic
from .flat import Flat
from .token_baselines import (FEATURES, L2, Tokens, char_scores, features, labels,
                              non_empty)
from .uncertainty import ALPHA, Resampler, holm

PROFILE = "mu_shroom"
GRID = [k / 100 for k in range(100)]
#: The baselines' score columns: name -> how the token scores are made.
BASELINES = ("token_logit_minmax", "token_logit_midrank", "token_classifier")


def fit_classifier(items: pd.DataFrame, toks: Tokens) -> tuple[logistic.Logistic, pd.DataFrame]:
    """The classifier fitted on every non-empty validation token of ``items``; its
    coefficient table."""
    val = np.flatnonzero(items["split"].to_numpy() == "val")
    text = items["model_output_text"].tolist()
    hard = items["hard_labels"].tolist()
    xs, ys = [], []
    for i in val.tolist():
        keep = non_empty(toks, i)
        xs.append(features(toks, i, text[i])[keep])
        ys.append(labels(toks, i, _pairs(hard[i]))[keep])
    x, y = np.vstack(xs), np.concatenate(ys)
    model = logistic.fit(x, y, l2=L2)
    table = pd.DataFrame({"feature": ["(intercept)", *FEATURES],
                          "coefficient": [model.intercept, *model.coef],
                          "train_mean": [np.nan, *model.mean],
                          "train_scale": [np.nan, *model.scale]})
    table["l2"] = model.l2
    table["newton_iterations"] = model.iterations
    table["train_tokens"] = int(y.size)
    table["train_positive_share"] = float(y.mean())
    table["train_items"] = int(val.size)
    return model, table


def _pairs(spans) -> list[tuple[int, int]]:
    return [(int(s["start"]), int(s["end"])) for s in spans]


def score_sets(items: pd.DataFrame, toks: Tokens, model) -> dict[str, list]:
    """Per baseline, one token score array per item."""
    text = items["model_output_text"].tolist()
    clf = [model.predict(features(toks, i, text[i])) if toks.logits[i].size else np.zeros(0)
           for i in range(len(items))]
    return {"token_logit_minmax": toks.minmax, "token_logit_midrank": toks.midrank,
            "token_classifier": clf}


def thresholds(train: pd.DataFrame, train_toks: Tokens, train_scores: dict,
               languages) -> pd.DataFrame:
    """Per baseline and language: the IoU-tuned threshold and where it was tuned
    (``train`` holds the validation items of every language)."""
    lang = train["lang"].to_numpy()
    rows = []
    for name, sc in train_scores.items():
        pooled = _tune(train, train_toks, sc, np.arange(len(train)))
        for lg in sorted(languages):
            val = np.flatnonzero(lang == lg)
            t = _tune(train, train_toks, sc, val) if val.size else pooled
            rows.append({"baseline": name, "lang": lg, "threshold": float(t["threshold"]),
                         "val_iou_at_threshold": t["value"],
                         "threshold_from": "val (own language)" if val.size
                         else "val (all languages pooled)"})
    return pd.DataFrame(rows)


def _tune(items, toks, sc, idx):
    return mycelium.tune_threshold(
        [items["hard_labels"].iat[i] for i in idx],
        text=[items["model_output_text"].iat[i] for i in idx],
        token_offsets=[toks.trimmed[i] for i in idx], token_scores=[sc[i] for i in idx],
        profile=PROFILE, thresholds=GRID)


def spans(items: pd.DataFrame, toks: Tokens, scores: dict, tuned: pd.DataFrame) -> dict:
    """Per baseline, the test spans at its tuned threshold (a `Flat` over the items)."""
    test = np.flatnonzero(items["split"].to_numpy() == "test")
    lang = items["lang"].to_numpy()
    out = {}
    for name, sc in scores.items():
        t = tuned[tuned["baseline"] == name].set_index("lang")["threshold"]
        r, s, e = [], [], []
        for i in test.tolist():
            for a, b in mycelium.spans_at(float(t[lang[i]]), token_offsets=toks.trimmed[i].tolist(),
                                          token_scores=sc[i]):
                r.append(i)
                s.append(a)
                e.append(b)
        out[name] = Flat.build(len(items), r, s, e)
    return out


def soft_vectors(items: pd.DataFrame, toks: Tokens, scores: dict) -> dict[str, list]:
    """Per baseline, each item's character scores (its soft labels, for Cor)."""
    n = items["text_len"].to_numpy()
    return {name: [char_scores(toks.trimmed[i], sc[i], n[i]) for i in range(len(items))]
            for name, sc in scores.items()}


def per_example(items: pd.DataFrame, toks: Tokens, scores: dict, tuned: pd.DataFrame,
                idx: np.ndarray, *, offsets: str = "trimmed") -> pd.DataFrame:
    """Per test item and baseline: char AUROC, AP, and IoU at the tuned threshold."""
    out = []
    lang = items["lang"].to_numpy()
    offs = getattr(toks, offsets)
    for name, sc in scores.items():
        t = tuned[tuned["baseline"] == name].set_index("lang")["threshold"]
        for lg in sorted(set(lang[idx])):
            sel = idx[lang[idx] == lg]
            kw = dict(text=[items["model_output_text"].iat[i] for i in sel],
                      token_offsets=[offs[i] for i in sel],
                      token_scores=[sc[i] for i in sel], profile=PROFILE,
                      include_per_example=True)
            refs = [items["hard_labels"].iat[i] for i in sel]
            free = mycelium.evaluate(refs, metrics=["char_auroc", "char_ap"], **kw)
            at = mycelium.evaluate(refs, metrics=["iou"], threshold=float(t[lg]), **kw)
            out.append(pd.DataFrame({
                "baseline": name, "offsets": offsets, "lang": lg, "item": sel,
                "char_auroc": [p["char_auroc"]["score"] for p in free["per_example"]],
                "char_ap": [p["char_ap"]["score"] for p in free["per_example"]],
                "iou": [p["iou"]["score"] for p in at["per_example"]]}))
    return pd.concat(out, ignore_index=True)


def conventions_table(items, toks: Tokens, per: pd.DataFrame, per_untrimmed: pd.DataFrame,
                      mark_all_iou: np.ndarray, tuned: pd.DataFrame,
                      rs: Resampler) -> pd.DataFrame:
    """Per test language: how many tokens tie at the largest logit, AUROC with trimmed
    and untrimmed token offsets, and IoU under the min-max and mid-rank conventions,
    each against mark-all (paired, Holm across languages per comparison)."""
    lang = items["lang"].to_numpy()
    rows = []
    for lg in sorted(per["lang"].unique()):
        sel = [i for i in np.flatnonzero((lang == lg) & (items["split"] == "test").to_numpy())]
        logit = np.concatenate([toks.logits[i] for i in sel])
        tied = np.concatenate([toks.logits[i] == toks.logits[i].max() for i in sel
                               if toks.logits[i].size])
        row = {"lang": lg, "items": len(sel), "tokens": int(logit.size),
               "logits_all_nonpositive": bool((logit <= 0).all()),
               "share_tied_at_max": float(tied.mean())}
        mm = _one(per, "token_logit_minmax", lg)
        mr = _one(per, "token_logit_midrank", lg)
        un = _one(per_untrimmed, "token_logit_minmax", lg)
        item = mm["item"].to_numpy()
        _put(row, "auroc_trimmed", rs.interval(item, mm["char_auroc"].to_numpy()))
        _put(row, "auroc_untrimmed", rs.interval(item, un["char_auroc"].to_numpy()))
        _paired(row, "trimmed_minus_untrimmed_auroc",
                rs.paired(item, mm["char_auroc"].to_numpy(), un["char_auroc"].to_numpy()))
        for tag, part in (("minmax", mm), ("midrank", mr)):
            th = tuned[(tuned["baseline"] == f"token_logit_{tag}") & (tuned["lang"] == lg)]
            row[f"threshold_{tag}"] = float(th["threshold"].iloc[0])
            row["threshold_from"] = th["threshold_from"].iloc[0]
            _put(row, f"iou_{tag}", rs.interval(item, part["iou"].to_numpy()))
            _paired(row, f"{tag}_minus_mark_all",
                    rs.paired(item, part["iou"].to_numpy(), mark_all_iou[item]))
        _put(row, "iou_mark_all", rs.interval(item, mark_all_iou[item]))
        rows.append(row)
    return _holm(pd.DataFrame(rows), ("trimmed_minus_untrimmed_auroc", "minmax_minus_mark_all",
                                      "midrank_minus_mark_all"))


def classifier_table(per: pd.DataFrame, mark_all_iou: np.ndarray, tuned: pd.DataFrame,
                     rs: Resampler) -> pd.DataFrame:
    """Per test language: the classifier's AUROC, AP and IoU, against mark-all and the
    mid-rank token-logit baseline (paired, Holm across languages per comparison)."""
    rows = []
    for lg in sorted(per["lang"].unique()):
        c = _one(per, "token_classifier", lg)
        t = _one(per, "token_logit_midrank", lg)
        item = c["item"].to_numpy()
        th = tuned[(tuned["baseline"] == "token_classifier") & (tuned["lang"] == lg)]
        row = {"lang": lg, "items": int(item.size),
               "threshold": float(th["threshold"].iloc[0]),
               "threshold_from": th["threshold_from"].iloc[0]}
        for m in ("char_auroc", "char_ap", "iou"):
            _put(row, m, rs.interval(item, c[m].to_numpy()))
        _put(row, "iou_mark_all", rs.interval(item, mark_all_iou[item]))
        _paired(row, "minus_mark_all", rs.paired(item, c["iou"].to_numpy(), mark_all_iou[item]))
        _paired(row, "minus_token_logit_auroc",
                rs.paired(item, c["char_auroc"].to_numpy(), t["char_auroc"].to_numpy()))
        rows.append(row)
    return _holm(pd.DataFrame(rows), ("minus_mark_all", "minus_token_logit_auroc"))


def _one(per: pd.DataFrame, name: str, lang: str) -> pd.DataFrame:
    return per[(per["baseline"] == name) & (per["lang"] == lang)].sort_values("item")


def _put(row: dict, name: str, est) -> None:
    row[name], row[f"{name}_low"], row[f"{name}_high"] = est


def _paired(row: dict, name: str, r: dict) -> None:
    for k in ("difference", "ci_low", "ci_high", "p_value"):
        row[f"{name}_{k}"] = r[k]


def _holm(df: pd.DataFrame, families) -> pd.DataFrame:
    for f in families:
        df[f"{f}_p_holm"] = holm(df[f"{f}_p_value"].to_numpy())
        df[f"{f}_significant"] = (df[f"{f}_p_holm"] < ALPHA) & (
            (df[f"{f}_ci_low"] > 0) | (df[f"{f}_ci_high"] < 0))
    return df
