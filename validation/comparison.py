"""Part 2: how each metric scores and ranks the reference detectors, per language, and how
far the rankings the metrics induce agree (Kendall's tau-b via `mycelium.stats.agreement`).

The reference is always the published hard labels; Cor compares each detector's spans,
as probability-1 soft labels, with the published soft labels.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mycelium.stats.agreement import metric_agreement

from . import detectors as det
from . import scoring
from .data import Annotations
from .flat import Flat

#: Which metric and measure each headline column is (for `metric_agreement`).
SPLIT = {"iou_score": ("iou", "score"), "character_f1": ("character", "f1"),
         "exact_span_f1": ("exact_span", "f1"), "deteval_1d_f1": ("deteval_1d", "f1"),
         "cleval_1d_f1": ("cleval_1d", "f1"), "span_coverage_f1": ("span_coverage", "f1"),
         "cor": ("soft_spearman", "score")}


def detector_frame(items: pd.DataFrame, ann: Annotations, hard: Flat, soft_vecs,
                   vs_hard: pd.DataFrame, *, seed: int, max_annotators: int,
                   min_items: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The long frame of every (detector, item) row, and the annotator-detector key."""
    lengths = items["text_len"].to_numpy()
    text = items["model_output_text"].to_numpy(dtype=object)
    item_of_ann = ann.table["item"].to_numpy()
    union = det.union_of_annotators(ann.merged, item_of_ann, len(items))
    rows = np.arange(len(items))
    parts = []
    for name, flat in det.synthetic(hard, lengths, items["id"].tolist(), union=union,
                                    seed=seed).items():
        vecs = scoring.CorVectors(scoring.binary_vectors(flat, lengths))
        parts.append(scoring.frame(hard, flat, text, scoring.cors(soft_vecs, rows, vecs, rows),
                                   lang=items["lang"].to_numpy(), item=rows,
                                   split=items["split"].to_numpy(),
                                   detector=np.full(len(items), name, dtype=object),
                                   kind=np.full(len(items), "synthetic", dtype=object)))
    chosen = det.pick_annotators(ann.table, max_annotators=max_annotators,
                                 min_items=min_items)
    key = pd.MultiIndex.from_frame(chosen[["lang", "annotator"]])
    sel = pd.MultiIndex.from_frame(vs_hard[["lang", "annotator"]]).isin(key)
    humans = vs_hard[sel].copy()
    names = dict(zip(zip(chosen["lang"], chosen["annotator"]), chosen["detector"]))
    humans["detector"] = [names[k] for k in zip(humans["lang"], humans["annotator"])]
    humans["kind"] = "annotator"
    humans["item"] = item_of_ann[np.flatnonzero(sel)]
    humans = humans.drop(columns=["annotator"])
    frame = pd.concat(parts + [humans[parts[0].columns]], ignore_index=True)
    return frame, chosen


def run(frame: pd.DataFrame) -> dict:
    """Scores, ranks and metric agreement of the detectors in ``frame``."""
    scores = scoring.summarise(frame, ["lang", "detector", "kind"], pooled=False)
    scores = _order(scores)
    tidy = _tidy(scores)
    tau = metric_agreement(tidy, "detector", by="lang")
    return {"detector_scores": scores, "detector_ranks": _ranks(scores),
            "metric_tau": tau, "metric_tau_summary": _tau_summary(tau),
            "_per_example": scoring.per_example(frame)}


def _order(scores: pd.DataFrame) -> pd.DataFrame:
    order = {name: i for i, name in enumerate(det.SYNTHETIC)}
    rank = scores["detector"].map(
        lambda d: order[d] if d in order else len(order) + int(d[1:]))
    return (scores.assign(_o=rank).sort_values(["lang", "_o"]).drop(columns="_o")
            .reset_index(drop=True))


def _tidy(scores: pd.DataFrame) -> pd.DataFrame:
    long = scores.melt(id_vars=["lang", "detector"], value_vars=list(SPLIT),
                       var_name="key", value_name="value")
    long["metric"] = long["key"].map(lambda k: SPLIT[k][0])
    long["measure"] = long["key"].map(lambda k: SPLIT[k][1])
    return long[["lang", "detector", "metric", "measure", "value"]]


def _ranks(scores: pd.DataFrame) -> pd.DataFrame:
    """Rank of each detector under each headline measure (1 = best; ties averaged)."""
    out = scores[["lang", "detector", "kind"]].copy()
    for col in SPLIT:
        out[col] = scores.groupby("lang")[col].rank(ascending=False, method="average")
    return out


def _tau_summary(tau: pd.DataFrame) -> pd.DataFrame:
    """Mean, min and max tau over languages for each pair of measures."""
    names = {v: k for k, v in SPLIT.items()}
    tau = tau.assign(a=[names[(m, s)] for m, s in zip(tau["metric_a"], tau["measure_a"])],
                     b=[names[(m, s)] for m, s in zip(tau["metric_b"], tau["measure_b"])])
    return (tau.groupby(["a", "b"], sort=False)["kendall_tau"]
            .agg(["mean", "min", "max", "count"]).reset_index()
            .rename(columns={"a": "measure_a", "b": "measure_b", "count": "languages",
                             "mean": "tau_mean", "min": "tau_min", "max": "tau_max"}))
