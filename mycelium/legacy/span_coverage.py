"""Span Coverage precision, recall and F1 over INCLUSIVE ``[start, end]`` offsets.

A single standard-library file kept for existing experiments: copy it anywhere and
``import span_coverage`` works; it imports nothing from mycelium. The rest of mycelium
uses half-open ``[start, end)`` offsets; the legacy span ``[s, e]`` is ``[s, e + 1)``
there, and both conventions give the same Span Coverage scores.
"""

import math
import operator
from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from fractions import Fraction
from itertools import accumulate
from typing import Literal, NamedTuple, Union

__all__ = ["SpanCoverageCounts", "span_coverage", "span_coverage_counts"]

_AVERAGES = ("macro", "micro")
_SPAN_HELP = (
    "[start, end], (start, end) or {'start': start, 'end': end} with integers "
    "0 <= start <= end (INCLUSIVE offsets: [2, 8] covers characters 2..8)"
)


class SpanCoverageCounts(NamedTuple):
    """The four Span Coverage counts of one example (each side counted as a set)."""

    n_pred_contained: int
    n_pred: int
    n_ref_covered: int
    n_ref: int


def _is_sequence(obj):
    """True for list-like containers (lists, tuples, numpy rows), False for str/bytes/dicts."""
    if isinstance(obj, (str, bytes, bytearray, Mapping)):
        return False
    return hasattr(obj, "__len__") and hasattr(obj, "__getitem__")


def _looks_like_span(obj):
    return isinstance(obj, Mapping) or (
        _is_sequence(obj) and len(obj) > 0 and not _is_sequence(obj[0])
        and not isinstance(obj[0], Mapping)
    )


def _is_batch(obj):
    """A batch is a sequence of span sets: its first item is empty or holds spans."""
    if len(obj) == 0:
        return False  # ``[]`` is one example with no spans
    first = obj[0]
    if not _is_sequence(first):
        return False
    return len(first) == 0 or not _looks_like_span(first)


def _bad_span(side, example, index, span, problem):
    return ValueError(
        f"Invalid span in {side}, example {example}, span {index}: expected {_SPAN_HELP}, "
        f"got {span!r} ({problem}); fix the span or remove it before scoring."
    )


def _as_offset(value, side, example, index, span):
    """Return ``value`` as a Python int, rejecting bools, floats, strings and negatives."""
    if isinstance(value, bool) or type(value).__name__ in ("bool", "bool_"):
        raise _bad_span(side, example, index, span, f"boolean offset {value!r}")
    try:
        offset = operator.index(value)
    except TypeError:
        raise _bad_span(
            side, example, index, span,
            f"offset {value!r} of type {type(value).__name__} is not an integer; convert with int()",
        ) from None
    if offset < 0:
        raise _bad_span(side, example, index, span, f"negative offset {offset}")
    return offset


def _parse_span(span, side, example, index):
    if isinstance(span, Mapping):
        if "start" not in span or "end" not in span:
            raise _bad_span(side, example, index, span, "missing 'start' or 'end' key")
        pair = (span["start"], span["end"])
    elif _is_sequence(span):
        if len(span) != 2:
            raise _bad_span(side, example, index, span, f"{len(span)} values instead of 2")
        pair = (span[0], span[1])
    else:
        raise _bad_span(side, example, index, span, f"a {type(span).__name__}, not a pair")
    start = _as_offset(pair[0], side, example, index, span)
    end = _as_offset(pair[1], side, example, index, span)
    if start > end:
        raise _bad_span(side, example, index, span, f"start {start} > end {end}")
    return (start, end)


def _parse_span_set(spans, side, example):
    """Validate one example's spans and return them as a set of ``(start, end)`` tuples."""
    if not _is_sequence(spans):
        raise ValueError(
            f"Invalid {side}, example {example}: expected a list of [start, end] spans, "
            f"got {type(spans).__name__} {spans!r}. Use [] for an example with no spans."
        )
    return {_parse_span(span, side, example, i) for i, span in enumerate(spans)}


