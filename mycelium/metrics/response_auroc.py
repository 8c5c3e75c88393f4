"""``response_auroc``: ROC AUC of responses (examples) ranked by their highest character score.

Items are examples: positive when the example has at least one reference character,
scored by its highest character score (0 for an empty text) (SPEC section 9). Equal to
scikit-learn's ``roc_auc_score`` on those two per-example arrays, ties included.

Measures
    ``score``, always over the examples pooled (an AUROC of one response is undefined),
    whatever ``average`` says; ``meta["response_auroc_average"]`` says so.

Edge cases
    All examples of one class → NaN. Not governed by ``zero_division``. Bootstrap
    resamples reweight the examples (one sort, reused for every resample).
"""

from __future__ import annotations

from .ranking import Blocks, auroc

NAME = "response_auroc"
MEASURES = ("score",)
UNIT = "response"
SUMMARY = "Response-level ROC AUC of the highest character score"


def values(b: Blocks):
    """AUROC per group of the ranked points, shape (resamples, groups)."""
    return auroc(b)
