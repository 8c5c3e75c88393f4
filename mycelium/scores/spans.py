"""Scoring from detector scores: `spans_at`, and the score part of `mycelium.evaluate`.

SPEC section 9. `evaluate` hands a call here when it carries scores (``soft_predictions``
without ``soft_references``, ``token_offsets`` / ``token_scores``), a ``threshold``, or asks
for a score metric. The spans at the threshold become the predictions of every span
metric (scored by the ordinary pipeline); the score metrics (`mycelium.core.score_metrics`)
and ``response_level`` are added to the same report, with intervals from the same
Poisson weights (`mycelium.stats.bootstrap`), and ``meta`` / the signature record the
score form and the threshold.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pyarrow as pa

from ..core.inputs import text_lengths
from ..core.pipeline import empty_spans_told, soft_given
from ..core.signature import signature_with
from ..core.score_rules import ScoreRules, rules_of
from ..core.scores import ScoreInput, score_input, spans_at_threshold
from ..core.spans import SpanBatch, inclusive_to_half_open
from ..metrics import POOLED_METRICS, TOKEN_METRICS, recorded_params
from .plan import (EXTRA, ScorePlan, Tuned, form_name, check_threshold,  # noqa: F401
                   score_form_given, score_plan, split_metrics, wanted)
from .report import report_from_runs, score_report  # noqa: F401

__all__ = ["spans_at", "evaluate_scores", "as_predictions", "score_signature"]


def _single_scores(soft_predictions, token_offsets) -> bool:
    """One example (rather than a batch) when no text says which: the scores of one
    example are a flat list (of ``{start, end, prob}`` dicts, or of token offsets as
    pairs of numbers or ``{start, end}`` dicts) or an ``(m, 2)`` numpy array of offsets;
    a batch holds one such list per example."""
    obj = soft_predictions if soft_predictions is not None else token_offsets
    if isinstance(obj, np.ndarray):
        return obj.dtype != object and obj.ndim == 2 or (obj.ndim == 1 and obj.size == 0)
    if not isinstance(obj, (list, tuple)):
        return False
    first = next((x for x in obj if x is not None), None)
    if first is None:
        return len(obj) == 0
    if isinstance(first, Mapping):
        return True
    if soft_predictions is not None:
        return False
    if isinstance(first, np.ndarray):
        return first.ndim == 1 and first.size == 2 and first.dtype != object
    return isinstance(first, (list, tuple)) and len(first) == 2 and all(
        _is_number(v) for v in first)


def _is_number(v) -> bool:
    """A scalar that can be an offset (validated later: a bool or 2.5 is refused there)."""
    return isinstance(v, (int, float, np.integer, np.floating, np.bool_))


def _furthest_end(x) -> int:
    """A scored interval's end when it reads as a whole number in int64, else 0 (the
    checks of `score_input` then name what is wrong)."""
    if isinstance(x, Mapping):
        e = x.get("end", 0)
    elif isinstance(x, (list, tuple, np.ndarray)) and len(x) == 2:
        e = x[1]
    else:
        return 0
    if isinstance(e, (bool, np.bool_)) or not _is_number(e):
        return 0
    if isinstance(e, (float, np.floating)) and not (np.isfinite(e) and float(e).is_integer()):
        return 0
    e = int(e)
    return e if 0 <= e < 2**63 else 0


def _lengths_without_text(si_kwargs, single: bool) -> np.ndarray:
    """Text lengths unknown: each example's furthest offset (every check but the end)."""
    from ..core.token_input import arrow_column

    obj = si_kwargs["soft_predictions"]
    obj = obj if obj is not None else si_kwargs["token_offsets"]
    column = arrow_column(obj)
    if column is not None:
        obj = column.to_pylist()
    elif hasattr(obj, "tolist") and not isinstance(obj, (list, tuple)):
        obj = obj.tolist()  # numpy arrays and pandas Series as Python lists
    rows = [obj] if single else list(obj if obj is not None else [])
    out = []
    for row in rows:
        if isinstance(row, np.ndarray):
            row = row.tolist()
        try:
            items = list(row or [])
        except TypeError:  # a scalar row: score_input says so
            items = []
        out.append(max([0] + [_furthest_end(x) for x in items]))
    return np.array(out, dtype=np.int64)


