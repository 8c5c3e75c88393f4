"""The obvious reference for `mycelium.protocols.mushroom`: the official Mu-SHROOM
procedure written record by record, as ``participant_kit/scorer.py`` states it.

Records are paired by id and taken in the official order (integer-looking ids
numerically, else as strings); a prediction without ``hard_labels`` gets the soft spans
with prob > 0.5 (`derive_hard_labels`), one without ``soft_labels`` prob-1.0 soft labels
on its hard spans; IoU is that of the two index sets (1.0 when both are empty); Cor is
`mycelium.metrics.soft_spearman.cor` of the per-character vectors, each span writing
its probability over the previous ones; the file scores are numpy's means in id order.
It trusts its input (the records must be valid) and is slow on purpose: one Python
set and one Python list per example.
"""

import numpy as np

from mycelium.metrics.soft_spearman import cor
from mycelium.protocols.mushroom import derive_hard_labels, derive_soft_labels


def official_order(ids):
    try:
        return sorted(ids, key=int)
    except ValueError:
        return sorted(ids)


def vector(soft_labels, n):
    vec = [0.0] * n
    for span in soft_labels:
        for i in range(span["start"], span["end"]):
            vec[i] = span["prob"]
    return np.array(vec, dtype=np.float64)


def reference_scores(refs, preds):
    """``(ids, iou, cor, iou_mean, cor_mean)`` of valid records."""
    ref_by_id = {str(r["id"]): r for r in refs}
    pred_by_id = {str(p["id"]): p for p in preds}
    ids = official_order(list(ref_by_id))
    ious, cors = [], []
    for i in ids:
        r, p = ref_by_id[i], pred_by_id[i]
        n = len(r["model_output_text"])
        hard = p["hard_labels"] if "hard_labels" in p else derive_hard_labels(p["soft_labels"])
        soft = p["soft_labels"] if "soft_labels" in p else derive_soft_labels(hard)
        a = {k for s, e in r["hard_labels"] for k in range(s, e)}
        b = {k for s, e in hard for k in range(s, e)}
        ious.append(1.0 if not a and not b else len(a & b) / len(a | b))
        cors.append(cor(vector(r["soft_labels"], n), vector(soft, n)))
    return ids, ious, cors, float(np.mean(ious)), float(np.mean(cors))
