"""The scoring conventions of the central table, and every panel row scored under each.

The **official** ranking is the Mu-SHROOM leaderboard's: IoU, macro over items, in
characters, spans as given, under the ``mu_shroom`` profile; for the Cor leaderboard,
Cor with the official reader's float parsing. Each `CHANGE` moves one convention away
from an official ranking:

- metric: IoU -> character F1, exact-span F1, DetEval F1, CLEval F1, span-coverage F1
  (the other five span metrics, each its F1) and Cor;
- average: macro -> micro IoU (``average="micro"``: summed intersections over summed
  unions);
- granularity: characters -> words (``granularity="word"``), -> the generating
  model's tokens (a span marks every token it touches; trimmed token offsets), ->
  sentences (``granularity="sentence"``) and -> whole responses (response-level F1:
  does the detector flag the responses that hold a hallucination; pooled counts);
- convention of FaithBench: IoU -> balanced accuracy of the response-level flag (pooled
  counts, the mean over the classes present of each class's recall);
- profile: ``mu_shroom`` (IoU, macro) -> ``ragtruth`` (character F1, micro, 0/0 = 0);
- float parsing: Cor read as the official scorer reads (``pandas-fast``) -> read exactly;
- token boundaries: token offsets trimmed -> untrimmed (``align_tokens(trim=...)``) in
  token units, and spans as given -> whitespace-trimmed (``trim_spans="whitespace"``).

Macro conventions are per-row values (``df.mycelium.score``) averaged over a detector's
items; micro ones are per-row sufficient statistics (`mycelium.statistics`) summed and
finalised by `mycelium.per_example` (the library's ratios). ``tests/validation`` checks
both against `mycelium.evaluate` on each detector's rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

import mycelium

from . import scoring
from .dimensions import token_units
from .flat import Flat

PROFILE = scoring.PROFILE


@dataclass(frozen=True)
class Convention:
    """One way of scoring: a per-row value column (macro), or statistics (micro)."""

    name: str
    label: str
    metric: str | None = None       # micro: the metric whose statistics are summed
    measure: str | None = None      # micro: its measure


CONVENTIONS = {c.name: c for c in (
    Convention("iou", "IoU (official)"),
    Convention("char_f1", "character F1"),
    Convention("exact_f1", "exact-span F1"),
    Convention("deteval_f1", "DetEval F1"),
    Convention("cleval_f1", "CLEval F1"),
    Convention("spancov_f1", "span-coverage F1"),
    Convention("cor", "Cor (official parsing)"),
    Convention("cor_exact", "Cor (exact parsing)"),
    Convention("iou_micro", "IoU, micro", "iou", "score"),
    Convention("ragtruth", "RAGTruth profile: character F1, micro", "character", "f1"),
    Convention("iou_word", "IoU in words"),
    Convention("iou_sentence", "IoU in sentences"),
    Convention("response_f1", "response F1", "response_level", "f1"),
    Convention("response_ba", "response balanced accuracy (FaithBench's convention)",
               "response_level", "balanced_accuracy"),
    Convention("iou_token", "IoU in tokens (trimmed offsets)"),
    Convention("iou_token_untrimmed", "IoU in tokens (untrimmed offsets)"),
    Convention("iou_trim_ws", "IoU, whitespace-trimmed spans"),
)}

#: (family, from, to): every convention change of the central table.
CHANGES = (
    ("metric", "iou", "char_f1"), ("metric", "iou", "exact_f1"),
    ("metric", "iou", "deteval_f1"), ("metric", "iou", "cleval_f1"),
    ("metric", "iou", "spancov_f1"), ("metric", "iou", "cor"),
    ("average", "iou", "iou_micro"),
    ("granularity", "iou", "iou_word"), ("granularity", "iou", "iou_token"),
    ("granularity", "iou", "iou_sentence"), ("granularity", "iou", "response_f1"),
    ("profile", "iou", "ragtruth"),
    ("convention of FaithBench", "iou", "response_ba"),
    ("float parsing", "cor", "cor_exact"),
    ("token boundaries", "iou_token", "iou_token_untrimmed"),
    ("token boundaries", "iou", "iou_trim_ws"),
)
_MACRO = {"iou_score": "iou", "character_f1": "char_f1", "exact_span_f1": "exact_f1",
          "deteval_1d_f1": "deteval_f1", "cleval_1d_f1": "cleval_f1",
          "span_coverage_f1": "spancov_f1"}
#: Micro statistics kept per row: ``<metric>__<statistic>``.
MICRO_METRICS = ("iou", "character", "response_level")


def score_rows(rows: pd.DataFrame, pred: Flat, hard: Flat, text, token_offsets: dict,
               ref_soft: dict, pred_soft: dict) -> pd.DataFrame:
    """Every macro value and every micro statistic of each row of a panel.

    ``token_offsets``: ``{"trimmed": [...], "untrimmed": [...]}`` per item; ``ref_soft`` and
    ``pred_soft``: ``{float_parse: CorVectors}`` (reference per item, prediction per row).
    """
    item = rows["item"].to_numpy()
    ref = hard.take(item)
    txt = np.asarray(text, dtype=object)[item]
    df = scoring.frame(ref, pred, txt, np.zeros(len(rows)))
    out = rows.copy()
    macro = df.mycelium.score("ref", "pred", text="text", profile=PROFILE,
                              metrics=["iou", "character", "exact_span", "deteval_1d",
                                       "cleval_1d", "span_coverage"])
    for col, name in _MACRO.items():
        out[name] = macro[col].to_numpy()
    out["iou_word"] = df.mycelium.score("ref", "pred", text="text", profile=PROFILE,
                                        metrics=["iou"], granularity="word")["iou_score"].to_numpy()
    out["iou_sentence"] = df.mycelium.score("ref", "pred", text="text", profile=PROFILE,
                                            metrics=["iou"], granularity="sentence"
                                            )["iou_score"].to_numpy()
    out["iou_trim_ws"] = df.mycelium.score("ref", "pred", text="text", profile=PROFILE,
                                           metrics=["iou"], trim_spans="whitespace"
                                           )["iou_score"].to_numpy()
    for tag, col in (("trimmed", "iou_token"), ("untrimmed", "iou_token_untrimmed")):
        offs = token_offsets[tag]
        r, p = token_units(ref, item, offs), token_units(pred, item, offs)
        tok = scoring.frame(r, p, [None] * len(rows), np.zeros(len(rows)))
        out[col] = tok.mycelium.score("ref", "pred", profile=PROFILE,
                                      metrics=["iou"])["iou_score"].to_numpy()
    st = mycelium.statistics(df["ref"], df["pred"], text=df["text"].tolist(),
                             metrics=list(MICRO_METRICS))
    for m in MICRO_METRICS:
        for k, v in st[m].items():
            out[f"{m}__{k}"] = v.astype(np.int64)
    rows_idx = np.arange(len(rows))
    for fp, col in (("pandas-fast", "cor"), ("exact", "cor_exact")):
        out[col] = scoring.cors(ref_soft[fp], item, pred_soft[fp], rows_idx)
    return out


def micro_values(sums: dict[str, np.ndarray], name: str) -> np.ndarray:
    """A micro convention's value from summed statistics (`mycelium.per_example`)."""
    c = CONVENTIONS[name]
    zd = mycelium.get_profile("ragtruth" if name == "ragtruth" else PROFILE).zero_division
    if c.metric == "response_level":
        return response_ba(sums) if c.measure == "balanced_accuracy" else response_f1(sums, zd)
    stats = {c.metric: {k.split("__", 1)[1]: v for k, v in sums.items()
                        if k.startswith(f"{c.metric}__")}}
    return mycelium.per_example(stats, zero_division=zd)[c.metric][c.measure]


