"""``span_coverage``: directional instance metric that accepts more specific predictions.

Statistics (per example)
    ``n_pred_contained``  predictions fully inside at least one single reference span
                          (``g.start <= p.start and p.end <= g.end``)
    ``n_pred``            number of distinct non-empty predicted spans
    ``n_ref_covered``     reference spans that contain at least one prediction
    ``n_ref``             number of distinct non-empty reference spans

Measures
    precision = n_pred_contained / n_pred, recall = n_ref_covered / n_ref, F1 their
    harmonic mean.

Edge cases
    Containment is asymmetric: a prediction reaching past its reference is not accepted,
    and containment in the *union* of two touching references does not count. One
    contained character per reference already gives a perfect score, so report this
    metric beside an overlap-sensitive one such as ``iou``. 0/0 is decided by
    ``zero_division``. Linear in the number of spans: no pair is enumerated.

Examples
--------
SPEC section 4: ``[2, 8)`` lies inside ``[0, 10)``; ``[25, 35)`` reaches past
``[20, 30)``, so it is not contained and ``[20, 30)`` is not covered:

>>> import mycelium
>>> mycelium.evaluate([[0, 10], [20, 30]], [[2, 8], [25, 35]],
...                   metrics="span_coverage")["span_coverage"]
{'precision': 0.5, 'recall': 0.5, 'f1': 0.5}
"""

from __future__ import annotations

import numpy as np

from . import intervals as iv
from .base import Metric, Workspace, prf_ratios


def statistics(ws: Workspace, params) -> dict[str, np.ndarray]:
    if ws.share_pairs:
        contained, covered = _from_pairs(ws)
    else:
        contained, covered = _from_order(ws)
    return {
        "n_pred_contained": iv.segment_count(contained, ws.preds.offsets),
        "n_pred": ws.preds.counts.copy(),
        "n_ref_covered": iv.segment_count(covered, ws.refs.offsets),
        "n_ref": ws.refs.counts.copy(),
    }


def _from_pairs(ws: Workspace) -> tuple[np.ndarray, np.ndarray]:
    """Containment among the overlapping pairs (when they are computed anyway)."""
    pairs, refs, preds = ws.pairs, ws.refs, ws.preds
    inside = np.flatnonzero(pairs.overlap == ws.pair_lengths[1])  # all of d inside g
    contained = np.zeros(preds.n_spans, dtype=bool)
    contained[pairs.pred[inside]] = True
    covered = np.zeros(refs.n_spans, dtype=bool)
    covered[pairs.ref[inside]] = True
    return contained, covered


def _from_order(ws: Workspace) -> tuple[np.ndarray, np.ndarray]:
    """Containment from prefix maxima / suffix minima: linear, no pair enumerated."""
    rs, re_, ps, pe = ws.keys
    contained = np.zeros(ps.size, dtype=bool)
    covered = np.zeros(rs.size, dtype=bool)
    if rs.size and ps.size:
        # A prediction is contained iff the references starting at or before it reach
        # its end: prefix maxima of reference ends (keys never mix examples).
        reach = iv.running_max(re_)
        last = np.searchsorted(rs, ps, side="right") - 1
        ok = last >= 0
        contained[ok] = reach[last[ok]] >= pe[ok]
        # A reference is covered iff the predictions starting at or after it end
        # within it: suffix minima of prediction ends.
        low = iv.running_min(pe[::-1])[::-1]
        first = np.searchsorted(ps, rs, side="left")
        ok = first < ps.size
        covered[ok] = low[first[ok]] <= re_[ok]
    return contained, covered


def ratios(st, params):
    return prf_ratios(st["n_pred_contained"], st["n_pred"], st["n_ref_covered"], st["n_ref"])


METRIC = Metric(
    name="span_coverage",
    statistics=("n_pred_contained", "n_pred", "n_ref_covered", "n_ref"),
    counts=("n_pred_contained", "n_pred", "n_ref_covered", "n_ref"),
    measures=("precision", "recall", "f1"),
    compute=statistics,
    ratios=ratios,
    summary="Directional Span Coverage precision, recall and F1",
)