def _count(refs, preds):
    """Counts for two validated span sets in O((n + m) log(n + m))."""
    refs, preds = sorted(refs), sorted(preds)
    # A pred is contained iff some ref starting at or before it reaches its end:
    # compare with the running maximum of ref ends over refs sorted by start.
    ref_starts = [g[0] for g in refs]
    reach = list(accumulate((g[1] for g in refs), max))
    contained = 0
    for start, end in preds:
        i = bisect_right(ref_starts, start)
        contained += i > 0 and reach[i - 1] >= end
    # A ref is covered iff, among preds starting at or after it, the earliest end fits.
    pred_starts = [p[0] for p in preds]
    earliest = list(accumulate((p[1] for p in reversed(preds)), min))[::-1]
    covered = 0
    for start, end in refs:
        i = bisect_left(pred_starts, start)
        covered += i < len(preds) and earliest[i] <= end
    return SpanCoverageCounts(int(contained), len(preds), int(covered), len(refs))


def span_coverage_counts(references, predictions) -> SpanCoverageCounts:
    """Span Coverage counts of one example with inclusive ``[start, end]`` spans.

    Parameters
    ----------
    references, predictions : sequence of [start, end]
        The reference and predicted spans of ONE example. Offsets are inclusive
        integers, ``0 <= start <= end``. Exact duplicates collapse (each side is a set).

    Returns
    -------
    SpanCoverageCounts
        ``(n_pred_contained, n_pred, n_ref_covered, n_ref)``: predicted spans lying
        inside at least one single reference span, distinct predicted spans,
        reference spans containing at least one predicted span, distinct reference spans.

    Raises
    ------
    ValueError
        For a malformed span (wrong arity, non-integer or boolean offset, negative
        offset, ``start > end``), naming the side, example and span index.

    Notes
    -----
    Containment of ``p`` in ``g`` is ``g.start <= p.start and p.end <= g.end``.

    Examples
    --------
    >>> span_coverage_counts([[0, 4], [6, 9]], [[1, 2], [3, 7], [1, 2]])
    SpanCoverageCounts(n_pred_contained=1, n_pred=2, n_ref_covered=1, n_ref=2)
    """
    return _count(
        _parse_span_set(references, "references", 0),
        _parse_span_set(predictions, "predictions", 0),
    )


def _check_options(average, zero_division):
    if not isinstance(average, str) or average not in _AVERAGES:
        raise ValueError(f"Expected average to be one of {_AVERAGES}, got {average!r}.")
    if isinstance(zero_division, str):
        if zero_division == "nan":
            return None
    elif isinstance(zero_division, (int, float)) and not isinstance(zero_division, bool):
        if math.isnan(zero_division):
            return None
        if zero_division in (0, 1):
            return int(zero_division)
    raise ValueError(
        f"Expected zero_division to be 0.0, 1.0 or 'nan', got {zero_division!r}."
    )


def _fraction(num, den, zero_value):
    """``(num, den)`` for a defined ratio, the zero_division value as ``(v, 1)``, or None."""
    if den:
        return (num, den)
    return None if zero_value is None else (zero_value, 1)


def _finalize(counts, zero_value):
    """Precision, recall and F1 from (possibly summed) counts; NaN marks undefined."""
    contained, n_pred, covered, n_ref = counts
    p = _fraction(contained, n_pred, zero_value)
    r = _fraction(covered, n_ref, zero_value)
    precision = math.nan if p is None else p[0] / p[1]
    recall = math.nan if r is None else r[0] / r[1]
    if p is None or r is None:
        return precision, recall, math.nan
    # F1 = 2ac / (ad + bc) for P = a/b, R = c/d: one rounding, so P = 1, R = 6/10 gives 0.75.
    denominator = p[0] * r[1] + p[1] * r[0]
    f1 = 2 * p[0] * r[0] / denominator if denominator else 0.0
    return precision, recall, f1


def _mean(values):
    """Correctly rounded mean of the non-NaN values (NaN when there are none).

    Exact rational arithmetic, then one rounding: the same float in any example order,
    and the same as mycelium's macro means.
    """
    kept = [v for v in values if not math.isnan(v)]
    return float(sum(map(Fraction, kept)) / len(kept)) if kept else math.nan


