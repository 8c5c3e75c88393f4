"""Checks of the adapters' arguments: one text, one example's spans, integer offsets.

Wrong types of the arguments themselves (a text that is not a str, a str where a list is
expected, a batch where one example is expected) raise ``TypeError``; bad values inside
the spans (a fractional offset, a bool, a string) raise `SpanValidationError` naming the
span, as the core's span conversion does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np

from ..errors import SpanValidationError

__all__ = ["check_text", "one_example_spans", "span_pair", "offset", "describe", "show"]


def show(x) -> str:
    """A short repr for messages."""
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


def describe(x) -> str:
    """``None``, or the type and a short repr (``the str '03'``), for messages."""
    return "None" if x is None else f"the {type(x).__name__} {show(x)}"


def check_text(text, where: str = "text") -> str:
    """``text`` when it is a str, else a ``TypeError`` that says what to pass."""
    if isinstance(text, str):
        return text
    batch = isinstance(text, (list, tuple)) and bool(text) and all(
        isinstance(t, str) for t in text)
    fix = ("calling once per text (the function reads one example)" if batch else
           "passing the text the offsets or phrases belong to, as a str")
    raise TypeError(f"Expected one text as a str, got {describe(text)}, at {where}; fix by "
                    f"{fix}.")


def one_example_spans(spans, where: str = "spans") -> list:
    """The spans of one example as a list (``(m, 2)`` numpy arrays read as rows); a
    ``TypeError`` for anything that is not a list of spans, a batch of span lists
    included."""
    if isinstance(spans, np.ndarray) and spans.dtype != object:
        if spans.ndim == 2 and spans.shape[1] == 2 or spans.size == 0:
            return spans.reshape(-1, 2).tolist()
        raise TypeError(f"Expected one example's spans as an array of shape (m, 2), got "
                        f"shape {spans.shape}, at {where}; fix by passing one example's "
                        "(start, end) rows.")
    if spans is None or isinstance(spans, (str, bytes, Mapping)) or not isinstance(
            spans, Iterable):
        raise TypeError(f"Expected one example's spans as a list of (start, end) pairs "
                        f"or {{'start', 'end'}} dicts, got {describe(spans)}, at {where}; "
                        "fix by passing a list, e.g. [(0, 4), (6, 9)].")
    items = list(spans)
    for k, x in enumerate(items):
        if _is_span_list(x):
            raise TypeError(f"Expected one example's spans, got a batch (item {k} is a "
                            f"list of spans: {show(x)}), at {where}; fix by converting "
                            "each example on its own, with its own text.")
    return items


def _is_span_list(x) -> bool:
    """A list of spans (a batch's example) rather than one span."""
    if isinstance(x, np.ndarray):
        return x.ndim == 2
    if not isinstance(x, (list, tuple)) or not x:
        return False
    first = x[0]
    return isinstance(first, Mapping) or (isinstance(first, (list, tuple, np.ndarray))
                                          and not isinstance(first, (str, bytes)))


def span_pair(x, k: int, where: str = "span") -> tuple[int, int]:
    """``(start, end)`` of the span ``x`` (a pair or a ``{start, end}`` mapping) as
    Python ints; a `SpanValidationError` naming span ``k`` otherwise."""
    if isinstance(x, Mapping):
        if "start" not in x or "end" not in x:
            raise SpanValidationError(
                f"Expected a span with 'start' and 'end' keys, got keys "
                f"{sorted(map(str, x))}, at {where} {k}; fix by naming the offsets "
                "'start' and 'end'.", span=k)
        s, e = x["start"], x["end"]
    elif isinstance(x, (list, tuple, np.ndarray)) and len(x) == 2:
        s, e = x[0], x[1]
    else:
        raise SpanValidationError(
            f"Expected a span (start, end) or {{'start': s, 'end': e}}, got {describe(x)}, "
            f"at {where} {k}; fix by passing two integer offsets per span.", span=k)
    return offset(s, "start", k, where), offset(e, "end", k, where)


def offset(v, name: str, k: int, where: str = "span") -> int:
    """An integer offset as a Python int (integral floats such as 3.0 accepted)."""
    if isinstance(v, (bool, np.bool_)):
        problem = f"the bool {bool(v)!r}"
        fix = "passing integers (True and False are not offsets)"
    elif isinstance(v, (int, np.integer)):
        return int(v)
    elif isinstance(v, (float, np.floating)) and math.isfinite(v) and float(v).is_integer():
        return int(v)
    elif isinstance(v, (float, np.floating)):
        problem = f"the non-integral number {v!r}"
        fix = ("passing whole offsets (a fractional offset falls between two positions: "
               "round it where it was computed)")
    else:
        problem = describe(v)
        fix = "passing integers (convert offsets read as text with int())"
    raise SpanValidationError(f"Expected an integer {name} offset, got {problem}, at "
                              f"{where} {k}; fix by {fix}.", span=k)
