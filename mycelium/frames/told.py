"""What a frame face's call told about its zero-length spans, kept on the frame it returns.

`mycelium.evaluate` counts zero-length spans in ``meta["empty_spans"]`` (SPEC section 2).
A frame has no ``meta``, so a face call's counts, told by its one
`mycelium.EmptySpanWarning` (`mycelium.core.pipeline.empty_spans_told`), go where the
frame keeps its signature: a pandas frame's ``attrs["mycelium_empty_spans"]`` and the
metadata of a Spark result's ``value`` field, as ``{"references": n, "predictions": m}``
(zeros when nothing was told). A Polars frame has no such place: there the counts are
the warning's ``references`` and ``predictions``.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

from ..core.pipeline import Told, empty_spans_told

__all__ = ["EMPTY_SPANS_ATTR", "telling_empty_spans", "with_empty_spans"]

#: The ``DataFrame.attrs`` key (and Spark field metadata key) of a call's counts.
EMPTY_SPANS_ATTR = "mycelium_empty_spans"

_F = TypeVar("_F", bound=Callable[..., Any])


def telling_empty_spans(face: _F) -> _F:
    """``face`` (a frame face's method or function) keeping its call's zero-length span
    counts on the frame it returns (`with_empty_spans`)."""

    @functools.wraps(face)
    def told_face(*args: Any, **kwargs: Any) -> Any:
        with empty_spans_told() as told:
            out = face(*args, **kwargs)
        return with_empty_spans(out, told)

    return told_face  # type: ignore[return-value]


def with_empty_spans(out: Any, told: Told) -> Any:
    """``out`` with ``told`` beside its signature: in a pandas frame's ``attrs``, in the
    metadata of a Spark DataFrame's ``value`` field; any other result as it is.

    Examples
    --------
    >>> import pandas as pd
    >>> told = Told()
    >>> told.add((2, 0), "references example 0, span 0: [7, 7]")
    >>> with_empty_spans(pd.DataFrame({"value": [1.0]}), told).attrs
    {'mycelium_empty_spans': {'references': 2, 'predictions': 0}}
    """
    attrs = getattr(out, "attrs", None)
    if isinstance(attrs, dict):
        attrs[EMPTY_SPANS_ATTR] = told.counts
        return out
    if type(out).__module__.startswith("pyspark.") and "value" in out.columns:
        field = out.schema["value"]
        return out.withMetadata("value", {**(field.metadata or {}),
                                          EMPTY_SPANS_ATTR: told.counts})
    return out
