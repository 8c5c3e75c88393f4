"""Detector scores beyond spans (SPEC section 9): the spans a detector's scores give at a
threshold (``spans``: `spans_at`, and the score part of `mycelium.evaluate`), the plan of
a call with scores (``plan``), span metrics at many thresholds and the best threshold
(``thresholds``: `sweep`, `tune_threshold`), the score part of a report with its intervals
(``report``), and baselines built from a generating model's own signals (``baselines``:
`token_logit_scores`). The threshold-free score *metrics* (``char_auroc``, ``char_ap``,
``response_auroc``) are metrics, in `mycelium.metrics`; characters and tokens become
weighted runs in `mycelium.core.scores`. Sits above ``stats``, below the dict face.

>>> from mycelium.scores import spans_at
>>> spans_at(0.5, soft_predictions=[{"start": 0, "end": 4, "prob": 0.8}], text="abcdef")
[[0, 4]]
"""

from ..core.lazy import lazy_names

_NAMES = {"spans_at": "spans", "sweep": "thresholds", "tune_threshold": "thresholds",
          "token_logit_scores": "baselines", "Tuned": "plan"}

__all__ = ["spans_at", "sweep", "tune_threshold", "token_logit_scores", "Tuned"]

__getattr__, __dir__ = lazy_names(__name__, _NAMES, globals())