def response_f1(sums: dict[str, np.ndarray], zero_division: float) -> np.ndarray:
    """Pooled response-level F1 of summed ``response_level__tp/fp/fn`` counts.

    The metric's own measures (`mycelium.metrics.response_level`): precision and recall
    of the hallucinated class from the pooled counts, F1 from them; an undefined
    precision or recall takes ``zero_division``, and so does F1 when both are 0.

    Examples
    --------
    >>> s = {"response_level__tp": np.array([3.0, 0.0]), "response_level__fp": np.array([1.0, 0.0]),
    ...      "response_level__fn": np.array([2.0, 4.0])}
    >>> response_f1(s, 0.0).round(4).tolist()
    [0.6667, 0.0]
    """
    tp, fp, fn = (np.asarray(sums[f"response_level__{k}"], np.float64)
                  for k in ("tp", "fp", "fn"))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(tp + fp > 0, tp / (tp + fp), zero_division)
        r = np.where(tp + fn > 0, tp / (tp + fn), zero_division)
        return np.where(p + r > 0, 2 * p * r / (p + r), zero_division)


def response_ba(sums: dict[str, np.ndarray]) -> np.ndarray:
    """Pooled balanced accuracy of the response-level flag, FaithBench's measure: the mean
    over the classes present in the reference (hallucinated, not) of the share of its
    responses the detector flags as that class (scikit-learn's definition).

    Examples
    --------
    >>> s = {"response_level__tp": np.array([3.0, 0.0]), "response_level__fn": np.array([1.0, 4.0]),
    ...      "response_level__tn": np.array([2.0, 0.0]), "response_level__fp": np.array([2.0, 0.0])}
    >>> response_ba(s).round(4).tolist()
    [0.625, 0.0]
    """
    tp, fp, fn, tn = (np.asarray(sums[f"response_level__{k}"], np.float64)
                      for k in ("tp", "fp", "fn", "tn"))
    pos, neg = tp + fn, tn + fp
    with np.errstate(invalid="ignore", divide="ignore"):
        parts = np.stack([np.where(pos > 0, tp / pos, 0.0), np.where(neg > 0, tn / neg, 0.0)])
        present = np.stack([pos > 0, neg > 0]).astype(np.float64)
        return parts.sum(axis=0) / present.sum(axis=0)


def stat_columns(name: str, columns) -> list[str]:
    """The per-row statistic columns a micro convention sums."""
    return [k for k in columns if k.startswith(f"{CONVENTIONS[name].metric}__")]
