"""``char_ap``: average precision of per-character scores for the reference characters.

Items are characters, positive inside a reference span, scored by the character score
(SPEC section 9). Equal to scikit-learn's ``average_precision_score`` on the expanded
per-character arrays, ties included (one precision-recall vertex per distinct score, no
interpolation), computed from weighted runs of equal score and label
(`mycelium.metrics.ranking` gives the formula); cost never depends on text length.

Measures
    ``score``. Macro: AP per example, then the mean over the examples with at least one
    positive character. Micro: one AP over the pooled weighted points of the batch.

Edge cases
    An example without a reference character is undefined and left out of the macro
    mean; no defined example, or no positive character in the batch, gives NaN. Not
    governed by ``zero_division``. Groups and bootstrap resamples recompute AP from the
    pooled points with per-example weights (AP is not a sum of per-example statistics).
"""

from __future__ import annotations

from .ranking import Blocks, average_precision

NAME = "char_ap"
MEASURES = ("score",)
UNIT = "char"
SUMMARY = "Character average precision of the scores (threshold-free)"


def values(b: Blocks):
    """AP per group of the ranked points, shape (resamples, groups)."""
    return average_precision(b)