def spans_at(threshold, *, soft_predictions=None, token_offsets=None, token_scores=None,
             text=None, threshold_rule: str = ">", token_overlap: str = "max") -> list:
    """The predicted spans at a threshold, one span list per example.

    Parameters
    ----------
    threshold : float
        In [0, 1]; a character (soft form) or token (token form) is positive when its
        score is **> threshold** (strict, as Mu-SHROOM's ``prob > 0.5``).
    soft_predictions : list of ``{start, end, prob}`` (one example) or a list of them
        The character scores are zeros overwritten span by span in list order.
    token_offsets, token_scores : (start, end) pairs and one score per token
        One example (a flat list of pairs or ``{start, end}`` dicts, integral floats
        accepted, or an ``(m, 2)`` numpy array) or a batch (one such list per example).
    text : str or sequence of str, optional
        When given, every offset must lie within it.
    threshold_rule : {">", ">="}, default ">"
        ``">="`` makes a score equal to the threshold positive (PsiloQA's evaluator).
    token_overlap : {"max", "last"}, default "max"
        ``"last"``: token values are written over their characters in token order (the
        last writer wins) and the spans are the runs of characters scoring past the
        threshold, as in the soft form (PsiloQA's evaluator).

    Returns
    -------
    list
        Soft form: the maximal runs of characters scoring > t. Token form: runs of
        consecutive non-empty tokens (list order) scoring > t, each from its first
        token's start to its last token's end (the gaps between them included, as
        LettuceDetect does). One list of ``[start, end]`` for one example, a list of
        such lists for a batch.

    Raises
    ------
    SpanValidationError
        A score outside [0, 1] or not finite, offsets and scores of different lengths,
        or a token outside the text (naming example and token); a run of tokens out of
        text order whose last token ends before its first token starts (it has no span).

    Examples
    --------
    >>> spans_at(0.5, soft_predictions=[{"start": 0, "end": 4, "prob": 0.7},
    ...                                 {"start": 2, "end": 3, "prob": 0.5}])
    [[0, 2], [3, 4]]
    >>> spans_at(0.5, token_offsets=[(0, 3), (4, 6), (7, 9)], token_scores=[0.9, 0.8, 0.1])
    [[0, 6]]
    >>> spans_at(0.5, token_offsets=[(0, 3), (4, 6), (7, 9)], token_scores=[0.9, 0.5, 0.1],
    ...          threshold_rule=">=", token_overlap="last")
    [[0, 3], [4, 6]]
    """
    t = check_threshold(threshold)
    rules = ScoreRules(threshold_rule=threshold_rule, token_overlap=token_overlap)
    kwargs = {"soft_predictions": soft_predictions, "token_offsets": token_offsets,
              "token_scores": token_scores}
    single = isinstance(text, str) if text is not None else _single_scores(
        soft_predictions, token_offsets)
    if text is None:
        lengths = _lengths_without_text(kwargs, single)
    else:
        known = text_lengths(text, single=single, n_examples=1 if single else len(text))
        assert known is not None
        lengths = known
    si = score_input(lengths, single=single, token_overlap=rules.token_overlap, **kwargs)
    lists = span_lists(spans_at_threshold(si, lengths, t, inclusive=rules.inclusive))
    return lists[0] if single else lists


def span_lists(batch: SpanBatch) -> list:
    """Python span lists of a batch: ``[[[s, e], ...], ...]``."""
    s, e, o = batch.starts.tolist(), batch.ends.tolist(), batch.offsets.tolist()
    return [[[s[i], e[i]] for i in range(o[k], o[k + 1])] for k in range(len(o) - 1)]


def as_predictions(batch: SpanBatch, single: bool):
    """Spans at a threshold in the form `mycelium.evaluate` takes (Arrow for a batch)."""
    if single:
        return span_lists(batch)[0]
    struct = pa.StructArray.from_arrays([pa.array(batch.starts, pa.int64()),
                                         pa.array(batch.ends, pa.int64())],
                                        names=["start", "end"])
    return pa.LargeListArray.from_arrays(pa.array(batch.offsets, pa.int64()), struct)


def prepare_scores(references, *, text, single: bool, n_input: int,
                   soft_predictions, token_offsets, token_scores,
                   token_overlap: str = "max") -> tuple[ScoreInput, np.ndarray]:
    """Validated scores of every input example and the text lengths."""
    if text is None:
        also = (" soft_predictions without soft_references are scores (the score metrics rank characters); "
                "soft_spearman needs both soft_references and soft_predictions."
                if soft_predictions is not None else "")
        raise ValueError("Expected text with the scores, got text=None; fix by passing "
                         "text=... (the characters outside every reference span are the "
                         "negatives, so the score metrics need each text's length)." + also)
    lengths = text_lengths(text, single=single, n_examples=n_input)
    assert lengths is not None
    if (lengths < 0).any():
        k = int(np.flatnonzero(lengths < 0)[0])
        raise ValueError(f"Expected a text for every example, got None at text example "
                         f"{k}; fix by giving that example its str.")
    si = score_input(lengths, single=single, soft_predictions=soft_predictions,
                     token_offsets=token_offsets, token_scores=token_scores,
                     token_overlap=token_overlap)
    return si, lengths


