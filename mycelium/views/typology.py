"""Results broken down by the type of hallucination a reference span carries.

Reference spans may carry a type in a named field (RAGTruth's ``label_type``, or any
struct field / dict key). For each type t, the reference side is restricted to the spans
of type t and scored against **all** predictions. Only measures that look at the
reference side alone are meaningful then, so a breakdown reports, per type:

- ``exact_span`` recall — type-t spans predicted exactly;
- ``character`` recall — share of type-t characters predicted;
- ``span_coverage`` recall — type-t spans containing a prediction;
- counts: ``n_ref`` (type-t spans) and ``examples`` (examples with at least one).

Precision-side measures (and IoU, DetEval, CLEval, whose matching couples both sides)
stay untyped: an untyped prediction cannot be charged to one type. When predictions
carry types too (``typed_matching=True``), both sides are restricted to type t and every
requested metric is computed per type — typed matching.

Per type, the examples are those with at least one span of that type (on either side
under typed matching); micro sums and macro means run over those examples only. Exact
duplicate spans of one type collapse as everywhere; a span listed under two types
counts once in each.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..core.columns import is_null, arrow_or_python
from ..core.inputs import convert
from ..core.pipeline import compute_statistics
from ..core.spans import SpanBatch, canonicalize, inclusive_to_half_open, validate

__all__ = ["REFERENCE_SIDE", "TypedStatistics", "typed_statistics", "span_field",
           "typed_span", "typed_span_statistics", "typed_measures"]

#: Marks a span that has no type field at all (as opposed to a null type).
ABSENT = type("Absent", (), {"__repr__": lambda self: "ABSENT"})()

#: (metric, measure) reported per type when only references are typed.
REFERENCE_SIDE = (("exact_span", "recall"), ("character", "recall"),
                  ("span_coverage", "recall"))


@dataclass(frozen=True)
class TypedStatistics:
    """Per type: the statistics of every kept example and which examples have the type.

    Attributes
    ----------
    types : list
        The types found, sorted (None, the "no type" group, last).
    stats : dict
        ``{type: {metric: {statistic: array over kept examples}}}``.
    present : dict
        ``{type: bool array}``: the examples that have a span of the type.
    n_ref : dict
        ``{type: int array}``: the number of type-t reference spans per example.
    typed_matching : bool
        Whether predictions were restricted to each type too.
    """

    types: list
    stats: dict            # type -> {metric: {statistic: array over kept examples}}
    present: dict          # type -> bool array over kept examples
    n_ref: dict            # type -> int array over kept examples (type-t reference spans)
    typed_matching: bool

    def measures_of(self, metrics) -> list[tuple[str, str]] | None:
        """(metric, measure) pairs reported per type; None = every measure.

    Without typed matching only the reference-side measures (`REFERENCE_SIDE`) are
    meaningful per type: an untyped prediction cannot be charged to one type, so
    precision-side measures and the metrics coupling both sides stay untyped.

    Parameters
    ----------
    metrics : collection of str
        The metrics of the call.

    Returns
    -------
    list of tuple or None
        ``[(metric, measure), ...]``, or None for every measure.
    """
        return typed_measures(metrics, self.typed_matching)


def typed_measures(metrics, typed_matching: bool) -> list[tuple[str, str]] | None:
    """`TypedStatistics.measures_of` of a call scoring ``metrics``.

    Examples
    --------
    >>> typed_measures(["character", "iou"], False)
    [('character', 'recall')]
    >>> typed_measures(["character", "iou"], True) is None
    True
    """
    if typed_matching:
        return None
    return [(m, k) for m, k in REFERENCE_SIDE if m in metrics]


def typed_statistics(references, predictions, *, type_field: str, kept: np.ndarray,
                     text_lengths, metrics, params, typed_matching: bool = False,
                     offsets: str = "half-open") -> TypedStatistics:
    """Statistics per reference type (see the module docstring).

    Parameters
    ----------
    references, predictions : span sets
        As given to `mycelium.evaluate`; reference spans carry ``type_field`` (and
        predictions too with ``typed_matching``).
    type_field : str
        The span field holding the type, e.g. ``"label_type"``.
    kept : numpy.ndarray
        Bool per input example: the examples scored (``missing="drop"`` drops some).
    text_lengths : numpy.ndarray or None
        ``len(text)`` per kept example (-1 unknown), or None.
    metrics : sequence of str
        The span metrics of the call.
    params : mapping
        Metric parameters.
    typed_matching : bool
        Restrict predictions to each type too.
    offsets : {"half-open", "inclusive"}
        How the spans' ends are written (``"inclusive"``: ``[s, e]`` read as
        ``[s, e + 1)``, as `mycelium.evaluate` reads them).

    Returns
    -------
    TypedStatistics

    Raises
    ------
    KeyError
        Arrow span structs without ``type_field``.
    SpanValidationError
        Bad spans, or (typed matching) a prediction without the field.

    Examples
    --------
    >>> import numpy as np
    >>> refs = [[{"start": 0, "end": 4, "label_type": "Evident"},
    ...          {"start": 6, "end": 9, "label_type": "Subtle"}]]
    >>> ts = typed_statistics(refs, [[[0, 4]]], type_field="label_type",
    ...                       kept=np.array([True]), text_lengths=None,
    ...                       metrics=["character"], params={})
    >>> ts.types, ts.measures_of(["character"])
    (['Evident', 'Subtle'], [('character', 'recall')])
    >>> {t: int(ts.stats[t]["character"]["fn"][0]) for t in ts.types}
    {'Evident': 0, 'Subtle': 3}
    """
    refs, ref_types = _typed_side(references, "references", type_field, kept, text_lengths,
                                  offsets)
    if typed_matching:
        preds, pred_types = _typed_side(predictions, "predictions", type_field, kept,
                                        text_lengths, offsets)
        names = list(metrics)
    else:
        preds = canonicalize(_spans_of(predictions, "predictions", offsets).take(kept))
        pred_types = None
        names = [m for m, _ in REFERENCE_SIDE if m in metrics]
    types = sorted_types(ref_types, pred_types)
    out_stats, present, n_ref = {}, {}, {}
    for t in types:
        r = canonicalize(_only(refs, ref_types, t))
        p = canonicalize(_only(preds, pred_types, t)) if typed_matching else preds
        out_stats[t] = compute_statistics(r, p, names, params)
        n_ref[t] = r.counts
        present[t] = (r.counts > 0) | ((p.counts > 0) if typed_matching else False)
    return TypedStatistics(types, out_stats, present, n_ref, typed_matching)


def typed_span_statistics(references, predictions, *, type_field: str,
                          scheme: str = "strict") -> dict[str, np.ndarray]:
    """Per-example statistics of the ``typed_span`` metric (`mycelium.metrics.typed_span`).

    Both sides carry the type in ``type_field``; a span without the field (or with a
    null) has the type None, which matches only None.

    Parameters
    ----------
    references, predictions : span sets
        As given to `mycelium.evaluate`, spans as dicts or structs with ``type_field``.
    type_field : str
        The span field holding the type, e.g. ``"label"``.
    scheme : {"strict", "exact", "partial", "type"}

    Returns
    -------
    dict
        ``{statistic: int64 array over examples}``: correct, incorrect, partial, missed,
        spurious.

    Raises
    ------
    KeyError
        No span of a side has ``type_field``.
    SpanValidationError
        Bad spans.

    Examples
    --------
    >>> refs = [[{"start": 0, "end": 5, "label": "U"}]]
    >>> preds = [[{"start": 0, "end": 5, "label": "Q"}]]
    >>> st = typed_span_statistics(refs, preds, type_field="label", scheme="exact")
    >>> int(st["correct"][0]), int(st["incorrect"][0])
    (1, 0)
    """
    from ..metrics.typed_span import TypedSpans, typed_statistics

    sides = []
    for obj, side in ((references, "references"), (predictions, "predictions")):
        n = convert(obj, side).batch.n_examples
        batch, types = _typed_side(obj, side, type_field, np.ones(n, dtype=bool), None)
        sides.append(TypedSpans(batch.offsets, batch.starts, batch.ends, types))
    return typed_statistics(sides[0], sides[1], scheme)


def typed_span(references, predictions, *, type_field: str, scheme: str = "strict",
               average: str = "micro", zero_division: float = 0.0) -> dict[str, float]:
    """Precision, recall and F1 of typed spans under one of the four NER schemes.

    Parameters
    ----------
    references, predictions : span sets
        Spans as dicts or structs carrying ``type_field``.
    type_field : str
        The span field holding the type.
    scheme : {"strict", "exact", "partial", "type"}
        See `mycelium.metrics.typed_span`.
    average : {"micro", "macro"}
        Micro: the measures of the summed counts; macro: the mean of each example's.
    zero_division : float
        The value of an undefined precision or recall.

    Returns
    -------
    dict
        ``{"precision", "recall", "f1"}``.

    Examples
    --------
    >>> refs = [[{"start": 0, "end": 10, "label": "U"}]]
    >>> preds = [[{"start": 0, "end": 6, "label": "U"}]]
    >>> typed_span(refs, preds, type_field="label", scheme="partial")
    {'precision': 0.5, 'recall': 0.5, 'f1': 0.5}
    >>> typed_span(refs, preds, type_field="label", scheme="type")
    {'precision': 1.0, 'recall': 1.0, 'f1': 1.0}
    """
    from ..metrics.typed_span import measures

    st = typed_span_statistics(references, predictions, type_field=type_field,
                               scheme=scheme)
    return measures(st, scheme, average=average, zero_division=zero_division)


def typed_span_for(references, predictions, settings, prepared) -> dict[str, np.ndarray]:
    """The ``typed_span`` statistics of a call's kept examples (`Prepared.kept`; the
    examples ``missing="drop"`` left out are left out here too), under its
    ``params["typed_span"]["scheme"]``, with the type read from its ``type_field``."""
    from ..core.settings import TYPED_SPAN_NEEDS_FIELD
    from ..metrics.typed_span import TypedSpans
    from ..metrics.typed_span import typed_statistics as by_scheme

    if settings.type_field is None:
        raise ValueError(TYPED_SPAN_NEEDS_FIELD)
    if settings.granularity != "char":
        raise ValueError(f"Expected granularity='char' with typed_span, got "
                         f"{settings.granularity!r}; fix by scoring typed_span in a "
                         "separate call at character granularity.")
    sides = [TypedSpans(*_offsets_spans(*_typed_side(obj, side, settings.type_field,
                                                     prepared.kept, prepared.text_lengths,
                                                     settings.offsets)))
             for obj, side in ((references, "references"), (predictions, "predictions"))]
    return by_scheme(sides[0], sides[1], settings.params["typed_span"]["scheme"])


def _offsets_spans(batch: SpanBatch, types) -> tuple:
    return batch.offsets, batch.starts, batch.ends, types


def typed_for(references, predictions, settings, prepared, *, type_field: str,
              typed_matching: bool) -> TypedStatistics:
    """`typed_statistics` under a call's settings (character granularity only)."""
    if settings.granularity != "char":
        raise ValueError("type_field works at character granularity only.")
    return typed_statistics(references, predictions, type_field=type_field,
                            kept=prepared.kept, text_lengths=prepared.text_lengths,
                            metrics=settings.span_metrics, params=settings.params,
                            typed_matching=typed_matching, offsets=settings.offsets)


