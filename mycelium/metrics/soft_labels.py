"""The soft-label metrics under a profile's rules: ``soft_spearman`` and
``soft_spearman_by_label``, and the per-label breakdown they are made of.

``soft_spearman`` is Cor (`mycelium.metrics.soft_spearman`); the score rules
(`mycelium.core.score_rules.ScoreRules`) say how each side's overlapping spans make its
vector (``soft_reference_overlap``, ``soft_prediction_overlap``: the last writer wins, or
the probabilities add) and which constant-vector rule applies (``soft_constant``).

``soft_spearman_by_label`` is SHROOM-Visions' "Cor lbl": per example, the mean over the
union of both sides' labels (each span's ``label`` string, compared exactly, case
included) of Cor with both sides restricted to that label; 1.0 when the union is empty.
It is defined under the SHROOM-Visions kit's rules (summed reference, last-writer
prediction, its constant rule: the ``shroom_visions`` profile), computed by
`mycelium.metrics.typed_soft`. Like ``soft_spearman`` it is a mean over examples,
whatever ``average`` says.

Examples
--------
Two labels on the reference, one predicted: Cor lbl is the mean of Cor on
``miscounting`` (1.0) and on ``mischaracterization`` (0.0, nothing predicted there).

>>> import mycelium
>>> ref = [{"start": 0, "end": 3, "prob": 1.0, "label": "miscounting"},
...        {"start": 4, "end": 7, "prob": 0.5, "label": "mischaracterization"}]
>>> pred = [{"start": 0, "end": 3, "prob": 0.8, "label": "miscounting"}]
>>> r = mycelium.evaluate(ref, pred, text="Two red buses.", profile="shroom_visions")
>>> r["soft_spearman"], r["soft_spearman_by_label"], r["iou"]
({'score': 0.7977240352174656}, {'score': 0.5}, {'score': 0.5})
>>> r["by_type"]["miscounting"]  # the per-label breakdown (mycelium.views.soft_labels)
{'examples': 1, 'n_ref': 1, 'n_pred': 1, 'soft_spearman': {'score': 1.0}, 'iou': {'score': 1.0}}
"""

from __future__ import annotations

from dataclasses import dataclass
import numpy as np

from .soft_runs import cor_of_runs, last_writer_runs
from .typed_soft import TypedScores, summed_runs, typed_soft_scores, visions_cor
from .soft_spearman import cor, soft_flat

__all__ = ["LABEL_ORDER", "LabelBreakdown", "soft_label_statistics", "soft_cor",
           "label_codes"]

#: The labels coded first, in this order (the SHROOM-Visions kit's closed set, in the
#: order `mycelium.io.shroom_visions.VISIONS_LABELS` codes them), then any other label
#: in sorted order. A label's code orders the per-label sum of Cor lbl within an
#: example, so the order is fixed rather than one of appearance: every face, batch and
#: partition adds the same values in the same order.
LABEL_ORDER = ("invention", "mischaracterization", "OCR", "miscounting", "other")

#: The rules (`ScoreRules`) under which ``soft_spearman_by_label`` is defined.
VISIONS_RULES = {"soft_reference_overlap": "sum", "soft_prediction_overlap": "last",
                 "soft_constant": "shroom_visions"}

_RUNS = {"last": last_writer_runs, "sum": summed_runs}


@dataclass(frozen=True)
class LabelBreakdown:
    """The (example, label) pairs of the scored examples: ``names[code]`` is a label;
    ``scores`` holds, per pair, Cor and IoU restricted to the label and the spans of
    each side (`mycelium.metrics.typed_soft.TypedScores`; ``pair_item`` indexes the
    scored examples in input order)."""

    names: tuple[str, ...]
    scores: TypedScores


def soft_cor(lengths, ref: tuple, pred: tuple, rules) -> np.ndarray:
    """Cor per example of flat soft labels (``(offsets, starts, ends, probs)`` per side)
    under ``rules`` (a `ScoreRules`)."""
    if (rules.soft_reference_overlap, rules.soft_prediction_overlap,
            rules.soft_constant) == ("last", "last", "mu_shroom"):
        from .soft_runs import cor_runs

        return cor_runs(lengths, ref[:4], pred[:4], slow=cor)
    runs_a = _RUNS[rules.soft_reference_overlap](lengths, *ref[:4])
    runs_b = _RUNS[rules.soft_prediction_overlap](lengths, *pred[:4])
    slow = visions_cor if rules.soft_constant == "shroom_visions" else cor
    return cor_of_runs(lengths, runs_a, runs_b, slow=slow, constant=rules.soft_constant)


def soft_label_statistics(soft_references, soft_predictions, prepared, *, text, metrics,
                          rules) -> tuple[dict[str, dict[str, np.ndarray]],
                                          LabelBreakdown | None]:
    """Per-example scores of the soft metrics among ``metrics`` for the examples kept by
    ``prepared`` (a `Prepared`), under ``rules`` (a `ScoreRules`), and with
    ``soft_spearman_by_label`` the per-label breakdown (None without).

    Raises
    ------
    ValueError
        ``soft_spearman_by_label`` under rules other than the SHROOM-Visions kit's.
    SpanValidationError
        A bad soft span (and with ``soft_spearman_by_label``, a span without a
        ``label`` string).
    """
    asked = [m for m in ("soft_spearman", "soft_spearman_by_label") if m in metrics]
    if not asked:
        return {}, None
    by_label = "soft_spearman_by_label" in asked
    if by_label:
        got = {k: getattr(rules, k) for k in VISIONS_RULES}
        if got != VISIONS_RULES:
            raise ValueError(f"Expected the SHROOM-Visions rules {VISIONS_RULES} with "
                             f"metric 'soft_spearman_by_label', got {got}; fix by passing "
                             "profile='shroom_visions' (or a Profile with those "
                             "score_rules).")
    lengths, ref, pred = soft_flat(soft_references, soft_predictions, prepared, text=text,
                                   labels=by_label)
    if not by_label:
        return {"soft_spearman": {"score": soft_cor(lengths, ref, pred, rules)}}, None
    names, ref_codes, pred_codes = label_codes(ref[4], pred[4])
    scores = typed_soft_scores(lengths, ref[:4] + (ref_codes,), pred[:4] + (pred_codes,),
                               len(names))
    out = {"soft_spearman_by_label": {"score": scores.cor_lbl}}
    if "soft_spearman" in asked:
        out["soft_spearman"] = {"score": scores.cor}
    return out, LabelBreakdown(names, scores)


def label_codes(ref_labels: np.ndarray, pred_labels: np.ndarray):
    """Codes of both sides' labels in `LABEL_ORDER`, then the other labels sorted."""
    seen = set(ref_labels.tolist()) | set(pred_labels.tolist())
    names = [n for n in LABEL_ORDER if n in seen] + sorted(seen - set(LABEL_ORDER))
    code = {n: k for k, n in enumerate(names)}
    return (tuple(names),
            np.array([code[x] for x in ref_labels.tolist()], dtype=np.int64),
            np.array([code[x] for x in pred_labels.tolist()], dtype=np.int64))
