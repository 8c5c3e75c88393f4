"""``iou``: intersection over union of the merged character masks (official Mu-SHROOM IoU).

Statistics (per example)
    ``inter``  characters marked on both sides, ``|mask(G) ∩ mask(P)|``
    ``union``  characters marked on either side, ``|mask(G) ∪ mask(P)|``

Measures
    score = inter / union. Macro (the Mu-SHROOM procedure) averages the per-example scores;
    micro is ``Σ inter / Σ union``.

Edge cases
    Both sides empty → score 1.0, as the official Mu-SHROOM scorer (and micro is 1.0 when
    ``Σ union = 0``); this is *not* governed by ``zero_division``. Exactly one side empty
    → 0.0. Duplicate, overlapping and adjacent spans collapse into one mask, so the
    metric depends only on which characters are marked. Costs depend on the number of
    spans, not their lengths.

Examples
--------
SPEC section 4: ``[0, 10)`` against ``[2, 8)`` shares 6 of 10 marked characters; macro
is the mean of per-example scores, micro ``Σ inter / Σ union = 9 / 13``; both sides
empty score 1.0:

>>> import mycelium
>>> mycelium.evaluate([[0, 10]], [[2, 8]], metrics="iou")["iou"]
{'score': 0.6}
>>> refs, preds = [[[0, 10]], [[4, 7]]], [[[2, 8]], [[4, 7]]]
>>> mycelium.evaluate(refs, preds, metrics="iou")["iou"]["score"]
0.8
>>> mycelium.evaluate(refs, preds, metrics="iou", average="micro")["iou"]["score"]
0.6923076923076923
>>> mycelium.evaluate([[], []], [[], [[0, 3]]], metrics="iou")["iou"]
{'score': 0.5}
"""

from __future__ import annotations

import numpy as np

from .base import Metric, Workspace


def mask_statistics(ws: Workspace) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(|mask(G)|, |mask(P)|, |mask(G) ∩ mask(P)|) per example; shared with ``character``."""
    return ws.mask_sizes


def statistics(ws: Workspace, params) -> dict[str, np.ndarray]:
    g, p, inter = mask_statistics(ws)
    return {"inter": inter, "union": g + p - inter}


def ratios(st, params):
    return {"score": (st["inter"], st["union"])}


METRIC = Metric(
    name="iou",
    statistics=("inter", "union"),
    measures=("score",),
    compute=statistics,
    ratios=ratios,
    fixed_undefined={"score": 1.0},
    summary="Character intersection-over-union",
)
