"""The dict face: `mycelium.evaluate` and `mycelium.statistics`.

The core pipeline (`mycelium.core.pipeline`: validated canonical spans, per-example
statistics), the views (`mycelium.views`: other units, per-type breakdowns) and the
intervals (`mycelium.stats.bootstrap`) assembled into one plain dict. The dataframe faces
reuse `prepare`, `build_report` and `intervals`, so every face computes the same numbers.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

import numpy as np

from ._version import __version__
from .core import pipeline
from .core.aggregate import aggregate, per_example
from .core.inputs import Inputs
from .core.pipeline import Prepared, compute_statistics, soft_given
from .core.profiles import Profile
from .core.score_rules import rules_of
from .core.provenance import dataset_of
from .core.signature import signature_with
from .core.settings import (Settings, profile_default_metrics, resolve_settings,
                            typed_options)
from .core.types import Average, Granularity, Missing, ProfileName, ZeroDivision
from .views.granularity import at_granularity

__all__ = ["evaluate", "statistics"]  # prepare, build_report, intervals: for the faces

OFFSET_CONVENTION = "half-open [start, end)"
#: `soft_spearman_by_label` gives the per-label rows itself: not with type_field.
LABELS_AND_TYPE_FIELD = (
    "Expected no type_field with metric 'soft_spearman_by_label', got both; its "
    "per-label breakdown ('by_type', the frames' per-type rows) reads each soft span's "
    "'label'. Fix by dropping type_field, or scoring the typed breakdown in a separate "
    "call without soft_spearman_by_label.")


def prepare(references: Any, predictions: Any, *, text: Any = None,
            missing: Missing = "error", granularity: Granularity = "char",
            trim_spans: str | None = None, offsets: str = "half-open",
            warn_empty: bool = True) -> Prepared:
    """`mycelium.core.pipeline.prepare`, the span edges trimmed when ``trim_spans`` is
    set (`mycelium.adapters.trim`), then the units of ``granularity``
    (`mycelium.views.granularity.at_granularity`) unless it is ``"char"``."""
    prepared = pipeline.prepare(references, predictions, text=text, missing=missing,
                                offsets=offsets, warn_empty=warn_empty)
    if trim_spans is not None:
        from .adapters.trim import trim_prepared

        prepared = trim_prepared(prepared, text, trim_spans)
    if granularity == "char":
        return prepared
    return at_granularity(prepared, text, granularity)


def prepare_for(references: Any, predictions: Any, settings: Settings, *,
                text: Any = None, warn_empty: bool = True) -> Prepared:
    """`prepare` under ``settings``: the one place the options that shape the spans
    (``missing``, ``offsets``, ``trim_spans``, ``granularity``) reach it. A face that
    prepares one call in several parts passes ``warn_empty=False`` and warns once itself
    (`mycelium.core.pipeline.warn_empty_spans`)."""
    return prepare(references, predictions, text=text, missing=settings.missing,
                   granularity=settings.granularity, trim_spans=settings.trim_spans,
                   offsets=settings.offsets, warn_empty=warn_empty)


def statistics(references: Any, predictions: Any, *, text: Any = None,
               metrics: str | Sequence[str] | None = None,
               params: Mapping[str, Mapping[str, Any]] | None = None,
               missing: Missing = "error") -> dict[str, dict[str, np.ndarray]]:
    """Per-example sufficient statistics of each metric.

    Takes the same inputs as `evaluate`. Every aggregate mycelium reports is a function
    of these arrays: micro sums them, macro finalises each example, groups and
    resampling re-sum them.

    Parameters
    ----------
    references, predictions : spans of one example or a batch
        As in `evaluate`.
    text : str, sequence of str or None
        The output text(s); when given, every span must end within it.
    metrics : str or sequence of str, optional
        Span metrics (default: all; ``soft_spearman`` has no statistics).
    params : dict, optional
        Metric parameters, e.g. ``{"deteval_1d": {"recall_threshold": 0.8}}``.
    missing : {"error", "empty", "drop"}
        What a null span list in a batch means.

    Returns
    -------
    dict
        ``{metric: {statistic: numpy array of length n_examples}}`` in input order
        (examples dropped by ``missing="drop"`` are left out). Each metric module
        (``mycelium.metrics.<name>``) defines its statistics.

    Raises
    ------
    SpanValidationError, ValueError, TypeError
        As for `evaluate`: bad spans or nulls (the message names side, example and
        span), bad option values or sides of different lengths, inputs of the wrong type.

    Examples
    --------
    >>> st = statistics([[[0, 10]], [[4, 7]]], [[[2, 8]], [[4, 7]]], metrics=["iou"])
    >>> st["iou"]["inter"].tolist(), st["iou"]["union"].tolist()
    ([6, 3], [10, 3])
    """
    from .scores.plan import split_metrics
    from .scores.spans import pooled_statistics

    rest, pooled = split_metrics(metrics)
    settings = resolve_settings(metrics=rest or None if pooled else metrics, params=params,
                                missing=missing)
    prepared = pipeline.prepare(references, predictions, text=text, missing=missing)
    if pooled:  # response_level (SPEC section 9); score metrics have no such statistics
        return pooled_statistics(prepared, pooled, compute_statistics(
            prepared.refs, prepared.preds, settings.span_metrics if rest else (),
            settings.params), settings.params)
    return compute_statistics(prepared.refs, prepared.preds, settings.span_metrics,
                              settings.params)


def evaluate(references: Any, predictions: Any = None, *, text: Any = None,
             profile: ProfileName | str | Profile | None = None,
             metrics: str | Sequence[str] | None = None, average: Average | None = None,
             zero_division: ZeroDivision | None = None, include_per_example: bool = False,
             soft_references: Any = None, soft_predictions: Any = None,
             params: Mapping[str, Mapping[str, Any]] | None = None,
             missing: Missing = "error", ci: float | None = None, n_resamples: int = 1000,
             seed: int = 0, progress: bool | None = None, granularity: Granularity = "char",
             type_field: str | None = None, typed_matching: bool = False,
             ids: Sequence[Any] | None = None, trim_spans: str | None = None,
             token_offsets: Any = None, token_scores: Any = None,
             threshold: float | None = None, offsets: str = "half-open") -> dict[str, Any]:
    """Score predicted hallucination spans against reference spans.

    Parameters
    ----------
    references, predictions : spans of one example or a batch
        One example is a sequence of spans (``[[0, 10], [12, 15]]``; ``[]`` has no
        spans); a batch is a sequence of span sets, an Arrow array, or a pandas / Polars
        Series. A span is ``[start, end]``, ``(start, end)`` or ``{"start", "end"}``:
        half-open ``[start, end)`` code-point offsets.
    text : str, sequence of str or None
        The output text(s); when given, every span must end within it.
    profile : {"mu_shroom", "ragtruth"}, Profile or None
        Benchmark conventions; explicit arguments win over the profile.
    metrics : str or sequence of str, optional
        Any of ``exact_span``, ``iou``, ``character``, ``deteval_1d``, ``cleval_1d``,
        ``span_coverage`` (and ``soft_spearman`` with soft labels); from scores,
        ``char_auroc``, ``char_ap``, ``response_auroc``; and ``response_level``
        (always pooled); ``typed_span`` with ``type_field`` (its scheme in
        ``params={"typed_span": {"scheme": ...}}``, `mycelium.metrics.typed_span`;
        never in the default set). Default: the span metrics; with scores, the three
        score metrics too, and ``response_level`` when there are predictions or a
        threshold.
    average : {"macro", "micro"}, optional
        macro: mean of per-example values; micro: computed from summed statistics.
        Default: the profile's, else macro.
    zero_division : {0.0, 1.0, "nan"}, optional
        Value of an undefined (0/0) precision or recall; "nan" leaves the example out
        of macro means. Default: the profile's, else 0.0.
    include_per_example : bool
        Add ``report["per_example"]``: one dict per input example (None if dropped).
    soft_references, soft_predictions : optional
        Soft labels (``{start, end, prob}`` lists) for ``soft_spearman`` (needs both).
        ``soft_predictions`` alone is a score form: it feeds ``char_auroc``, ``char_ap``,
        ``response_auroc`` and ``threshold`` (`mycelium.scores.spans`, SPEC section 9).
    token_offsets, token_scores : optional
        The other score form: per example the tokens' ``(start, end)`` code-point offsets
        and one score in [0, 1] per token (a character takes its highest covering score).
        Python lists, per-example numpy arrays, or pyarrow list arrays / Arrow-backed
        columns (``list<fixed_size_list<int, 2>>``, ``list<list<int>>`` or
        ``list<struct<start, end>>`` offsets, ``list<float>`` scores), read column-wise
        (`mycelium.core.token_input`); every form gives the same values and errors.
    threshold : float, optional
        With scores and no ``predictions``: the spans at ``threshold`` (scores ``> t``,
        `mycelium.spans_at`) are the predictions of every span metric. ``meta`` and the
        signature record it (and ``tuned:<metric>`` for a `mycelium.tune_threshold` value).
    params : dict, optional
        Metric parameters, e.g. ``{"deteval_1d": {"recall_threshold": 0.8}}``.
    missing : {"error", "empty", "drop"}
        What a null span list in a batch means.
    ci : float, optional
        Confidence level (e.g. 0.95) of percentile-bootstrap intervals, added as
        ``report["ci"][metric][measure] = {"low": ..., "high": ...}``; the values stay
        the full-data estimates. Resampling is the Poisson bootstrap over examples
        (`mycelium.stats.bootstrap`), keyed by example position and ``seed``. A resample
        that draws no example (all weights 0) is left out of every interval, micro
        and macro; ``meta["ci"]["empty_resamples"]`` says how many were.
    n_resamples, seed : int
        Number of resamples and seed of the intervals (recorded in the signature).
    ids : sequence, optional
        One id per input example: the resampling keys of the intervals (by default the
        examples' positions). With ids, an example keeps its resampling weights wherever
        it sits, so intervals do not depend on row order and equal those of the frame
        faces keyed by the same ``id_col``. The signature records which keys were used.
    progress : bool, optional
        Show a progress bar while resampling (tqdm's where installed; default: only on
        a terminal or in a notebook, for long runs).
    granularity : {"char", "word", "sentence"}
        Unit of scoring (needs ``text``): spans mark the words or sentences they touch
        and every metric counts units instead of characters (`mycelium.views.granularity`).
    type_field : str, optional
        Name of the span field holding a hallucination type (e.g. ``"label_type"``):
        adds ``report["by_type"]``, per type the reference-side measures and counts
        (`mycelium.views.typology` says which measures and why); the metric
        ``typed_span`` reads its types from it.
    typed_matching : bool
        With ``type_field``, restrict predictions to each type too (they must carry
        the field) and report every measure per type.
    trim_spans : {"whitespace", "punctuation"}, optional
        Boundary normalisation (needs ``text``; off by default): strip Unicode
        White_Space, or White_Space and punctuation (P*), from both ends of every span
        of both sides before scoring; a span of nothing else is dropped. Recorded in
        the signature (``trim_spans:<mode>``). Not combined with ``type_field``.
    offsets : {"half-open", "inclusive"}, default "half-open"
        How the spans' offsets are read: half-open ``[start, end)``, or inclusive
        ``[start, end]`` (a one-character span written ``[7, 7]``), read as
        ``[start, end + 1)`` before anything is checked. Recorded in the signature
        (``offsets:inclusive``). Zero-length spans are valid but carry no characters:
        they are counted in ``meta["empty_spans"]`` and one `mycelium.EmptySpanWarning`
        names the first. The per-type rows read the spans the same way; token offsets,
        soft-label spans and the spans a threshold makes stay half-open.

    Returns
    -------
    dict
        ``{metric: {measure: float}}`` for each metric, then ``meta`` (examples,
        average, offset_convention, profile, zero_division, params, version,
        signature, missing, dropped). When ``references`` (or ``predictions``) is a
        column of a frame a benchmark loader read, ``meta["dataset"]`` is its
        ``<name>@sha256:<12 hex>`` and the signature ends with the dataset fields
        (`mycelium.io.provenance`).

    Raises
    ------
    SpanValidationError
        Bad spans or nulls (message names side, example and span).
    ValueError
        Bad option values, or sides of different lengths.
    TypeError
        Inputs of the wrong type.

    Notes
    -----
    Each metric's module docstring (``mycelium.metrics.<name>``) gives its exact
    definition, its statistics and its undefined cases. F1 of P = a/b and R = c/d is
    ``2ac / (ad + bc)``; macro F1 is the mean of per-example F1 values.

    Examples
    --------
    >>> r = evaluate([[0, 10]], [[2, 8]], text="0123456789", metrics=["iou", "character"])
    >>> r["iou"], r["character"]
    ({'score': 0.6}, {'precision': 1.0, 'recall': 0.6, 'f1': 0.75})
    >>> evaluate([[[0, 10]], [[4, 7]]], [[[2, 8]], [[4, 7]]], metrics="iou",
    ...          average="micro")["iou"]["score"]
    0.6923076923076923
    >>> r = evaluate([[2, 6]], text="abcdefgh", threshold=0.5, metrics=["iou", "char_auroc"],
    ...              token_offsets=[(0, 2), (2, 4), (4, 6), (6, 8)],
    ...              token_scores=[0.1, 0.9, 0.6, 0.2])
    >>> r["iou"], r["char_auroc"], r["meta"]["threshold"], r["meta"]["scores"]
    ({'score': 1.0}, {'score': 1.0}, 0.5, 'token')
    """
    # The parameters, taken before any other name is bound: the data and the options.
    return evaluate_settled(*settled(locals()))


def settled(arguments: Mapping[str, Any]) -> tuple[Inputs, Settings]:
    """`evaluate`'s bound ``arguments`` as (its data, its settings): the one place its
    options are checked (`mycelium.core.settings.resolve_settings`)."""
    inputs, options = Inputs.split(arguments)
    settings = resolve_settings(**options, ids=inputs.ids is not None, plan=True)
    return inputs.soft_from_spans(settings.profile), settings


def evaluate_keyed(keys, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """`evaluate` with the examples' bootstrap keys given (``uint64``, one per input
    example) instead of their positions or ids: the frame faces key a group's rows by
    their positions in the whole frame, as the span engine does
    (`mycelium.frames.engine.with_intervals`)."""
    import inspect

    bound = inspect.signature(evaluate).bind(*args, **kwargs)
    bound.apply_defaults()
    return evaluate_settled(*settled(bound.arguments), np.asarray(keys, dtype=np.uint64))


def evaluate_settled(inputs: Inputs, settings: Settings, keys=None) -> dict[str, Any]:
    """`evaluate` of ``inputs`` under ``settings`` (as `settled` builds them)."""
    from .core.inputs import zero_batch
    from .scores import spans as scoring

    # [] beside text=[] is a batch of zero examples, on every form
    inputs = replace(inputs, references=zero_batch(inputs.references, inputs.text),
                     predictions=zero_batch(inputs.predictions, inputs.text))
    metrics: Any = settings.asked
    d = inputs
    if metrics is None and d.predictions is not None and settings.threshold is None \
            and not scoring.score_form_given(d.soft_references, d.soft_predictions,
                                             d.token_offsets, d.token_scores):
        # a profile's extra metrics (ragtruth: response_level) join its default set
        metrics = profile_default_metrics(
            settings.profile, soft=soft_given(d.soft_references, d.soft_predictions))
    if scoring.wanted(metrics, d.soft_references, d.soft_predictions, d.token_offsets,
                      d.token_scores, settings.threshold, d.predictions):
        report = scoring.evaluate_scores(_evaluate_spans, inputs,
                                         replace(settings, asked=_names(metrics)), keys)
    else:
        report = _evaluate_spans(inputs, settings.scoring(metrics, soft=soft_given(
            d.soft_references, d.soft_predictions)), keys)[0]
    return with_dataset(report, dataset_of(d.references, d.predictions))


def _names(metrics) -> tuple[str, ...] | None:
    return (metrics,) if isinstance(metrics, str) else \
        None if metrics is None else tuple(metrics)


def with_dataset(report: dict[str, Any], dataset) -> dict[str, Any]:
    """``report`` with a loader's provenance in ``meta`` and its signature (if known)."""
    if dataset is not None:
        meta = report["meta"]
        meta["signature"] = signature_with(meta["signature"], dataset=dataset)
        meta["dataset"] = dataset.tag
    return report