def scored_inputs(plan: ScorePlan, references, predictions, *, text,
                  rules: ScoreRules | None = None, offsets: str = "half-open"):
    """(score input or None, text lengths or None, the references converted once (a
    `mycelium.core.inputs.Side`), the predictions to score: the spans at the threshold
    when there is one, the references when there are no spans), the scores read by
    ``rules`` (a profile's `ScoreRules`; the default rules otherwise).

    The spans at a threshold are made half-open from the scores (token offsets and soft
    spans are half-open, as a tokenizer's offset mapping is); with ``offsets="inclusive"``
    they are written back with inclusive ends, so that `mycelium.evaluate.prepare_for`
    reads them as made, beside the user's inclusive spans."""
    from ..core.inputs import convert

    rules = rules or ScoreRules()
    ref = convert(references, "references")
    single = ref.single
    n_input = len(references) if not single and hasattr(references, "__len__") else 1
    si = lengths = None
    if plan.form is not None:
        si, lengths = prepare_scores(references, text=text, single=single, n_input=n_input,
                                     token_overlap=rules.token_overlap,
                                     **{"soft_predictions": None, "token_offsets": None,
                                        "token_scores": None, **plan.form})
    if plan.threshold is not None:
        assert si is not None and lengths is not None
        made = spans_at_threshold(si, lengths, float(plan.threshold),
                                  inclusive=rules.inclusive)
        if offsets == "inclusive":  # never empty: each covers a scored character
            made = SpanBatch(made.offsets, made.starts, made.ends - 1)
        predictions = as_predictions(made, single)
    return si, lengths, ref, predictions if plan.has_spans else ref


def evaluate_scores(evaluate_spans, inputs, settings, keys=None) -> dict[str, Any]:
    """`mycelium.evaluate` with scores, a threshold or an extra metric (module docstring):
    ``inputs`` (`mycelium.core.inputs.Inputs`) under ``settings`` (whose ``asked`` are
    the metrics to plan), the span metrics scored by ``evaluate_spans``."""
    d = inputs
    plan = score_plan(settings.asked, d.predictions, soft_references=d.soft_references,
                      soft_predictions=d.soft_predictions, token_offsets=d.token_offsets,
                      token_scores=d.token_scores, threshold=settings.threshold,
                      granularity=settings.granularity, profile=settings.profile)
    rules = rules_of(settings.profile)
    si, lengths, ref, predictions = scored_inputs(
        plan, d.references, d.predictions, text=d.text, rules=rules,
        offsets=settings.offsets)
    soft_predictions = d.soft_predictions if d.soft_references is not None else None
    spans = replace(d, predictions=predictions, soft_predictions=soft_predictions)
    if settings.type_field is None:  # the per-type breakdown reads the raw spans
        spans = replace(spans, references=ref)
    with empty_spans_told(hold=True) as told:
        report, prepared, settings = evaluate_spans(
            spans, settings.scoring(plan.span_names,
                                    soft=soft_given(d.soft_references, soft_predictions)),
            keys)
    if plan.placeholder:
        # the references stood in for predictions nobody gave: none of them is predicted
        report.pop("iou")
        report["meta"]["empty_spans"]["predictions"] = 0
    told.tell(parts="references" if plan.placeholder else "sum")
    stats = pooled_statistics(prepared, pooled_names(plan), {}, settings.params,
                              tokens=plan_tokens(plan, si, ref, prepared, rules,
                                                 trim_spans=settings.trim_spans,
                                                 offsets=settings.offsets))
    keys = _keys(prepared, d.ids, keys)
    values, ci, per = score_report(si, lengths, prepared, stats, plan.extra, settings,
                                   include_per_example=settings.include_per_example,
                                   keys=keys) if (si is not None or stats) else ({}, None, {})
    return assemble(report, values, ci, per, prepared, settings, plan)


def pooled_names(plan: ScorePlan) -> list[str]:
    return [m for m in plan.extra if m in POOLED_METRICS]


def assemble(report, values, ci, per, prepared, settings, plan: ScorePlan) -> dict:
    """The report of a call with scores (`_assemble` under the plan)."""
    return _assemble(report, values, ci, per, prepared, settings,
                     placeholder=plan.placeholder, extra=plan.extra, form=plan.form,
                     threshold=plan.threshold)


