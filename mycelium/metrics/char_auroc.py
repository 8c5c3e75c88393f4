"""``char_auroc``: ROC AUC of per-character scores against the reference characters.

Items are characters; a character is positive when it lies in a reference span, and is
scored by the detector's character score (SPEC section 9). Equal to scikit-learn's
``roc_auc_score`` on the expanded per-character arrays, ties included, but computed from
*weighted points*: runs of characters of equal score and label
(`mycelium.core.scores.ScoreRuns`), so the cost depends on the spans and tokens, never on
the number of characters (`mycelium.metrics.ranking` gives the formula).

Measures
    ``score``. Macro: the AUROC of each example, then the mean over the examples where it
    is defined (both classes present). Micro: one AUROC over the pooled weighted points
    of the whole batch (all characters of all examples ranked together).

Edge cases
    An example with one class only is undefined and left out of the macro mean; no
    defined example, or pooled characters of one class, gives NaN. Not governed by
    ``zero_division``. AUROC is not a sum of per-example statistics, so groups and
    bootstrap resamples recompute it from the pooled points with per-example weights
    (one sort, reused for every resample).
"""

from __future__ import annotations

from .ranking import Blocks, auroc

NAME = "char_auroc"
MEASURES = ("score",)
UNIT = "char"
SUMMARY = "Character ROC AUC of the scores (threshold-free)"


def values(b: Blocks):
    """AUROC per group of the ranked points, shape (resamples, groups)."""
    return auroc(b)
