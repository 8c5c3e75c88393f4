"""The per-label breakdown of ``soft_spearman_by_label``: Cor and IoU per label, with
the examples and spans of each label, from the (example, label) pairs that Cor lbl is
made of (`mycelium.metrics.soft_labels.LabelBreakdown`).

A label's Cor (IoU) is the exact mean over the examples whose label union holds it of
Cor (IoU) restricted to that label: the values Cor lbl averages, grouped by label
instead of by example (`mycelium.protocols.shroom_visions.VisionsResult.per_label`
gives the same numbers for a file).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.exactsum import exact_mean
from ..metrics.soft_labels import LabelBreakdown

__all__ = ["label_rows"]


def label_rows(breakdown: LabelBreakdown, items: np.ndarray | None = None
               ) -> dict[str, dict[str, Any]]:
    """``{label: {"examples", "n_ref", "n_pred", "soft_spearman": {"score"}, "iou":
    {"score"}}}`` over the pairs whose example is in ``items`` (a boolean mask over the
    scored examples; all of them without), labels in code order
    (`mycelium.metrics.soft_labels.LABEL_ORDER`, then sorted). ``examples`` counts the
    examples having the label on either side; ``n_ref`` and ``n_pred`` its spans on each.

    Examples
    --------
    >>> import mycelium
    >>> ref = [[{"start": 0, "end": 2, "prob": 1.0, "label": "OCR"}],
    ...        [{"start": 1, "end": 3, "prob": 0.5, "label": "OCR"}]]
    >>> pred = [[{"start": 0, "end": 2, "prob": 0.9, "label": "OCR"}], []]
    >>> r = mycelium.evaluate(ref, pred, text=["abcd", "abcd"], profile="shroom_visions")
    >>> r["by_type"]["OCR"]["examples"], r["by_type"]["OCR"]["iou"]
    (2, {'score': 0.5})
    """
    s = breakdown.scores
    keep = np.ones(s.pair_item.size, dtype=bool) if items is None \
        else np.asarray(items, dtype=bool)[s.pair_item]
    out: dict[str, dict[str, Any]] = {}
    for code, name in enumerate(breakdown.names):
        at = keep & (s.pair_label == code)
        if not at.any():
            continue
        out[name] = {"examples": int(at.sum()),
                     "n_ref": int(s.pair_ref_spans[at].sum()),
                     "n_pred": int(s.pair_pred_spans[at].sum()),
                     "soft_spearman": {"score": exact_mean(s.pair_cor[at])},
                     "iou": {"score": exact_mean(s.pair_iou[at])}}
    return out
