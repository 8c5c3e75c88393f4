"""``response_level``: does the detector flag the right responses? Examples as items.

Statistics (per example, each 0 or 1)
    ``tp``  gold positive and predicted positive; ``fp`` predicted only; ``fn`` gold only;
    ``tn``  neither. Gold positive: at least one reference character; predicted
    positive: at least one (non-empty) predicted span.

Measures
    precision = Σtp / (Σtp + Σfp), recall = Σtp / (Σtp + Σfn) of the hallucinated class,
    F1 from them with one rounding. Always pooled over the examples (a per-example
    precision of one response is not a meaningful mean), whatever ``average`` says;
    ``meta["response_level_average"]`` says so. Undefined precision or recall take
    ``zero_division``.
"""

from __future__ import annotations

import numpy as np

from ._base import Metric, Workspace, prf_ratios


def statistics(ws: Workspace, params) -> dict[str, np.ndarray]:
    gold = ws.refs.counts > 0
    pred = ws.preds.counts > 0
    as_int = np.int64
    return {"tp": (gold & pred).astype(as_int), "fp": (~gold & pred).astype(as_int),
            "fn": (gold & ~pred).astype(as_int), "tn": (~gold & ~pred).astype(as_int)}


def ratios(st, params):
    return prf_ratios(st["tp"], st["tp"] + st["fp"], st["tp"], st["tp"] + st["fn"])


METRIC = Metric(
    name="response_level",
    statistics=("tp", "fp", "fn", "tn"),
    measures=("precision", "recall", "f1"),
    compute=statistics,
    ratios=ratios,
    summary="Response-level detection (examples as items, pooled)",
    counts=("tp", "fp", "fn", "tn"),
)
