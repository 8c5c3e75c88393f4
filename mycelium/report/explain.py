"""`mycelium.explain`: which examples drive a difference — between two detectors on one
measure, between two measures (of two metrics, or of one) for one detector, or between
the macro and the micro value of one detector; `explain_view` shows the top examples.

Between two detectors, or two measures of one detector, under macro averaging, an
example's *contribution* is its share of the difference, ``value_a/m_a - value_b/m_b``
(m: the examples where each value is defined): the contributions add up to the
difference exactly. A micro value is not a
sum over examples, so elsewhere (micro, and macro minus micro) the contribution is the
leave-one-out influence: the difference minus the difference with the example left out.
Both come from the per-example sufficient statistics (micro: the batch sums minus the
example's, finalised), never from re-scoring, so they cost one pass.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.aggregate import per_example
from ..core.pipeline import empty_spans_told
from ..evaluate import statistics

__all__ = ["explain", "explain_view"]

COLUMNS = ("example", "contribution", "value_a", "value_b")


def _measure(metric: str, measure: str | None, values: dict) -> str:
    names = list(values[metric])
    if measure is None:
        measure = "score" if "score" in names else "f1"
    if measure not in names:
        raise ValueError(f"Expected a measure of {metric!r} ({', '.join(names)}), got "
                         f"{measure!r}; fix by choosing one of them.")
    return measure


def _macro(v: np.ndarray) -> tuple[float, np.ndarray]:
    """The mean of the defined values, and for each example the mean without it."""
    ok = ~np.isnan(v)
    m, total = int(ok.sum()), float(np.nansum(v))
    full = total / m if m else np.nan
    with np.errstate(invalid="ignore", divide="ignore"):
        without = np.where(ok, (total - np.where(ok, v, 0.0)) / (m - 1), full)
    return full, without


def _micro(st: dict, metric: str, measure: str, zd, params) -> tuple[float, np.ndarray]:
    """The micro value, and for each example the micro value without it."""
    totals = {k: np.asarray([np.asarray(a).sum()]) for k, a in st.items()}
    rest = {k: totals[k] - np.asarray(a) for k, a in st.items()}
    full = per_example({metric: totals}, zero_division=zd, params=params)[metric][measure]
    without = per_example({metric: rest}, zero_division=zd, params=params)[metric][measure]
    return float(full[0]), without


def _side(refs, preds, text, metric, measure, average, zd, params):
    st = statistics(refs, preds, text=text, metrics=[metric], params=params)[metric]
    values = per_example({metric: st}, zero_division=zd, params=params)
    measure = _measure(metric, measure, values)
    v = values[metric][measure]
    if average == "micro":
        return measure, v, *_micro(st, metric, measure, zd, params)
    return measure, v, *_macro(v)


def explain(references, predictions, other=None, *, text=None, metric: str = "iou",
            measure: str | None = None, metric_b: str | None = None,
            measure_b: str | None = None, average: str = "macro", zero_division=0.0,
            params=None, n: int | None = 10) -> pd.DataFrame:
    """The examples that contribute most to a difference, largest first.

    Parameters
    ----------
    references, predictions : batches of span sets
        As `mycelium.evaluate` takes them (one detector's predictions: *a*).
    other : batch of span sets, optional
        A second detector's predictions (*b*): explain ``value(a) - value(b)`` under
        ``average``. Without it and without ``metric_b``/``measure_b``: explain
        ``macro(a) - micro(a)``.
    text : sequence of str, optional
        The texts (bounds are checked).
    metric, measure : str
        The measure explained (default: the metric's ``score``, else ``f1``).
    metric_b, measure_b : str, optional
        A second measure of the same detector (without ``other``): explain
        ``metric.measure - metric_b.measure_b`` under ``average``, e.g. ``metric="iou",
        metric_b="character"`` (IoU minus character F1), or ``metric="character",
        measure="precision", measure_b="recall"``. ``metric_b`` defaults to
        ``metric``, ``measure_b`` to ``metric_b``'s score, else F1.
    average : {"macro", "micro"}
        With ``other``: the average both values use.
    zero_division, params
        As in `mycelium.evaluate`.
    n : int or None
        Rows returned (None: every example).

    Returns
    -------
    pandas.DataFrame
        ``example`` (input position), ``contribution`` (see the module: a share of
        the difference, or a leave-one-out influence; ``attrs["method"]`` says
        which), ``value_a`` and ``value_b`` (per-example values
        of a and b; without ``other``, ``value_b`` is NaN), ordered by
        ``|contribution|`` descending. With ``metric_b``, ``value_a`` and ``value_b``
        are the two measures' per-example values. ``attrs`` holds ``difference`` (over
        every example), ``a`` and ``b`` (the two values), ``quantity`` (in words) and
        ``method`` (``share`` or ``leave-one-out``).

    Examples
    --------
    >>> import mycelium
    >>> refs = [[[0, 10]], [[4, 7]], [[0, 5]]]
    >>> good, poor = [[[0, 10]], [[4, 7]], [[0, 4]]], [[[0, 10]], [], [[0, 4]]]
    >>> out = mycelium.explain(refs, good, poor, metric="iou")
    >>> out.example.tolist(), out.contribution.round(3).tolist()
    ([1, 0, 2], [0.333, 0.0, 0.0])
    >>> round(out.attrs["difference"], 4)
    0.3333

    Two metrics for one detector: where IoU and character F1 part ways.

    >>> out = mycelium.explain(refs, poor, metric="iou", metric_b="character")
    >>> out.attrs["quantity"], round(out.attrs["difference"], 4)
    ('iou score - character f1 (macro)', -0.0296)
    >>> out.example.tolist(), out.contribution.round(4).tolist()
    ([2, 0, 1], [-0.0296, 0.0, 0.0])
    """
    if average not in ("macro", "micro"):
        raise ValueError(f"Expected average 'macro' or 'micro', got {average!r}.")
    two_measures = metric_b is not None or measure_b is not None
    if two_measures and other is not None:
        raise ValueError("Expected either other (a second detector) or metric_b/measure_b "
                         "(a second measure of one detector), got both; fix by explaining "
                         "one difference at a time.")
    # One warning for the call: another detector's predictions count with the first's
    # (the references once); the same spans read again count once.
    with empty_spans_told(hold=True) as told:
        if two_measures:
            metric_b = metric if metric_b is None else metric_b
            measure, va, a, a_wo = _side(references, predictions, text, metric, measure,
                                         average, zero_division, params)
            measure_b, vb, b, b_wo = _side(references, predictions, text, metric_b,
                                           measure_b, average, zero_division, params)
            if (metric, measure) == (metric_b, measure_b):
                raise ValueError(f"Expected two different measures, got {metric} "
                                 f"{measure} twice; fix by choosing another metric_b or "
                                 "measure_b.")
            quantity = f"{metric} {measure} - {metric_b} {measure_b} ({average})"
        elif other is not None:
            measure, va, a, a_wo = _side(references, predictions, text, metric, measure,
                                         average, zero_division, params)
            _, vb, b, b_wo = _side(references, other, text, metric, measure, average,
                                   zero_division, params)
            quantity = f"{metric} {measure} ({average}): a - b"
        else:
            measure, va, a, a_wo = _side(references, predictions, text, metric, measure,
                                         "macro", zero_division, params)
            _, _, b, b_wo = _side(references, predictions, text, metric, measure, "micro",
                                  zero_division, params)
            vb = np.full(va.shape, np.nan)
            quantity = f"{metric} {measure}: macro - micro"
    told.tell(parts="detectors" if other is not None else "first")
    difference = a - b
    if (other is not None or two_measures) and average == "macro":
        method = "share"
        contribution = (np.nan_to_num(va) / max(int((~np.isnan(va)).sum()), 1)
                        - np.nan_to_num(vb) / max(int((~np.isnan(vb)).sum()), 1))
    else:
        method = "leave-one-out"
        contribution = difference - (a_wo - b_wo)
    out = pd.DataFrame({"example": np.arange(va.size), "contribution": contribution,
                        "value_a": va, "value_b": vb})
    order = np.argsort(-np.abs(np.nan_to_num(contribution)), kind="stable")
    out = out.iloc[order[:n] if n is not None else order].reset_index(drop=True)
    out.attrs.update(difference=float(difference), a=float(a), b=float(b), quantity=quantity,
                     method=method)
    return out


def explain_view(explained: pd.DataFrame, text, references, predictions, other=None, *,
                 labels=None, metrics=None, type_field: str = "label_type"):
    """The top examples of an `explain` frame in the span view, largest contribution
    first, each titled by its position, contribution and the two values.

    Parameters
    ----------
    explained : pandas.DataFrame
        What `explain` returned (its ``example`` column indexes the batches below).
    text, references, predictions, other
        The batches given to `explain` (``text`` is needed here: spans are drawn over it).
    labels : sequence of str, optional
        Row names (default ``a``, ``b``); the titles name the two values by them too.
    metrics : sequence of str, optional
        Per-example metrics beside each row, as in `mycelium.show` (default: the
        metrics named in ``attrs["quantity"]``).
    type_field : str, default "label_type"
        The span field whose types the view styles, as in `mycelium.show`.

    Returns
    -------
    mycelium.report.view.SpanView

    Examples
    --------
    >>> import mycelium
    >>> texts = ["abcdefghij", "abcdefg", "abcdef"]
    >>> refs = [[[0, 10]], [[4, 7]], [[0, 5]]]
    >>> good, poor = [[[0, 10]], [[4, 7]], [[0, 4]]], [[[0, 10]], [], [[0, 4]]]
    >>> out = mycelium.explain(refs, good, poor, text=texts, metric="iou", n=1)
    >>> view = mycelium.explain_view(out, texts, refs, good, poor)
    >>> [ex.title for ex in view.examples]
    ['example 1 · contribution +0.3333 · a 1.000, b 0.000']
    >>> view = mycelium.explain_view(out, texts, refs, good, poor, labels=["good", "poor"])
    >>> [ex.title for ex in view.examples]
    ['example 1 · contribution +0.3333 · good 1.000, poor 0.000']
    """
    from dataclasses import replace

    from .view import show

    if text is None:
        raise ValueError("Expected the texts, got None; fix by passing the text= given to "
                         "explain: the view draws spans over them.")
    pick = explained["example"].to_numpy(dtype=np.int64)
    seq = [list(x) if not isinstance(x, str) else x for x in (text, references)]
    texts, refs = [str(seq[0][i]) for i in pick], [seq[1][i] for i in pick]
    sides = [predictions] + ([] if other is None else [other])
    names = list(labels) if labels is not None else ["a", "b"][:len(sides)]
    rows = {str(nm): [list(side)[i] for i in pick] for nm, side in zip(names, sides)}
    if metrics is None:
        quantity = str(explained.attrs.get("quantity", ""))
        metrics = [m for m in dict.fromkeys(quantity.replace("(", " ").split())
                   if m in _metric_names()] or ["iou"]
    shown = show(texts, refs, rows, metrics=metrics, type_field=type_field)
    # the values are named as the rows are: by the labels, else a and b (with metric_b,
    # the two values are two measures of one detector, named by their measures)
    quantity = str(explained.attrs.get("quantity", ""))
    two_measures = other is None and " - " in quantity and "macro - micro" not in quantity
    if two_measures:
        names = [part.split(" (")[0] for part in quantity.split(" - ", 1)]
    titled = []
    for ex, (_, r) in zip(shown.examples, explained.iterrows()):
        b = "" if np.isnan(r["value_b"]) else f", {names[1]} {r['value_b']:.3f}"
        titled.append(replace(ex, title=f"example {int(r['example'])} · contribution "
                                        f"{r['contribution']:+.4f} · {names[0]} "
                                        f"{r['value_a']:.3f}{b}"))
    note = quantity.replace(": a - b", f": {names[0]} - {names[1]}") if other is not None \
        else quantity
    if "difference" in explained.attrs:
        note += f": {explained.attrs['difference']:+.4f} over every example"
    return replace(shown, examples=titled, note=note)


def _metric_names():
    from ..metrics import METRICS

    return METRICS
