"""``character``: precision, recall and F1 of merged character masks (the RAGTruth protocol).

Statistics (per example)
    ``tp``  characters marked on both sides, ``|mask(G) ∩ mask(P)|``
    ``fp``  characters predicted but not in a reference, ``|mask(P)| - tp``
    ``fn``  reference characters not predicted, ``|mask(G)| - tp``

Measures
    precision = tp / (tp + fp), recall = tp / (tp + fn), F1 their harmonic mean.
    With ``average="micro"`` the counts are summed over the batch first: this is how
    RAGTruth pools responses (profile ``ragtruth``).

Edge cases
    Spans of a side merge into one mask (duplicates, overlaps and adjacency collapse).
    Nothing predicted → precision 0/0; nothing annotated → recall 0/0: decided by
    ``zero_division`` (RAGTruth uses 0.0).

Examples
--------
SPEC section 4 (P = 1, R = 6/10: F1 = 2ac / (ad + bc) is exactly 0.75); overlapping
reference spans merge into one mask of 12 characters:

>>> import mycelium
>>> mycelium.evaluate([[0, 10]], [[2, 8]], metrics="character")["character"]
{'precision': 1.0, 'recall': 0.6, 'f1': 0.75}
>>> mycelium.evaluate([[0, 4], [4, 12]], [[2, 12]], metrics="character")["character"]
{'precision': 1.0, 'recall': 0.8333333333333334, 'f1': 0.9090909090909091}
"""

from __future__ import annotations

import numpy as np

from ._base import Metric, Workspace, prf_ratios
from .iou import mask_statistics


def statistics(ws: Workspace, params) -> dict[str, np.ndarray]:
    g, p, inter = mask_statistics(ws)
    return {"tp": inter, "fp": p - inter, "fn": g - inter}


def ratios(st, params):
    tp = st["tp"]
    return prf_ratios(tp, tp + st["fp"], tp, tp + st["fn"])


METRIC = Metric(
    name="character",
    statistics=("tp", "fp", "fn"),
    measures=("precision", "recall", "f1"),
    compute=statistics,
    ratios=ratios,
    summary="Character-mask precision, recall and F1",
)