def _spans_of(obj, side: str, offsets: str) -> SpanBatch:
    """The spans of one side, half-open (``offsets="inclusive"``: each end + 1)."""
    batch = convert(obj, side).batch
    return inclusive_to_half_open(batch, side) if offsets == "inclusive" else batch


def _typed_side(obj, side: str, field: str, kept, text_lengths, offsets: str = "half-open"):
    converted = convert(obj, side)
    batch = _spans_of(obj, side, offsets) if offsets != "half-open" else converted.batch
    validate(batch, side, None if text_lengths is None else _full(text_lengths, kept))
    types = span_field(obj, field, side, single=converted.single)
    if types.size != converted.batch.n_spans:
        raise ValueError(f"internal: {side} types do not align with spans")
    if types.size and all(t is ABSENT for t in types):
        raise KeyError(f"{side}: no span has a {field!r} field; give the spans as dicts or "
                       f"structs with that field (e.g. {{'start': 0, 'end': 5, {field!r}: "
                       "'...'}) or check the field name.")
    types = np.array([None if t is ABSENT else t for t in types], dtype=object)
    span_kept = np.repeat(kept, batch.counts)
    return batch.take(kept), types[span_kept]


def _full(lengths, kept):
    out = np.full(kept.size, -1, dtype=np.int64)
    out[kept] = lengths
    return out