def plan_tokens(plan: ScorePlan, si: ScoreInput | None, ref, prepared, rules: ScoreRules,
                *, trim_spans: str | None = None, offsets: str = "half-open"):
    """The kept examples' `mycelium.metrics.tokens.TokenLabels` when the call scores
    tokens at a threshold (every token given, zero-length ones included, against the
    reference spans as listed, read by ``offsets``), else None."""
    from ..metrics.tokens import label_tokens

    if si is None or si.blank is None or plan.threshold is None or plan.form is None \
            or "token_offsets" not in plan.form:
        return None
    assert ref is not None
    if trim_spans is not None and any(m in TOKEN_METRICS for m in plan.extra):
        raise ValueError("Expected token_level without trim_spans, got trim_spans="
                         f"{trim_spans!r}; tokens are labelled by the reference spans as "
                         "listed, so fix by scoring token_level in a separate call.")
    kept = prepared.kept
    si_k = si if kept.all() else si.take(kept)
    refs = inclusive_to_half_open(ref.batch, "references") if offsets == "inclusive" \
        else ref.batch
    refs = refs if kept.all() else refs.take(kept)
    assert si_k.blank is not None
    bx, bp, bs = si_k.blank
    example = np.concatenate([si_k.example, bx])
    tokens = (example, np.concatenate([si_k.starts, bp]), np.concatenate([si_k.ends, bp]))
    return label_tokens(si_k.n, (refs.example_ids, refs.starts, refs.ends), tokens,
                        np.concatenate([si_k.scores, bs]), float(plan.threshold),
                        inclusive=rules.inclusive)


def pooled_statistics(prepared, names, stats: dict, params=None, tokens=None) -> dict:
    """``stats`` with the per-example statistics of the pooled metrics in ``names`` added
    (``params``: the resolved metric parameters, `mycelium.core.settings.Settings.params`)."""
    from ..metrics.base import Workspace

    bad = [m for m in names if m not in POOLED_METRICS]
    if bad:
        raise ValueError(f"Expected metrics with per-example statistics, got {bad[0]!r}, "
                         "at metrics=; fix by asking mycelium.evaluate for it (AUROC and "
                         "AP are not sums of per-example statistics).")
    ws = Workspace(prepared.refs, prepared.preds, listed=prepared.listed, tokens=tokens)
    params = params or {}
    for m in names:
        stats[m] = POOLED_METRICS[m].compute(ws, params.get(m, {}))
    return stats


def score_signature(settings, plan: ScorePlan) -> str:
    """The signature of `mycelium.evaluate`'s report of a call with scores under ``plan``,
    made with ``settings`` (the span metrics' settings of the call): every metric named,
    the score form and the threshold recorded."""
    return _score_signature(settings.signature(), settings, placeholder=plan.placeholder,
                            extra=plan.extra, form=plan.form, threshold=plan.threshold)


def _score_signature(signature: str, settings, *, placeholder, extra, form, threshold) -> str:
    names = [m for m in settings.metrics if not (placeholder and m == "iou")] + list(extra)
    extra_params = {m: recorded_params(m, settings.params[m]) for m in extra
                    if m in settings.params}
    out = signature_with(signature, metrics=names, params=extra_params,
                         scores=None if form is None else form_name(form), threshold=threshold)
    assert out is not None
    return out


def _keys(prepared, ids, keys=None):
    from ..stats.bootstrap import example_keys

    if keys is not None:  # given by a frame face (`mycelium.evaluate.evaluate_settled`)
        return keys[prepared.kept]
    if ids is None:
        return np.flatnonzero(prepared.kept).astype(np.uint64)
    ids = list(ids)
    return example_keys(0, [i for i, k in zip(ids, prepared.kept) if k])


def _assemble(report, values, ci, per, prepared, settings, *, placeholder, extra, form,
              threshold) -> dict[str, Any]:
    meta = report.pop("meta")
    per_example = report.pop("per_example", None)
    intervals = report.pop("ci", None)
    by_type = report.pop("by_type", None)
    for m in extra:
        report[m] = values[m]
    extra_params = {m: recorded_params(m, settings.params[m]) for m in extra
                    if m in settings.params}
    meta["signature"] = _score_signature(meta["signature"], settings, placeholder=placeholder,
                                         extra=extra, form=form, threshold=threshold)
    if placeholder:
        meta["params"].pop("iou", None)
    meta["params"].update(extra_params)
    if form is not None:
        meta["scores"] = form_name(form)
    if threshold is not None:
        meta["threshold"] = float(threshold)
        if isinstance(threshold, Tuned):
            meta["tuned"] = threshold.metric
    if "response_level" in extra:
        meta["response_level_average"] = "micro"
    if "token_level" in extra:
        meta["token_level_average"] = "micro"
    if "response_auroc" in extra:
        meta["response_auroc_average"] = "micro"
    report["meta"] = meta
    if per_example is not None:
        pos = np.flatnonzero(prepared.kept).tolist()
        for m, vals in per.items():
            for i, p in enumerate(pos):
                per_example[p][m] = {"score": vals[i]}
        if placeholder:
            for row in per_example:
                if row is not None:
                    row.pop("iou", None)
        report["per_example"] = per_example
    if by_type is not None:
        report["by_type"] = by_type
    if intervals is not None or ci is not None:
        intervals = dict(intervals or {})
        if placeholder:
            intervals.pop("iou", None)
        intervals.update(ci or {})
        report["ci"] = intervals
    return report