def _evaluate_spans(inputs: Inputs, settings: Settings, keys=None):
    """`evaluate` of spans: (report, prepared, settings); ``settings`` score the span
    metrics (`Settings.scoring`); ``keys`` (one per input example) key the resamples
    instead of the positions or ids (`evaluate_settled`)."""
    references, predictions, text = inputs.references, inputs.predictions, inputs.text
    soft_references, soft_predictions = inputs.soft_references, inputs.soft_predictions
    soft = soft_given(soft_references, soft_predictions)
    type_field, ids = settings.type_field, inputs.ids
    typed_options(settings)
    prepared = prepare_for(references, predictions, settings, text=text)
    stats = compute_statistics(prepared.refs, prepared.preds, settings.span_metrics,
                               settings.params)
    if "typed_span" in settings.metrics:
        from .views.typology import typed_span_for

        stats["typed_span"] = typed_span_for(references, predictions, settings, prepared)
    breakdown = None
    if soft:
        from .metrics.soft_labels import soft_label_statistics

        soft_stats, breakdown = soft_label_statistics(
            soft_references, soft_predictions, prepared, text=text,
            metrics=settings.metrics, rules=rules_of(settings.profile))
        stats.update(soft_stats)
    report = build_report(stats, settings, prepared, settings.include_per_example)
    if breakdown is not None:
        from .views.soft_labels import label_rows

        if type_field is not None:
            raise ValueError(LABELS_AND_TYPE_FIELD)
        report["by_type"] = label_rows(breakdown)
    if type_field is not None:
        report["by_type"] = by_type(references, predictions, settings, prepared,
                                    type_field=type_field,
                                    typed_matching=settings.typed_matching)
    if settings.bootstrap is not None:
        kept_ids = None
        if ids is not None:
            ids = list(ids)
            if len(ids) != prepared.n_input:
                raise ValueError(f"ids has {len(ids)} entries but there are "
                                 f"{prepared.n_input} examples; give one id per example.")
            kept_ids = [i for i, k in zip(ids, prepared.kept) if k]
        report["ci"] = intervals(stats, settings, np.flatnonzero(prepared.kept),
                                 ids=kept_ids, progress=settings.progress, estimates=report,
                                 meta=report["meta"]["ci"],
                                 keys=None if keys is None else keys[prepared.kept])
    return report, prepared, settings