def _only(batch: SpanBatch, types, t) -> SpanBatch:
    mask = np.array([_same(x, t) for x in types], dtype=bool) if types.size else \
        np.zeros(0, dtype=bool)
    counts = np.bincount(batch.example_ids[mask], minlength=batch.n_examples)
    offsets = np.zeros(batch.n_examples + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return SpanBatch(offsets, batch.starts[mask], batch.ends[mask])


def _same(x, t) -> bool:
    return (x is None and t is None) or x == t


def sorted_types(ref_types, pred_types) -> list:
    values = set(ref_types.tolist())
    if pred_types is not None:
        values |= set(pred_types.tolist())
    named = sorted((v for v in values if v is not None), key=lambda v: (str(type(v)), v))
    return named + ([None] if None in values else [])


def span_field(obj, field: str, side: str, *, single: bool) -> np.ndarray:
    """The value of ``field`` for every span, in the order `convert` flattens spans.

    Spans without the field (pairs, or dicts lacking the key) get `ABSENT`; a field
    that is present but null gives None (the "no type" group).

    Parameters
    ----------
    obj : span sets
        One side, in any accepted form.
    field : str
        The span field to read.
    side : str
        ``"references"`` or ``"predictions"`` (for messages).
    single : bool
        ``obj`` is one example rather than a batch.

    Returns
    -------
    numpy.ndarray
        An object array with one value per span (null span lists contribute none).

    Raises
    ------
    KeyError
        Arrow span structs without ``field``.

    Examples
    --------
    >>> refs = [[{"start": 0, "end": 4, "label_type": "Evident"}, [6, 9]], None]
    >>> span_field(refs, "label_type", "references", single=False).tolist()
    ['Evident', ABSENT]
    """
    obj = arrow_or_python(obj)
    if isinstance(obj, (pa.Array, pa.ChunkedArray)):
        return _arrow_field(obj, field, side)
    examples = [obj] if single else list(obj)
    values: list = []
    for k, spans in enumerate(examples):
        if isinstance(spans, (str, bytes)):
            spans = json.loads(spans)
        if spans is None or is_null(spans):
            continue
        if isinstance(spans, np.ndarray):
            spans = list(spans)
        if isinstance(spans, Mapping) or not isinstance(spans, Sequence):
            continue  # convert() has already rejected it
        values.extend(s.get(field, ABSENT) if isinstance(s, Mapping) else ABSENT
                      for s in spans)
    return np.array(values, dtype=object)


def _arrow_field(arr, field: str, side: str) -> np.ndarray:
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    child = arr.flatten()
    if not pa.types.is_struct(child.type):
        return np.full(len(child), None, dtype=object)
    names = [child.type.field(i).name for i in range(child.type.num_fields)]
    if field not in names:
        raise KeyError(f"{side}: span structs have no field {field!r}; they have {names}.")
    return np.array(child.field(field).to_pylist(), dtype=object)
