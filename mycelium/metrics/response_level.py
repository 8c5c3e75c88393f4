"""``response_level``: does the detector flag the right responses? Examples as items.

Statistics (per example, each 0 or 1)
    ``tp``  gold positive and predicted positive; ``fp`` predicted only; ``fn`` gold only;
    ``tn``  neither. With the default ``positive_min_length=1`` a side is positive when
    it has at least one span of at least one character (gold: a reference character;
    predicted: a non-empty predicted span), as SPEC section 9 defines it.

Parameter ``positive_min_length`` (a whole number, default 1)
    A side is positive when it lists a span of at least this many characters. ``0``
    counts every listed span, zero-length ones included (and before duplicates
    collapse): RAGTruth's case level, which calls a response positive when its label
    list, or its list of predicted strings, is non-empty — even when a predicted
    string could not be located in the response (CodingLL/RAGTruth_Eval
    @5ddb09576a1dddec7f5dbda36290e5e188a5783d:compute_metrics.py, ``print_metrics``;
    ParticleMedia/RAGTruth ``baseline/predict_and_evaluate.py`` uses
    ``len(labels) > 0`` and ``len(pred_list) > 0`` the same way). The ``ragtruth``
    profile sets it to 0.

Parameter ``unit`` (``"spans"`` by default, or ``"tokens"``)
    ``"tokens"``: when the call scores tokens at a threshold, a response is gold-positive
    when one of its tokens is (a token overlapping a listed reference span,
    `mycelium.metrics.tokens`) and predicted positive when one of its tokens scores past
    the threshold, zero-length (special) tokens included; a response without tokens is
    negative on both sides. This is LettuceDetect's ``evaluate_model_example_level``
    (KRLabsOrg/LettuceDetect@102f7f29009aeca4365a9d9731e46f13bab099b6:
    lettucedetect/models/evaluator.py), which can differ from the span lists: a
    predicted [SEP] token makes a response positive without building a span, and a
    reference span over characters no token covers labels no token. Without token
    scores the span rule above applies (as LettuceDetect's span-level example
    evaluator, ``evaluate_detector_example_level``, counts non-empty span lists).

Measures
    precision = Σtp / (Σtp + Σfp), recall = Σtp / (Σtp + Σfn) of the hallucinated class,
    F1 from them with one rounding. Always pooled over the examples (a per-example
    precision of one response is not a meaningful mean), whatever ``average`` says;
    ``meta["response_level_average"]`` says so. Undefined precision or recall take
    ``zero_division``.
"""

from __future__ import annotations

import numpy as np

from .base import Metric, Param, Workspace, named, prf_ratios, whole


def _positive(batch, listed: np.ndarray, min_length: float) -> np.ndarray:
    if min_length <= 0:
        return np.asarray(listed) > 0
    if min_length <= 1:
        return batch.counts > 0
    longest = np.zeros(batch.n_examples, dtype=np.int64)
    if batch.n_spans:
        np.maximum.at(longest, batch.example_ids, batch.lengths)
    return longest >= min_length


def statistics(ws: Workspace, params) -> dict[str, np.ndarray]:
    if params.get("unit", "spans") == "tokens" and ws.tokens is not None:
        gold, pred = ws.tokens.any_positive()
    else:
        min_length = params.get("positive_min_length", 1)
        gold = _positive(ws.refs, ws.listed[0], min_length)
        pred = _positive(ws.preds, ws.listed[1], min_length)
    as_int = np.int64
    return {"tp": (gold & pred).astype(as_int), "fp": (~gold & pred).astype(as_int),
            "fn": (gold & ~pred).astype(as_int), "tn": (~gold & ~pred).astype(as_int)}


def ratios(st, params):
    return prf_ratios(st["tp"], st["tp"] + st["fp"], st["tp"], st["tp"] + st["fn"])


METRIC = Metric(
    name="response_level",
    statistics=("tp", "fp", "fn", "tn"),
    measures=("precision", "recall", "f1"),
    compute=statistics,
    ratios=ratios,
    params=(Param("positive_min_length", 1.0, whole, "a whole number >= 0"),
            Param("unit", "spans", named, "a unit 'spans' or 'tokens'",
                  choices=("spans", "tokens"), quiet=True)),
    summary="Response-level detection (examples as items, pooled)",
    counts=("tp", "fp", "fn", "tn"),
)
