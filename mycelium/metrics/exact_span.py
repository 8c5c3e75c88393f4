"""``exact_span``: strict instance matching — a predicted span counts only if identical to a reference span.

Statistics (per example)
    ``tp``      number of spans present on both sides, ``|G ∩ P|`` as sets of ``(start, end)``
    ``n_pred``  number of distinct non-empty predicted spans
    ``n_ref``   number of distinct non-empty reference spans

Measures
    precision = tp / n_pred, recall = tp / n_ref, F1 their harmonic mean.

Edge cases
    Each side is a set: exact duplicates count once and zero-length spans are dropped.
    No prediction → precision is 0/0; no reference → recall is 0/0: both are decided by
    ``zero_division``. Overlap without identity earns nothing (``[0, 10)`` vs ``[0, 9)``).

Examples
--------
SPEC section 4: ``tp = |G ∩ P|`` as sets of ``(start, end)``; ``[12, 15)`` and
``[12, 14)`` overlap but are not identical, so one of two spans matches on each side:

>>> import mycelium
>>> mycelium.evaluate([[0, 10], [12, 15]], [[0, 10], [12, 14]],
...                   metrics="exact_span")["exact_span"]
{'precision': 0.5, 'recall': 0.5, 'f1': 0.5}
>>> mycelium.evaluate([[0, 10]], [[0, 9]], metrics="exact_span")["exact_span"]
{'precision': 0.0, 'recall': 0.0, 'f1': 0.0}
"""

from __future__ import annotations

import numpy as np

from . import intervals as iv
from .base import Metric, Workspace, prf_ratios


def statistics(ws: Workspace, params) -> dict[str, np.ndarray]:
    refs, preds = ws.refs, ws.preds
    if ws.share_pairs:  # equal spans: an overlap as long as both
        pairs, (lg, ld) = ws.pairs, ws.pair_lengths
        tp = iv.count(pairs.example[(pairs.overlap == lg) & (lg == ld)], ws.n)
    else:
        # Candidates share the start: a contiguous run of the sorted reference starts.
        rs, _, ps, _ = ws.keys
        lo = np.searchsorted(rs, ps, side="left")
        hi = np.searchsorted(rs, ps, side="right")
        jp, ig = iv.expand_ranges(lo, hi)
        same = (refs.starts[ig] == preds.starts[jp]) & (refs.ends[ig] == preds.ends[jp])
        tp = iv.count(preds.example_ids[jp[same]], ws.n)
    return {"tp": tp, "n_pred": ws.preds.counts.copy(), "n_ref": ws.refs.counts.copy()}


def ratios(st, params):
    return prf_ratios(st["tp"], st["n_pred"], st["tp"], st["n_ref"])


METRIC = Metric(
    name="exact_span",
    statistics=("tp", "n_pred", "n_ref"),
    counts=("tp", "n_pred", "n_ref"),
    measures=("precision", "recall", "f1"),
    compute=statistics,
    ratios=ratios,
    summary="Exact instance precision, recall and F1",
)
