"""The per-type rows (``type_field``) as exact sums that add across batches: per type,
the sums of the engine columns (`mycelium.core.engine_sums`) of the examples having the
type, their number and the type's reference spans. `mycelium.Accumulator` keeps these
per batch; the frame faces' engines sum the same columns per group
(`mycelium.frames.typed_sums`). Reduced, they give ``mycelium.evaluate(...)["by_type"]``
bit for bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..core.engine_sums import EngineColumn, engine_columns, engine_layout, reduce_engine_sums
from ..core.reduce import values_from_sums
from ..core.settings import Settings
from .typology import REFERENCE_SIDE, TypedStatistics, sorted_types, typed_measures

__all__ = ["TypeSums", "type_settings", "type_sums", "type_rows"]


def type_settings(settings: Settings) -> Settings:
    """``settings`` restricted to the metrics scored per type: every span metric with
    typed matching, else those of `mycelium.views.typology.REFERENCE_SIDE` (in the order
    of `mycelium.views.typology.typed_statistics`).

    Examples
    --------
    >>> from mycelium.core.settings import resolve_settings
    >>> s = resolve_settings(metrics=["iou", "character"], type_field="t")
    >>> type_settings(s.scoring(s.asked)).metrics
    ('character',)
    """
    span = settings.span_metrics
    names = span if settings.typed_matching else tuple(
        m for m in dict.fromkeys(m for m, _ in REFERENCE_SIDE) if m in span)
    return replace(settings, metrics=names)


@dataclass(frozen=True)
class TypeSums:
    """One type's sums: ``sums`` by engine column label (exact Python ints; floats for
    the float rests), ``examples`` having the type, ``n_ref`` reference spans of it."""

    sums: dict[str, Any]
    examples: int
    n_ref: int

    def __add__(self, other: TypeSums) -> TypeSums:
        sums = {k: v + other.sums[k] if isinstance(v, int) else math.fsum((v, other.sums[k]))
                for k, v in self.sums.items()}
        return TypeSums(sums, self.examples + other.examples, self.n_ref + other.n_ref)


def _layout(typed: Settings) -> tuple[EngineColumn, ...]:
    return engine_layout(typed) if typed.metrics else ()


def type_sums(typed: TypedStatistics, settings: Settings) -> dict[Any, TypeSums]:
    """Per type of ``typed`` (a call's `TypedStatistics` under ``settings``), in its
    order, the `TypeSums` of its examples.

    Examples
    --------
    >>> from mycelium.core.settings import resolve_settings
    >>> from mycelium.views.typology import typed_statistics
    >>> import numpy as np
    >>> s = resolve_settings(metrics="character", type_field="t", average="micro")
    >>> refs = [[{"start": 0, "end": 4, "t": "A"}], [{"start": 0, "end": 2, "t": "B"}]]
    >>> typed = typed_statistics(refs, [[[0, 3]], []], type_field="t",
    ...                          kept=np.ones(2, bool), text_lengths=None,
    ...                          metrics=("character",), params=s.params)
    >>> sums = type_sums(typed, s)
    >>> sums["A"].examples, sums["A"].sums["character|tp#lo"], sums["B"].n_ref
    (1, 3, 1)
    >>> type_rows(added([sums, sums]), s)["A"]  # twice the examples: the same ratios
    {'examples': 2, 'n_ref': 2, 'character': {'recall': 0.75}}
    """
    per = type_settings(settings)
    layout = _layout(per)
    out = {}
    for t in typed.types:
        rows = typed.present[t]
        cols = engine_columns(typed.stats[t], per, layout) if layout else {}
        sums = {c.label: c.masked_sum(cols[c.label], rows) for c in layout}
        out[t] = TypeSums(sums, int(rows.sum()), int(typed.n_ref[t].sum()))
    return out


def added(parts: list[dict[Any, TypeSums]]) -> dict[Any, TypeSums]:
    """The `TypeSums` of several batches, added per type, in the order of the types of
    one call on all of them (`mycelium.views.typology.sorted_types`)."""
    found: dict[Any, TypeSums] = {}
    for part in parts:
        for t, s in part.items():
            found[t] = found[t] + s if t in found else s
    names = np.empty(len(found), dtype=object)
    names[:] = list(found)
    return {t: found[t] for t in sorted_types(names, None)}


def type_rows(sums: dict[Any, TypeSums], settings: Settings) -> dict:
    """``report["by_type"]`` of the types' `TypeSums` (``{type: {"examples", "n_ref",
    metric: {measure: value}}}``), as `mycelium.evaluate` gives it."""
    per = type_settings(settings)
    layout = _layout(per)
    wanted = typed_measures(settings.span_metrics, settings.typed_matching)
    out: dict[Any, dict[str, Any]] = {}
    for t, s in sums.items():
        entry: dict[str, Any] = {"examples": s.examples, "n_ref": s.n_ref}
        if layout:
            partials = {c.label: np.array([s.sums[c.label]],
                                          dtype=object if c.integer else np.float64)
                        for c in layout}
            values = values_from_sums(
                reduce_engine_sums(partials, np.zeros(1, np.int64), 1, per, layout), per,
                examples=np.array([s.examples]))
            for metric, measures in values.items():
                keep = {k: float(v[0]) for k, v in measures.items()
                        if wanted is None or (metric, k) in wanted}
                if keep:
                    entry[metric] = keep
        out[t] = entry
    return out