def _as_batch(references, predictions):
    """Return both sides as lists of examples, checking they have the same form and length."""
    for side, obj in (("references", references), ("predictions", predictions)):
        if not _is_sequence(obj):
            raise TypeError(
                f"Expected {side} to be a list of [start, end] spans (one example) or a "
                f"list of such lists (a batch), got {type(obj).__name__}."
            )
    ref_batch, pred_batch = _is_batch(references), _is_batch(predictions)
    if ref_batch != pred_batch:
        forms = {True: "a batch", False: "one example"}
        raise ValueError(
            f"references is {forms[ref_batch]} but predictions is {forms[pred_batch]}; "
            "pass both as one example ([[s, e], ...]) or both as a batch ([[[s, e], ...], ...])."
        )
    if not ref_batch:
        return [references], [predictions]
    if len(references) != len(predictions):
        raise ValueError(
            f"references has {len(references)} examples but predictions has "
            f"{len(predictions)}; both sides need one span list per example."
        )
    return list(references), list(predictions)


def span_coverage(references, predictions, *, average: Literal["macro", "micro"] = "macro",
                  zero_division: Union[float, Literal["nan"]] = 0.0) -> dict[str, float]:
    """Span Coverage precision, recall and F1 with inclusive ``[start, end]`` offsets.

    Parameters
    ----------
    references, predictions : sequence
        Either one example (a list of ``[start, end]`` spans; ``[]`` is an example
        with no spans) or a batch (a list of such lists; ``[[]]`` is a batch of one
        empty example). Both sides must have the same form and length. Offsets are
        inclusive integers ``0 <= start <= end``; exact duplicates collapse.
    average : {"macro", "micro"}, default "macro"
        ``"macro"``: compute per example, then take the mean. ``"micro"``: sum the
        four counts over the batch, then compute.
    zero_division : {0.0, 1.0, "nan"}, default 0.0
        Value of an undefined (0/0) precision or recall. With ``"nan"`` the value
        is NaN and the example is left out of the macro mean of that measure.

    Returns
    -------
    dict
        ``{"precision": p, "recall": r, "f1": f}`` as Python floats.

    Raises
    ------
    TypeError
        If a side is not a list-like container.
    ValueError
        For a bad ``average`` or ``zero_division``, sides of different form or
        length, or a malformed span (naming side, example and span index).

    Notes
    -----
    Per example, with G the reference and P the predicted span sets:
    precision = #{p in P : p inside some single g in G} / |P|,
    recall = #{g in G : some p in P inside g} / |G|, where p is inside g when
    ``g.start <= p.start and p.end <= g.end``. An undefined precision (P empty) or
    recall (G empty) takes ``zero_division``. For P = a/b and R = c/d,
    F1 = 2ac / (ad + bc), computed with a single rounding; F1 = 0.0 when
    P + R = 0, and NaN when P or R is NaN. The macro mean of no values is NaN.

    The score ignores how much of a reference is recovered: one contained
    character per reference span scores 1.0. Report it with an overlap measure
    such as character IoU.

    Examples
    --------
    >>> span_coverage([[0, 10]], [[2, 8]])
    {'precision': 1.0, 'recall': 1.0, 'f1': 1.0}
    >>> refs = [[[0, 4], [6, 9]], []]
    >>> preds = [[[1, 2]], [[3, 3]]]
    >>> span_coverage(refs, preds, average="micro")
    {'precision': 0.5, 'recall': 0.5, 'f1': 0.5}
    >>> span_coverage(refs, preds)
    {'precision': 0.5, 'recall': 0.25, 'f1': 0.3333333333333333}
    >>> span_coverage(refs, preds, zero_division="nan")
    {'precision': 0.5, 'recall': 0.5, 'f1': 0.6666666666666666}
    """
    zero_value = _check_options(average, zero_division)
    ref_batch, pred_batch = _as_batch(references, predictions)
    counts = [
        _count(
            _parse_span_set(refs, "references", i),
            _parse_span_set(preds, "predictions", i),
        )
        for i, (refs, preds) in enumerate(zip(ref_batch, pred_batch))
    ]
    if average == "micro":
        totals = [sum(column) for column in zip(*counts)] or [0, 0, 0, 0]
        values = _finalize(totals, zero_value)
    else:
        per_example = [_finalize(c, zero_value) for c in counts]
        values = tuple(_mean([row[k] for row in per_example]) for k in range(3))
    return dict(zip(("precision", "recall", "f1"), (float(v) for v in values)))
