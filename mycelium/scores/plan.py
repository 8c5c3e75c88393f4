"""What a call with scores computes: the split of its metrics, its score form and
threshold (`ScorePlan`), and the plan's plain key, which every batch of an
`mycelium.Accumulator` must share.

SPEC section 9. `mycelium.scores.spans` carries a plan out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.profiles import get_profile
from ..metrics import POOLED_METRICS, SCORE_METRICS, TOKEN_METRICS
from ..metrics import names as metric_names

__all__ = ["ScorePlan", "Tuned", "score_plan", "split_metrics", "check_threshold",
           "score_form_given", "wanted", "plan_key", "plan_of", "plan_said"]

#: The names this module adds to `evaluate`'s metrics.
EXTRA = metric_names("score", "pooled")


class Tuned(float):
    """A threshold chosen by `mycelium.tune_threshold`: a float that remembers the metric
    it was tuned on, so that applying it records ``tuned:<metric>`` in the signature."""

    metric: str

    def __new__(cls, value: float, metric: str) -> "Tuned":
        obj = super().__new__(cls, value)
        obj.metric = metric
        return obj

    def __reduce__(self):
        return (Tuned, (float(self), self.metric))


def check_threshold(threshold) -> float:
    """A finite number in [0, 1] (scores are in [0, 1]; spans are scores ``> t``)."""
    if isinstance(threshold, (bool, np.bool_)) or not isinstance(
            threshold, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(threshold)) or not 0.0 <= float(threshold) <= 1.0:
        raise ValueError(f"Expected a threshold in [0, 1], got {threshold!r}, at "
                         "threshold=; fix by passing a number such as 0.5 (spans are the "
                         "characters scoring > threshold).")
    return float(threshold)


def split_metrics(metrics) -> tuple[list[str] | None, list[str]]:
    """(the names `resolve_settings` knows, or None for its default; the extra names)."""
    if metrics is None:
        return None, []
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    from ..metrics import unknown_name

    valid = list(metric_names())
    for m in names:
        if m not in valid:
            raise unknown_name("metric", m, valid)
    extra = [m for m in names if m in EXTRA]
    rest = [m for m in names if m not in EXTRA]
    return rest, list(dict.fromkeys(extra))


def score_form_given(soft_references, soft_predictions, token_offsets, token_scores) -> bool:
    """Scores in a score form: token offsets/scores, or soft predictions alone."""
    return token_offsets is not None or token_scores is not None or (
        soft_predictions is not None and soft_references is None)


def wanted(metrics, soft_references, soft_predictions, token_offsets, token_scores,
           threshold, predictions) -> bool:
    """Does an `evaluate` call involve scores, a threshold or an extra metric?"""
    return predictions is None or threshold is not None or bool(split_metrics(metrics)[1]) \
        or score_form_given(soft_references, soft_predictions, token_offsets, token_scores)


def _form_kwargs(soft_references, soft_predictions, token_offsets, token_scores):
    if token_offsets is not None or token_scores is not None:
        if soft_predictions is not None and soft_references is None:
            raise ValueError("Expected one score form, got both soft_predictions and "
                             "token_offsets/token_scores; fix by passing one of them.")
        return {"token_offsets": token_offsets, "token_scores": token_scores}
    if soft_predictions is not None:
        return {"soft_predictions": soft_predictions}
    return None


@dataclass(frozen=True)
class ScorePlan:
    """What a call with scores computes: the score form, the threshold, the extra
    metrics and the span metrics run beside them (``iou`` as a placeholder, left out)."""

    form: dict | None
    threshold: Any  # the value given (a `Tuned` keeps its metric), or None
    has_spans: bool
    extra: list
    span_names: list | None  # None: the default span metrics
    placeholder: bool

    @property
    def form_name(self) -> str | None:
        return None if self.form is None else form_name(self.form)


def score_plan(metrics, predictions, *, soft_references, soft_predictions, token_offsets,
               token_scores, threshold, granularity, profile=None) -> ScorePlan:
    """The `ScorePlan` of a call, with every check of the option combination.

    ``token_level`` joins the default metrics when the call scores tokens at a threshold
    and ``profile`` lists it among its ``extra_metrics`` (``lettucedetect``)."""
    rest, extra = split_metrics(metrics)
    form = _form_kwargs(soft_references, soft_predictions, token_offsets, token_scores)
    if threshold is not None and form is None:
        # Told first: with predictions given too, "both" would point at the wrong fix.
        spans = (" (threshold= makes predicted spans from scores; to score the given "
                 "predictions, drop threshold=)" if predictions is not None else "")
        raise ValueError("Expected scores with threshold=, got none, at threshold="
                         f"{threshold!r}; fix by passing soft_predictions=... or "
                         f"token_offsets=... with token_scores=...{spans}.")
    if predictions is not None and threshold is not None:
        raise ValueError("Expected predictions or threshold, got both; fix by passing "
                         "predictions=None to score the spans at the threshold, or "
                         "dropping threshold= to score the given predictions.")
    if form is None and any(m in SCORE_METRICS for m in extra):
        need = [m for m in extra if m in SCORE_METRICS]
        raise ValueError(f"Expected scores for {', '.join(need)}, got none; fix by "
                         "passing soft_predictions=... or token_offsets=... with "
                         "token_scores=....")
    if predictions is None and threshold is None and form is None:
        raise TypeError("predictions is None; expected predicted spans, or scores "
                        "(soft_predictions / token_offsets + token_scores) with or "
                        "without a threshold.")
    if form is not None and granularity != "char":
        raise ValueError(f"Expected granularity='char' with scores, got "
                         f"{granularity!r}; fix by scoring units in a separate "
                         "call (the score metrics rank characters).")
    t = None if threshold is None else check_threshold(threshold)
    has_spans = predictions is not None or t is not None
    tokens_at_t = form is not None and "token_offsets" in form and t is not None
    if any(m in TOKEN_METRICS for m in extra) and not tokens_at_t:
        missing = "no token scores" if form is None or "token_offsets" not in form \
            else "no threshold"
        raise ValueError(f"Expected token scores at a threshold for token_level, got "
                         f"{missing}; fix by passing token_offsets=..., token_scores=... "
                         "and threshold=... (the tokens are its items).")
    if metrics is None:
        prof = get_profile(profile)
        tokens = tokens_at_t and prof is not None and "token_level" in prof.extra_metrics
        extra = ([m for m in SCORE_METRICS] if form is not None else []) + \
            ([m for m in POOLED_METRICS if m not in TOKEN_METRICS or tokens]
             if has_spans else [])
    # A call with only the extra metrics still runs the span pipeline (validation, meta,
    # signature) with one metric, whose values are then left out.
    placeholder = rest == [] or (not has_spans and not (rest and set(rest) <= {
        "soft_spearman"}))
    if not has_spans and rest and set(rest) - {"soft_spearman"}:
        bad = sorted(set(rest) - {"soft_spearman"})
        raise ValueError(f"Expected predictions or a threshold for {', '.join(bad)}, got "
                         "neither; fix by passing predictions=... or threshold=....")
    return ScorePlan(form, threshold if t is not None else None, has_spans, extra,
                     ["iou"] if placeholder else rest, placeholder)


def form_name(form: dict) -> str:
    return "soft" if "soft_predictions" in form else "token"


def plan_key(plan: ScorePlan | None) -> tuple | None:
    """What every batch must share of its `ScorePlan` (plain values)."""
    if plan is None:
        return None
    t = plan.threshold
    return (plan.form_name, None if t is None else float(t), getattr(t, "metric", None),
            plan.has_spans, tuple(plan.extra),
            None if plan.span_names is None else tuple(plan.span_names), plan.placeholder)


def plan_of(key: tuple | None) -> ScorePlan | None:
    """The `ScorePlan` of a `plan_key` (without the score data, which compute needs not)."""
    if key is None:
        return None
    form_name, t, tuned, has_spans, extra, span_names, placeholder = key
    form = None if form_name is None else (
        {"soft_predictions": None} if form_name == "soft" else {"token_offsets": None})
    threshold = t if tuned is None or t is None else Tuned(t, tuned)
    return ScorePlan(form, threshold, has_spans, list(extra),
                     None if span_names is None else list(span_names), placeholder)


def plan_said(key: tuple | None) -> str:
    """A `plan_key` in words, for the messages of a mismatch."""
    if key is None:
        return "predicted spans"
    form, t = key[0], key[1]
    return (f"{form or 'no'} scores" + ("" if t is None else f" at threshold {t!r}")
            + ("" if key[3] or t is not None else ", no predictions"))
