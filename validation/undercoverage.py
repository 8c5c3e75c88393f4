"""Part 3: the under-coverage diagnostic. One character per reference span ("pinpoint")
is fully contained in, and covers, every reference span, so Span Coverage F1 is perfect
on every item with references, while it recovers almost none of the marked characters.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .flat import Flat

#: A pinpoint item counts as "perfect yet nearly empty" below this IoU.
LOW_IOU = 0.1


def run(per_example: pd.DataFrame, scores: pd.DataFrame, vs_hard: pd.DataFrame,
        hard: Flat, items: pd.DataFrame) -> pd.DataFrame:
    """Per language and pooled: pinpoint's Span Coverage vs overlap measures."""
    pin = per_example[per_example["detector"] == "pinpoint"].copy()
    pin["ref_spans"] = hard.counts[pin["item"].to_numpy()]
    ref_chars = np.bincount(hard.row, weights=hard.end - hard.start, minlength=hard.n)
    pin["ref_chars"] = ref_chars[pin["item"].to_numpy()]
    rows = [_row(lang, part) for lang, part in pin.groupby("lang", sort=True)]
    rows.append(_row("ALL", pin))
    out = pd.DataFrame(rows)
    ranks = _rank_gap(scores)
    humans = vs_hard.set_index("lang")[["span_coverage_f1", "iou_score"]]
    out["annotators_span_coverage_f1"] = out["lang"].map(humans["span_coverage_f1"])
    out["annotators_iou"] = out["lang"].map(humans["iou_score"])
    out = out.merge(ranks, on="lang", how="left")
    for col in ranks.columns[1:]:
        out[col] = out[col].astype("Int64")  # the pooled row has no rank
    return out


def _row(lang: str, part: pd.DataFrame) -> dict:
    has = part["ref_spans"] > 0
    sub = part[has]
    perfect_low = (sub["span_coverage_f1"] == 1.0) & (sub["iou_score"] < LOW_IOU)
    return {
        "lang": lang, "items": int(len(part)), "items_with_refs": int(has.sum()),
        "span_coverage_f1": part["span_coverage_f1"].mean(),
        "iou": part["iou_score"].mean(),
        "character_recall": part["character_recall"].mean(),
        "character_precision": part["character_precision"].mean(),
        "span_coverage_f1_refs": sub["span_coverage_f1"].mean(),
        "iou_refs": sub["iou_score"].mean(),
        "character_recall_refs": sub["character_recall"].mean(),
        "gap_f1_minus_iou_refs": (sub["span_coverage_f1"] - sub["iou_score"]).mean(),
        "share_perfect_f1_iou_below_0.1": perfect_low.mean(),
        "chars_marked_share": sub["ref_spans"].sum() / sub["ref_chars"].sum(),
    }


def _rank_gap(scores: pd.DataFrame) -> pd.DataFrame:
    """Pinpoint's rank among the part-2 detectors under Span Coverage F1 and IoU."""
    out = []
    for lang, part in scores.groupby("lang", sort=True):
        sc = part["span_coverage_f1"].rank(ascending=False, method="min")
        iou = part["iou_score"].rank(ascending=False, method="min")
        k = part["detector"].to_numpy() == "pinpoint"
        out.append({"lang": lang, "detectors": int(len(part)),
                    "rank_span_coverage_f1": int(sc[k].iloc[0]),
                    "rank_iou": int(iou[k].iloc[0])})
    return pd.DataFrame(out)
