"""`mycelium.explain`: which examples drive a difference — between two detectors on one
measure, or between the macro and the micro value of one detector.

Between two detectors under macro averaging, an example's *contribution* is its share
of the difference, ``value_a/m_a - value_b/m_b`` (m: the examples where each value is
defined): the contributions add up to the difference exactly. A micro value is not a
sum over examples, so elsewhere (micro, and macro minus micro) the contribution is the
leave-one-out influence: the difference minus the difference with the example left out.
Both come from the per-example sufficient statistics (micro: the batch sums minus the
example's, finalised), never from re-scoring, so they cost one pass.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.aggregate import per_example
from ..evaluate import statistics

__all__ = ["explain"]

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
            measure: str | None = None, average: str = "macro", zero_division=0.0,
            params=None, n: int | None = 10) -> pd.DataFrame:
    """The examples that contribute most to a difference, largest first.

    Parameters
    ----------
    references, predictions : batches of span sets
        As `mycelium.evaluate` takes them (one detector's predictions: *a*).
    other : batch of span sets, optional
        A second detector's predictions (*b*): explain ``value(a) - value(b)`` under
        ``average``. Without it: explain ``macro(a) - micro(a)``.
    text : sequence of str, optional
        The texts (bounds are checked).
    metric, measure : str
        The measure explained (default: the metric's ``score``, else ``f1``).
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
        ``|contribution|`` descending. ``attrs`` holds ``difference`` (over every
        example), ``a`` and ``b`` (the two values) and ``quantity`` (in words).

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
    """
    if average not in ("macro", "micro"):
        raise ValueError(f"Expected average 'macro' or 'micro', got {average!r}.")
    if other is not None:
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
    difference = a - b
    if other is not None and average == "macro":
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
