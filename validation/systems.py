"""Real detectors: the token-logit baseline, mark-all / mark-none, and where the published
leaderboard systems stand against the annotators on the **same** references.

Token-logit (`mycelium.scores.baselines.token_logit_scores`): each token scores the per-output
min-max of its negated logit; a character takes its highest covering token score. It is
scored threshold-free (``char_auroc``, ``char_ap``) on each split, and at the threshold
`mycelium.tune_threshold` picks on the language's **validation** split (IoU), applied to
its **test** split. CA, CS, EU and FA have no validation split: no threshold, no spans.
The 135 EN/DE test records with one logit more than tokens drop the last logit
(``extra_logits="drop_last"``); `token_logit_data.csv` counts every such decision (the
Catalan file's Python-repr strings are parsed by ``read_mushroom(keep_extra=True)``
before they get here).

Same references (``same_reference.csv``): on the annotation rows (item, annotator) the
annotator's spans, mark-all, mark-none and token-logit are each scored against (a) the
published hard labels and (b) the leave-one-out majority of the *other* annotators of
that row. Under (a) the annotator's own vote is inside the reference (an upper bound on
human agreement); under (b) the reference is a different, stricter set (the unanimity
of the other two with three annotators), a lower bound. Every detector is scored against
exactly the rows and references the annotators are.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import mycelium
from mycelium.scores.baselines import token_logit_scores

from . import scoring
from .flat import Flat
from .uncertainty import ALPHA, Resampler, holm, mdd

PROFILE = scoring.PROFILE
#: Candidate thresholds of the tuning: 0.00, 0.01, ..., 0.99 (scores > t are marked).
GRID = [k / 100 for k in range(100)]


def token_logit_inputs(items: pd.DataFrame) -> tuple[list, list, pd.DataFrame]:
    """Offsets and scores per item, and the per-language count of every data decision."""
    offsets, scores, info = [], [], []
    for rec in items[["id", "model_output_text", "model_output_tokens",
                      "model_output_logits"]].to_dict("records"):
        o, s, rep = token_logit_scores(rec, extra_logits="drop_last", report=True)
        offsets.append(o)
        scores.append(s)
        info.append(rep)
    rep = pd.DataFrame(info)
    rep.insert(0, "split", items["split"].to_numpy())
    rep.insert(0, "lang", items["lang"].to_numpy())
    rep["records"] = 1
    rep["records_with_dropped_logit"] = rep["dropped_logits"] > 0
    table = (rep.groupby(["lang", "split"], sort=True)
             [["records", "tokens", "placed", "special", "unknown", "unplaced",
               "records_with_dropped_logit", "dropped_logits", "constant"]]
             .sum().reset_index().rename(columns={"constant": "constant_logits"}))
    return offsets, scores, table


def token_logit(items: pd.DataFrame, offsets, scores, rs: Resampler) -> tuple:
    """Per language and split, the threshold-free scores; per language the val-tuned
    threshold and the test scores at it. Returns the table and the test spans (Flat)."""
    rows, spans = [], {}
    ids = items["id"].tolist()
    for lang in sorted(items["lang"].unique()):
        part = {}
        for split in ("val", "test"):
            idx = np.flatnonzero(((items["lang"] == lang) & (items["split"] == split))
                                 .to_numpy())
            if idx.size:
                part[split] = idx
        tuned = None
        if "val" in part:
            v = part["val"]
            tuned = mycelium.tune_threshold(
                [items["hard_labels"].iat[i] for i in v],
                text=[items["model_output_text"].iat[i] for i in v],
                token_offsets=[offsets[i] for i in v], token_scores=[scores[i] for i in v],
                profile=PROFILE, thresholds=GRID)
        for split, idx in part.items():
            kw = dict(text=[items["model_output_text"].iat[i] for i in idx],
                      token_offsets=[offsets[i] for i in idx],
                      token_scores=[scores[i] for i in idx], profile=PROFILE, ci=0.95,
                      ids=[ids[i] for i in idx])
            refs = [items["hard_labels"].iat[i] for i in idx]
            free = mycelium.evaluate(refs, metrics=["char_auroc", "char_ap"], **kw)
            row = {"lang": lang, "split": split, "examples": int(idx.size)}
            for m in ("char_auroc", "char_ap"):
                row[m] = free[m]["score"]
                row[f"{m}_low"] = free["ci"][m]["score"]["low"]
                row[f"{m}_high"] = free["ci"][m]["score"]["high"]
            row["threshold"] = float(tuned["threshold"]) if tuned else np.nan
            row["threshold_from"] = "val" if tuned else "none (no validation split)"
            if tuned and split == "test":
                at = mycelium.evaluate(refs, threshold=tuned["threshold"],
                                       metrics=["iou", "character"], **kw)
                row["iou"] = at["iou"]["score"]
                row["iou_low"] = at["ci"]["iou"]["score"]["low"]
                row["iou_high"] = at["ci"]["iou"]["score"]["high"]
                row["val_iou_at_threshold"] = tuned["value"]
                spans[lang] = [mycelium.spans_at(tuned["threshold"], token_offsets=offsets[i],
                                                 token_scores=scores[i]) for i in idx]
                spans[lang] = dict(zip(idx.tolist(), spans[lang]))
            rows.append(row)
    table = pd.DataFrame(rows)
    flat = _spans_flat(len(items), spans)
    return table, flat, sorted(i for d in spans.values() for i in d)


def _spans_flat(n: int, spans: dict) -> Flat:
    r, s, e = [], [], []
    for per in spans.values():
        for i, lst in per.items():
            for a, b in lst:
                r.append(i)
                s.append(a)
                e.append(b)
    return Flat.build(n, r, s, e)


def predictors(items: pd.DataFrame, token_flat: Flat) -> dict[str, Flat]:
    """The item-level real detectors: mark_all, mark_none, token_logit (test only)."""
    n = len(items)
    lengths = items["text_len"].to_numpy()
    keep = lengths > 0
    all_ = Flat.build(n, np.arange(n)[keep], np.zeros(int(keep.sum())), lengths[keep])
    none = Flat(n, *(np.empty(0, np.int64),) * 3)
    return {"mark_all": all_, "mark_none": none, "token_logit": token_flat}


def same_reference(items, ann, hard: Flat, loo_ref: Flat, soft_vecs, loo_vecs, ann_vecs,
                   preds: dict[str, Flat], token_items, rs: Resampler,
                   ann_cors: dict) -> dict:
    """Annotators and detectors on the same (item, annotator) rows and references."""
    t = ann.table
    item = t["item"].to_numpy()
    rows = np.arange(len(t))
    text = items["model_output_text"].to_numpy(dtype=object)[item]
    lengths = items["text_len"].to_numpy()
    has_token = np.zeros(len(items), dtype=bool)
    has_token[np.asarray(token_items, dtype=np.int64)] = True
    refs = {"hard": (hard.take(item), soft_vecs, item), "loo": (loo_ref, loo_vecs, rows)}
    long = []
    for pname in ("annotator", *preds):
        if pname == "annotator":
            pflat, pvecs, pidx = ann.clean, ann_vecs, rows
        else:
            pflat = preds[pname].take(item)
            pvecs = scoring.CorVectors(scoring.binary_vectors(preds[pname], lengths))
            pidx = item
        keep = has_token[item] if pname == "token_logit" else np.ones(len(t), bool)
        for rname, (rflat, rvecs, ridx) in refs.items():
            if pname == "annotator":
                cor = ann_cors[rname]
            else:
                cor = np.full(len(t), np.nan)
                cor[keep] = scoring.cors(rvecs, ridx[keep], pvecs, pidx[keep])
            df = scoring.frame(rflat.take(rows[keep]), pflat.take(rows[keep]), text[keep],
                               cor[keep])
            iou = df.mycelium.score("ref", "pred", text="text", profile=PROFILE,
                                    metrics=["iou"])["iou_score"].to_numpy()
            long.append(pd.DataFrame({
                "row": rows[keep], "item": item[keep], "lang": t["lang"].to_numpy()[keep],
                "split": items["split"].to_numpy()[item][keep], "predictor": pname,
                "reference": rname, "iou": iou, "cor": cor[keep]}))
    long = pd.concat(long, ignore_index=True)
    return {"same_reference": _summary(long, rs), "same_reference_tests": _tests(long, rs),
            "_long": long}


def _summary(long: pd.DataFrame, rs: Resampler) -> pd.DataFrame:
    out = []
    for scope in ("all", "test"):
        part = long if scope == "all" else long[long["split"] == "test"]
        for (pred, ref), g in part.groupby(["predictor", "reference"], sort=False):
            for lang in sorted(g["lang"].unique()) + ["ALL"]:
                sel = g if lang == "ALL" else g[g["lang"] == lang]
                row = {"split": scope, "lang": lang, "predictor": pred, "reference": ref,
                       "rows": len(sel), "items": sel["item"].nunique()}
                est, lows, highs = rs.intervals(sel["item"].to_numpy(),
                                                sel[["iou", "cor"]].to_numpy())
                for k, m in enumerate(("iou", "cor")):
                    row[m], row[f"{m}_low"], row[f"{m}_high"] = est[k], lows[k], highs[k]
                out.append(row)
    return pd.DataFrame(out)


def _tests(long: pd.DataFrame, rs: Resampler) -> pd.DataFrame:
    """Paired differences on the test rows: annotators minus each detector under each
    reference, and each predictor under (a) minus under (b); Holm within each family."""
    test = long[long["split"] == "test"]
    wide = test.pivot_table(index=["row", "item", "lang"], columns=["predictor", "reference"],
                            values="iou", aggfunc="first").reset_index()
    out = []
    for lang in sorted(test["lang"].unique()):
        w = wide[wide["lang"] == lang]
        for ref in ("hard", "loo"):
            for other in ("mark_all", "mark_none", "token_logit"):
                a, b = w[("annotator", ref)].to_numpy(), w[(other, ref)].to_numpy()
                ok = ~np.isnan(b)
                if not ok.any():
                    continue
                r = rs.paired(w["item"].to_numpy()[ok], a[ok], b[ok])
                out.append({"family": f"annotator_minus_detector_vs_{ref}", "lang": lang,
                            "a": f"annotator vs {ref}", "b": f"{other} vs {ref}", **r})
        for pred in ("annotator", "mark_all", "mark_none", "token_logit"):
            a, b = w[(pred, "hard")].to_numpy(), w[(pred, "loo")].to_numpy()
            ok = ~np.isnan(a)
            if not ok.any():
                continue
            r = rs.paired(w["item"].to_numpy()[ok], a[ok], b[ok])
            out.append({"family": "hard_minus_loo", "lang": lang, "a": f"{pred} vs hard",
                        "b": f"{pred} vs loo", **r})
    df = pd.DataFrame(out)
    df["p_holm"] = np.nan
    for _, idx in df.groupby("family").groups.items():
        df.loc[idx, "p_holm"] = holm(df.loc[idx, "p_value"].to_numpy())
    df["significant"] = (df["p_holm"] < ALPHA) & ((df["ci_low"] > 0) | (df["ci_high"] < 0))
    return df


def humans_and_systems(same: pd.DataFrame, board: pd.DataFrame | None) -> pd.DataFrame:
    """Per language on test: annotators' IoU under (a) and (b) with intervals beside the
    published leaderboard (top, median and mark-all), and where the systems fall."""
    s = same[(same["split"] == "test") & (same["predictor"] == "annotator")]
    out = []
    for lang in sorted(x for x in s["lang"].unique() if x != "ALL"):
        row = {"lang": lang}
        for ref, tag in (("hard", "a"), ("loo", "b")):
            r = s[(s["lang"] == lang) & (s["reference"] == ref)].iloc[0]
            row[f"annotators_{tag}_iou"] = r["iou"]
            row[f"annotators_{tag}_low"] = r["iou_low"]
            row[f"annotators_{tag}_high"] = r["iou_high"]
        if board is not None and lang in set(board["lang"]):
            b = board[board["lang"] == lang]
            tm = b[~b["baseline"]]
            row["teams"] = len(tm)
            row["top_iou"] = tm["iou"].max()
            row["median_iou"] = float(tm["iou"].median())
            row["published_mark_all_iou"] = float(
                b.loc[b["team"] == "Baseline (mark all)", "iou"].iloc[0])
            for tag in ("a", "b"):
                row[f"top_above_{tag}_estimate"] = bool(row["top_iou"]
                                                        > row[f"annotators_{tag}_iou"])
                high = row[f"annotators_{tag}_high"]
                row[f"teams_above_{tag}_high"] = int((tm["iou"] > high).sum())
                row[f"top_above_{tag}_high"] = bool(row["top_iou"] > high)
        out.append(row)
    return pd.DataFrame(out)


def detectable(items, hard: Flat, ann, vs_hard_rows: pd.DataFrame, preds, token_items,
               board) -> pd.DataFrame:
    """Per language (test items): the spread of per-item IoU differences between two
    similar detectors and the difference the language's own test items detect (80% power,
    5%, paired)."""
    test = items["split"].to_numpy() == "test"
    lengths = items["text_len"].to_numpy()
    text = items["model_output_text"].to_numpy(dtype=object)
    rows = np.arange(len(items))
    ious = {}
    for name in ("mark_all", "token_logit"):
        df = scoring.frame(hard, preds[name], text, np.zeros(len(items)))
        ious[name] = df.mycelium.score("ref", "pred", text="text", profile=PROFILE,
                                       metrics=["iou"])["iou_score"].to_numpy()
    has_token = np.isin(rows, np.asarray(token_items, dtype=np.int64))
    v = vs_hard_rows.assign(slot=ann.table["slot"].to_numpy())
    two = v[v["slot"] < 2].pivot_table(index="item", columns="slot", values="iou_score")
    out = []
    for lang in sorted(items["lang"].unique()):
        sel = test & (items["lang"] == lang).to_numpy()
        row = {"lang": lang, "test_items": int(sel.sum())}
        tw = two.loc[[i for i in two.index if sel[i]]]
        d = (tw[0] - tw[1]).to_numpy()
        row["sd_annotator_pair"] = float(np.std(d, ddof=1))
        n = row["test_items"]
        row["mdd_annotator_pair"] = mdd(row["sd_annotator_pair"], n)
        single = v[(v["slot"] == 0) & v["item"].map(lambda i: sel[i])]["iou_score"]
        row["sd_single_iou"] = float(np.std(single.to_numpy(), ddof=1))
        row["ci_halfwidth_single"] = 1.959963984540054 * row["sd_single_iou"] / np.sqrt(n)
        tsel = sel & has_token
        if tsel.any():
            dd = ious["token_logit"][tsel] - ious["mark_all"][tsel]
            row["sd_token_logit_vs_mark_all"] = float(np.std(dd, ddof=1))
            row["mdd_token_logit_vs_mark_all"] = mdd(row["sd_token_logit_vs_mark_all"], n)
        if board is not None and lang in set(board["lang"]):
            tm = board[(board["lang"] == lang) & ~board["baseline"]]["iou"].to_numpy()
            gaps = -np.diff(np.sort(tm)[::-1])
            row["median_adjacent_team_gap"] = float(np.median(gaps))
            row["adjacent_gaps_above_mdd"] = int((gaps > row["mdd_annotator_pair"]).sum())
            row["adjacent_gaps"] = int(gaps.size)
        out.append(row)
    return pd.DataFrame(out)