def by_type(references, predictions, settings: Settings, prepared: Prepared, *,
            type_field: str, typed_matching: bool) -> dict:
    """``{type: {"examples", "n_ref", metric: {measure: value}}}`` (`mycelium.views.typology`)."""
    from .views.typology import typed_for

    typed = typed_for(references, predictions, settings, prepared, type_field=type_field,
                      typed_matching=typed_matching)
    wanted = typed.measures_of(settings.span_metrics)
    out = {}
    for t in typed.types:
        rows = typed.present[t]
        sub = {m: {k: v[rows] for k, v in st.items()} for m, st in typed.stats[t].items()}
        values = aggregate(sub, average=settings.average,
                           zero_division=settings.zero_division, params=settings.params)
        entry: dict[str, Any] = {"examples": int(rows.sum()),
                                 "n_ref": int(typed.n_ref[t].sum())}
        for metric, measures in values.items():
            keep = {k: v for k, v in measures.items()
                    if wanted is None or (metric, k) in wanted}
            if keep:
                entry[metric] = keep
        out[t] = entry
    return out


def intervals(stats, settings: Settings, positions: np.ndarray, *, ids=None,
              progress=None, estimates=None, meta=None, keys: np.ndarray | None = None
              ) -> dict[str, dict[str, dict[str, float]]]:
    """Percentile-bootstrap interval of every metric and measure (`mycelium.stats.bootstrap`).

    Examples are keyed by their input ``positions`` (or by ``ids`` when given, or by
    the ``keys`` `mycelium.stats.bootstrap.example_keys` made of them).
    Resamples that draw no example are left out of every interval; their number is
    written to ``meta["empty_resamples"]`` when a ``meta`` dict is given.
    """
    from .core.progress import running, wanted
    from .stats.bootstrap import example_keys, percentile_interval, resampled_values

    b = settings.resampling()
    if keys is None:  # given: the examples' resampling keys, already made from their ids
        keys = example_keys(0, ids) if ids is not None else positions.astype(np.uint64)
    with running(b.n_resamples, "bootstrap", wanted(progress, b.n_resamples * keys.size),
                 unit="resample") as bar:
        values = resampled_values(stats, keys=keys, average=settings.average,
                                  zero_division=settings.zero_division,
                                  params=settings.params, seed=b.seed,
                                  n_resamples=b.n_resamples, progress=bar.update)
    if meta is not None:
        meta["empty_resamples"] = values.n_empty
    out: dict[str, dict[str, dict[str, float]]] = {}
    for metric in settings.metrics:
        out[metric] = {}
        for measure, arr in values[metric].items():
            estimate = estimates[metric][measure] if estimates is not None else 0.0
            low, high = percentile_interval(arr, b.ci, estimate)
            out[metric][measure] = {"low": low, "high": high}
    return out


