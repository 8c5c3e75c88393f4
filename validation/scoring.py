"""Scoring long frames of (reference, prediction) rows through mycelium, plus Cor.

Every table of the study is a frame with one row per scored example: a reference span
set ``ref``, a prediction ``pred`` (both ``pd.ArrowDtype(mycelium.SPAN_TYPE)``), the
output ``text``, group columns and a per-example ``cor``. Aggregates come from
``df.mycelium.evaluate(..., by=...)`` under the ``mu_shroom`` profile (macro averages,
undefined precision or recall = 0.0, IoU of two empty sets = 1.0), so each group's value
equals `mycelium.evaluate` on that group's rows.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

import mycelium  # noqa: F401  (registers df.mycelium)
from mycelium import SPAN_TYPE
from mycelium.metrics.soft_spearman import average_ranks, soft_vector

from .flat import Flat

PROFILE = "mu_shroom"
#: The measures compared across metrics: one per metric (F1 where it has P/R/F1).
HEADLINE = ("iou_score", "character_f1", "exact_span_f1", "deteval_1d_f1", "cleval_1d_f1",
            "span_coverage_f1", "cor")
LABELS = {"iou_score": "IoU", "character_f1": "Char F1", "exact_span_f1": "Exact F1",
          "deteval_1d_f1": "DetEval F1", "cleval_1d_f1": "CLEval F1",
          "span_coverage_f1": "SpanCov F1", "cor": "Cor",
          "character_recall": "Char recall", "character_precision": "Char precision"}
POOLED = "ALL"


def frame(ref: Flat, pred: Flat, text, cor_values, **columns) -> pd.DataFrame:
    """The long frame of one analysis (``columns`` are group keys, one value per row)."""
    dtype = pd.ArrowDtype(SPAN_TYPE)
    out = pd.DataFrame({k: np.asarray(v) for k, v in columns.items()})
    out["ref"] = pd.array(ref.to_arrow(), dtype=dtype)
    out["pred"] = pd.array(pred.to_arrow(), dtype=dtype)
    out["text"] = np.asarray(text, dtype=object)
    out["cor"] = np.asarray(cor_values, dtype=np.float64)
    return out


def summarise(df: pd.DataFrame, by: list[str], *, pooled: bool = True) -> pd.DataFrame:
    """One row per group: ``examples``, every ``<metric>_<measure>`` and ``cor``.

    With ``pooled`` and ``"lang"`` in ``by``, rows with ``lang == "ALL"`` score all
    languages' examples together (macro over the pooled examples).
    """
    out = _wide(df, by)
    if pooled and "lang" in by:
        rest = [c for c in by if c != "lang"]
        allrows = _wide(df, rest)
        allrows.insert(0, "lang", POOLED)
        out = pd.concat([out, allrows[out.columns]], ignore_index=True)
    return out


def _wide(df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    tidy = df.mycelium.evaluate("ref", "pred", text="text", by=by or None, profile=PROFILE)
    tidy["key"] = tidy["metric"] + "_" + tidy["measure"]
    index = by if by else ["_all"]
    if not by:
        tidy["_all"] = 0
    wide = tidy.pivot_table(index=index, columns="key", values="value", aggfunc="first",
                            sort=False)
    examples = tidy.groupby(index, sort=False)["examples"].first()
    cors = (df.groupby(by, sort=False)["cor"].mean() if by
            else pd.Series([df["cor"].mean()], index=pd.Index([0], name="_all")))
    wide = wide.join(examples).join(cors.rename("cor"))
    wide = wide.reset_index()
    if not by:
        wide = wide.drop(columns="_all")
    cols = by + ["examples"] + [c for c in wide.columns if c not in by + ["examples"]]
    return wide[cols]


def per_example(df: pd.DataFrame) -> pd.DataFrame:
    """Per-row values (``df.mycelium.score``) with ``cor`` and the frame's key columns."""
    scores = df.mycelium.score("ref", "pred", text="text", profile=PROFILE)
    keys = df.drop(columns=["ref", "pred", "text"])
    return pd.concat([keys, scores], axis=1)


def soft_vectors(items: pd.DataFrame) -> list[np.ndarray]:
    """The published soft labels of each item as the official Cor vector."""
    lengths = items["text_len"].tolist()
    return [soft_vector(spans, n, "soft_labels", k)
            for k, (spans, n) in enumerate(zip(items["soft_labels"].tolist(), lengths))]


def binary_vectors(flat: Flat, lengths) -> list[np.ndarray]:
    """Each row's spans as a probability-1 soft label vector (0 elsewhere)."""
    vecs = [np.zeros(int(n), dtype=np.float64) for n in lengths]
    for r, s, e in zip(flat.row.tolist(), flat.start.tolist(), flat.end.tolist()):
        vecs[r][s:e] = 1.0
    return vecs


def fraction_vectors(segments: Flat, counts, voters, lengths) -> list[np.ndarray]:
    """Per row, the share of ``voters[row]`` voters covering each character."""
    vecs = [np.zeros(int(n), dtype=np.float64) for n in lengths]
    for r, s, e, c in zip(segments.row.tolist(), segments.start.tolist(),
                          segments.end.tolist(), np.asarray(counts).tolist()):
        vecs[r][s:e] = c / voters[r]
    return vecs


class CorVectors:
    """Per-character vectors prepared once for many Cor computations.

    `mycelium.metrics.soft_spearman.cor` tests constancy with Python ``round(x, 8)``
    over every character and ranks both vectors on each call; the study reuses each
    vector in many pairs, so the constancy flag (rounding only the distinct values, which
    gives the same set) and the average ranks are computed once per vector. The final
    step is `cor`'s own (``np.corrcoef`` of `average_ranks`), so values are identical to
    calling `cor` (checked in tests/validation).
    """

    def __init__(self, vectors: list[np.ndarray]) -> None:
        self.vectors = vectors
        self.constant = np.array([len({round(x, 8) for x in np.unique(v).tolist()}) == 1
                                  for v in vectors], dtype=bool)
        self._ranks: dict[int, np.ndarray] = {}

    def ranks(self, i: int) -> np.ndarray:
        if i not in self._ranks:
            self._ranks[i] = average_ranks(self.vectors[i])
        return self._ranks[i]


def cors(refs: CorVectors, ref_idx, preds: CorVectors, pred_idx) -> np.ndarray:
    """Official Mu-SHROOM Cor of ``refs[ref_idx[k]]`` against ``preds[pred_idx[k]]``."""
    out = np.empty(len(ref_idx), dtype=np.float64)
    for k, (i, j) in enumerate(zip(np.asarray(ref_idx).tolist(),
                                   np.asarray(pred_idx).tolist())):
        if refs.vectors[i].size == 0:
            out[k] = math.nan  # as cor(): spearmanr([], []) is NaN in the official scorer
        elif refs.constant[i] or preds.constant[j]:
            out[k] = 1.0 if refs.constant[i] and preds.constant[j] else 0.0
        else:
            out[k] = float(np.corrcoef(refs.ranks(i), preds.ranks(j))[0, 1])
    return out


def add_language_mean(summary: pd.DataFrame, label: str = "MEAN") -> pd.DataFrame:
    """Append the unweighted mean of the per-language rows (for ``by == ["lang"]``)."""
    langs = summary[~summary["lang"].isin([POOLED, label])]
    mean = langs.drop(columns=["lang"]).mean(numeric_only=True).to_frame().T
    mean.insert(0, "lang", label)
    mean["examples"] = int(langs["examples"].sum())
    return pd.concat([summary, mean[summary.columns]], ignore_index=True)
