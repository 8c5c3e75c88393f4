"""``character``: precision, recall and F1 of marked characters (the RAGTruth protocol), or of
summed span lengths and pairwise overlaps (LettuceDetect's evaluator).

Statistics (per example)
    ``tp``  characters marked on both sides, ``|mask(G) ∩ mask(P)|``
    ``fp``  characters predicted but not in a reference, ``|mask(P)| - tp``
    ``fn``  reference characters not predicted, ``|mask(G)| - tp``

Parameter ``overlaps`` (``"merge"`` by default, or ``"pairwise"``)
    ``"merge"``: each side's spans merge into one character mask (duplicates, overlaps
    and adjacency collapse), as above. ``"pairwise"``: no merging, every *listed* span
    counts, exact duplicates included: ``tp = Σ_p Σ_g |p ∩ g|`` over every pair of a
    predicted and a reference span, ``fp = Σ_p |p| - tp``, ``fn = Σ_g |g| - tp``. This is
    the arithmetic of LettuceDetect's ``evaluate_detector_char_level``
    (KRLabsOrg/LettuceDetect@102f7f29009aeca4365a9d9731e46f13bab099b6:
    lettucedetect/models/evaluator.py), which sums lengths and overlaps without merging;
    a character inside two overlapping spans of one side is counted twice, so ``fp`` or
    ``fn`` can be negative and precision or recall above 1 (reference ``[[4, 9], [4, 9]]``
    against prediction ``[[4, 9]]``: precision 10/5 = 2). When each side's spans are
    pairwise disjoint, both rules give the same counts. Profile ``lettucedetect`` sets it.

Measures
    precision = tp / (tp + fp), recall = tp / (tp + fn), F1 their harmonic mean.
    With ``average="micro"`` the counts are summed over the batch first: this is how
    RAGTruth pools responses (profile ``ragtruth``), and LettuceDetect too.

Edge cases
    Nothing predicted → precision 0/0; nothing annotated → recall 0/0: decided by
    ``zero_division`` (RAGTruth and LettuceDetect use 0.0). Zero-length spans mark
    nothing under either rule.

Examples
--------
SPEC section 4 (P = 1, R = 6/10: F1 = 2ac / (ad + bc) is exactly 0.75); overlapping
reference spans merge into one mask of 12 characters, or count their overlap twice:

>>> import mycelium
>>> mycelium.evaluate([[0, 10]], [[2, 8]], metrics="character")["character"]
{'precision': 1.0, 'recall': 0.6, 'f1': 0.75}
>>> mycelium.evaluate([[0, 4], [4, 12]], [[2, 12]], metrics="character")["character"]
{'precision': 1.0, 'recall': 0.8333333333333334, 'f1': 0.9090909090909091}
>>> mycelium.evaluate([[4, 9], [4, 9]], [[4, 9]], metrics="character",
...                   params={"character": {"overlaps": "pairwise"}})["character"]
{'precision': 2.0, 'recall': 1.0, 'f1': 1.3333333333333333}
"""

from __future__ import annotations

import numpy as np

from . import intervals as iv
from .base import Metric, Param, Workspace, named, prf_ratios
from .iou import mask_statistics

#: ``overlaps`` values: merged character masks (the default) or LettuceDetect's sums.
OVERLAP_RULES = ("merge", "pairwise")

_SAFE = float(2**62)


def statistics(ws: Workspace, params) -> dict[str, np.ndarray]:
    if params.get("overlaps", "merge") == "pairwise":
        g, p, inter = pairwise_sizes(ws)
    else:
        g, p, inter = mask_statistics(ws)
    return {"tp": inter, "fp": p - inter, "fn": g - inter}


def pairwise_sizes(ws: Workspace) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Σ|g|, Σ|p|, Σ_p Σ_g |p ∩ g|) per example over every listed span (duplicates
    counted by their multiplicity), from the overlapping pairs of the canonical spans."""
    r, p = ws.refs, ws.preds
    wr, wp = r.weights, p.weights
    g_len = iv.segment_sum(_product(r.lengths, wr), r.offsets)
    p_len = iv.segment_sum(_product(p.lengths, wp), p.offsets)
    parts = [iv.group_sum(pairs.example, _product(pairs.overlap, wr[pairs.ref] * wp[pairs.pred]),
                          ws.n)
             for pairs in ws.pair_blocks()]
    inter = parts[0] if len(parts) == 1 else _add(parts, ws.n)
    return g_len, p_len, inter


def _product(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``values * weights`` exactly: int64 while it fits, else Python ints."""
    if values.size == 0 or float(np.abs(values).max()) * float(weights.max()) < _SAFE:
        return values * weights
    return np.array([int(v) * int(w) for v, w in zip(values.tolist(), weights.tolist())],
                    dtype=object)


def _add(parts: list[np.ndarray], n: int) -> np.ndarray:
    if all(a.dtype != object for a in parts):
        total = np.zeros(n, dtype=np.float64)
        for a in parts:
            total += np.abs(a.astype(np.float64))
        if total.max(initial=0.0) < _SAFE:
            return np.sum(parts, axis=0)
    out = np.zeros(n, dtype=object)
    for a in parts:
        out = out + a.astype(object)
    return out


def ratios(st, params):
    tp = st["tp"]
    return prf_ratios(tp, tp + st["fp"], tp, tp + st["fn"])


METRIC = Metric(
    name="character",
    statistics=("tp", "fp", "fn"),
    measures=("precision", "recall", "f1"),
    compute=statistics,
    ratios=ratios,
    params=(Param("overlaps", "merge", named, "an overlap rule 'merge' or 'pairwise'",
                  choices=OVERLAP_RULES, quiet=True),),
    summary="Character-mask precision, recall and F1",
)