def build_report(stats, settings: Settings, prepared: Prepared,
                 include_per_example: bool) -> dict[str, Any]:
    """The report dict: metric values in registry order, then ``meta``."""
    values = aggregate(stats, average=settings.average,
                       zero_division=settings.zero_division_option, params=settings.params)
    report: dict[str, Any] = {m: values[m] for m in settings.metrics}
    report["meta"] = _meta(settings, prepared)
    if include_per_example:
        report["per_example"] = _per_example_dicts(stats, settings, prepared)
    return report


def _meta(settings: Settings, prepared: Prepared) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "examples": int(prepared.kept.sum()),
        "average": settings.average,
        "offset_convention": OFFSET_CONVENTION if settings.offsets == "half-open"
        else "inclusive [start, end], read as [start, end + 1)",
        "profile": settings.profile.name if settings.profile else None,
        "zero_division": settings.zero_division_label,
        "params": settings.used_params(),
        "version": __version__,
        "signature": settings.signature(),
        "missing": settings.missing,
        "dropped": int((~prepared.kept).sum()),
        "empty_spans": {"references": prepared.empty_spans[0],
                        "predictions": prepared.empty_spans[1]},
        "granularity": settings.granularity,
    }
    if settings.trim_spans is not None:
        meta["trim_spans"] = settings.trim_spans
    if "soft_spearman" in settings.metrics:
        meta["soft_spearman_average"] = "macro"
    if settings.bootstrap is not None:
        b = settings.bootstrap
        meta["ci"] = {"level": b.ci, "n_resamples": b.n_resamples, "seed": b.seed,
                      "method": "Poisson bootstrap over examples, percentile interval"}
    return meta


def _per_example_dicts(stats, settings: Settings, prepared: Prepared) -> list:
    values = per_example(stats, zero_division=settings.zero_division,
                         params=settings.params)
    lists = {m: {k: v.tolist() for k, v in values[m].items()} for m in settings.metrics}
    rows: list = [None] * prepared.n_input
    for i, pos in enumerate(np.flatnonzero(prepared.kept).tolist()):
        rows[pos] = {m: {k: v[i] for k, v in meas.items()} for m, meas in lists.items()}
    return rows
