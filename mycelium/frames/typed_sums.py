"""The per-type rows (``type_field``) as sums over rows, for the engines that sum
(Spark's workers, the Polars LazyFrame's streaming engine): per batch, group and type,
the sums of the type's engine columns (`mycelium.core.engine_sums`) over the examples
having the type, their count and the type's reference spans (`batch_sums`); the engine
sums them per (group, type); `finish` turns the few summed rows into
`mycelium.frames.engine.typed_rows`, the pandas accessor's rows, bit for bit.

A type's examples are those with a span of that type (`mycelium.views.typology`), so its
statistics are sums over rows like any metric's, filtered by type: nothing is gathered.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterator

import numpy as np
import pyarrow as pa

from ..core.engine_sums import EngineColumn, engine_columns, engine_layout, reduce_engine_sums
from ..core.groups import group_sums
from ..core.reduce import values_from_sums
from ..core.settings import Settings
from ..evaluate import prepare_for
from ..metrics import STATISTIC_METRICS
from ..views.type_sums import type_settings
from ..views.typology import REFERENCE_SIDE, sorted_types, typed_for, typed_span_for
from . import engine as frames

__all__ = ["TypedPlan", "typed_plan", "summable", "batch_sums", "finish", "KIND_COL", "TYPE_COL",
           "N_COL", "NREF_COL"]

KIND_COL, TYPE_COL, N_COL, NREF_COL = "__kind", "__type", "__n", "__nref"
#: ``__kind`` of a summed row: the metrics compared over all types (``typed_span``, and
#: every group's examples), or one type's.
WHOLE, TYPED = 0, 1


@dataclass(frozen=True)
class TypedPlan:
    """The settings and engine columns of a typed call: ``typed`` (the metrics scored per
    type, `mycelium.views.typology`), ``whole`` (``typed_span``'s, or None)."""

    settings: Settings
    typed: Settings
    typed_layout: tuple[EngineColumn, ...]
    whole: Settings | None
    whole_layout: tuple[EngineColumn, ...]

    def columns(self) -> list[tuple[str, EngineColumn, str]]:
        """``(Spark column, engine column, kind)`` of every summed engine column."""
        return ([(f"t{i}", c, "typed") for i, c in enumerate(self.typed_layout)]
                + [(f"w{i}", c, "whole") for i, c in enumerate(self.whole_layout)])


def typed_plan(settings: Settings) -> TypedPlan:
    """The `TypedPlan` of resolved ``settings`` (with ``type_field``).

    Examples
    --------
    >>> from mycelium.core.settings import resolve_settings
    >>> s = resolve_settings(metrics=["typed_span", "character", "iou"],
    ...                      type_field="label", average="micro")
    >>> plan = typed_plan(s.scoring(s.asked))
    >>> plan.typed.metrics, plan.whole.metrics
    (('character',), ('typed_span',))
    """
    typed = type_settings(settings)
    whole = None
    whole_layout: tuple[EngineColumn, ...] = ()
    if "typed_span" in settings.metrics:
        whole = replace(settings, metrics=("typed_span",))
        empty = {"typed_span": {k: np.zeros(0, dtype=np.int64)
                                for k in STATISTIC_METRICS["typed_span"].statistics}}
        whole_layout = engine_layout(whole, empty)
    return TypedPlan(settings, typed, engine_layout(typed), whole, whole_layout)


def summable(arguments: dict) -> bool:
    """Whether a frame face's call (``arguments``: its keywords, columns by name) with
    ``type_field`` gives per-type rows that are sums over rows: spans alone, read as
    untrimmed (no scores, soft labels, intervals, trimming or other units: those calls
    take the faces' other paths, which refuse or gather them).

    Examples
    --------
    >>> call = dict(ci=None, trim_spans=None, offsets="half-open", granularity="char",
    ...             soft_ref_col=None, soft_pred_col=None, pred_col="pred",
    ...             token_offsets_col=None, token_scores_col=None, threshold=None,
    ...             metrics=None, profile=None)
    >>> summable(call), summable(dict(call, ci=0.95))
    (True, False)
    """
    from . import scores

    a = arguments
    return not (a["ci"] is not None or a["trim_spans"] is not None
                or a["granularity"] != "char"
                or a["soft_ref_col"] is not None or a["soft_pred_col"] is not None
                or a["pred_col"] is None
                or scores.wanted(a["pred_col"], None, None, a["token_offsets_col"],
                                 a["token_scores_col"], a["threshold"], a["metrics"],
                                 profile=a["profile"]))


# ------------------------------------------------------------------ per batch

def batch_sums(refs, preds, text, groups, plan: TypedPlan
               ) -> tuple[np.ndarray, dict[str, pa.Array], Any]:
    """One batch's summed rows: per group a ``WHOLE`` row (the group's scored examples and
    ``typed_span``'s sums), then one per type of the group's spans, in
    `mycelium.views.typology.sorted_types` order.

    ``refs``, ``preds``, ``text``: the batch's columns; ``groups``: its rows' groups
    (`mycelium.frames.engine.group_codes`). Returns the group of each summed row, the
    columns ``KIND_COL``, ``TYPE_COL``, ``N_COL``, ``NREF_COL`` and the engine columns
    (`TypedPlan.columns`), and the batch's `mycelium.core.pipeline.Prepared` (prepared
    without warning: the engine tells its zero-length spans once per call).

    Examples
    --------
    >>> from mycelium.core.settings import resolve_settings
    >>> s = resolve_settings(metrics="character", type_field="t")
    >>> plan = typed_plan(s.scoring(s.asked))
    >>> refs = [[{"start": 0, "end": 4, "t": "A"}], [{"start": 0, "end": 2, "t": "B"}]]
    >>> g, cols, _ = batch_sums(refs, [[[0, 4]], []], None, frames.group_codes(None, 2),
    ...                         plan)
    >>> g.tolist(), cols[TYPE_COL].to_pylist(), cols[N_COL].to_pylist()
    ([0, 0, 0], [None, 'A', 'B'], [2, 1, 1])
    """
    settings = plan.settings
    field = str(settings.type_field)  # a typed call's (`typed_plan`)
    prepared = prepare_for(refs, preds, settings, text=text, warn_empty=False)
    codes = groups.codes[prepared.kept]
    typed = typed_for(refs, preds, settings, prepared, type_field=field,
                      typed_matching=settings.typed_matching)
    ref_types = frames.types_by_group(refs, "references", field, groups, prepared.kept)
    pred_types = frames.types_by_group(preds, "predictions", field, groups, prepared.kept) \
        if settings.typed_matching else None
    whole = engine_columns({"typed_span": typed_span_for(refs, preds, settings, prepared)},
                           plan.whole, plan.whole_layout) if plan.whole else {}
    per_type = {t: engine_columns(typed.stats[t], plan.typed, plan.typed_layout)
                for t in typed.types}
    out: dict[str, list] = {name: [] for name in
                            ("g", KIND_COL, TYPE_COL, N_COL, NREF_COL,
                             *(name for name, _, _ in plan.columns()))}

    def emit(g, kind, t, rows: np.ndarray, n_ref: int, sums: dict) -> None:
        out["g"].append(g)
        out[KIND_COL].append(kind)
        out[TYPE_COL].append(t)
        out[N_COL].append(int(rows.sum()))
        out[NREF_COL].append(n_ref)
        for name, col, of in plan.columns():
            values = sums.get(col.label) if of == ("whole" if kind == WHOLE else "typed") \
                else None
            out[name].append((0 if col.integer else 0.0) if values is None
                             else col.masked_sum(values, rows))

    for g in range(groups.n_groups):
        in_group = codes == g
        emit(g, WHOLE, None, in_group, 0, whole)
        for t in sorted_types(ref_types[g], None if pred_types is None else pred_types[g]):
            emit(g, TYPED, t, typed.present[t] & in_group,
                 int(typed.n_ref[t][in_group].sum()), per_type[t])
    arrays = {KIND_COL: pa.array(out[KIND_COL], pa.int32()),
              TYPE_COL: pa.array(out[TYPE_COL], pa.string()),
              N_COL: pa.array(out[N_COL], pa.int64()),
              NREF_COL: pa.array(out[NREF_COL], pa.int64())}
    arrays |= {name: pa.array(out[name], pa.int64() if col.integer else pa.float64())
               for name, col, _ in plan.columns()}
    return np.array(out["g"], dtype=np.int64), arrays, prepared


def finish(columns: dict[str, np.ndarray], key_table: pa.Table | None, plan: TypedPlan
           ) -> pa.Table:
    """`mycelium.frames.engine.typed_rows` from the engine's summed rows: ``columns``,
    `batch_sums`' columns summed per group and type (integer sums as int64, or exact
    Python ints in object arrays; ``TYPE_COL`` as an object array), and ``key_table``,
    the group keys of those rows under the user's names (or None). Groups the engine
    keeps apart but pandas merges (NaN and null keys) are added up here."""
    n_rows = len(columns[KIND_COL])
    groups = frames.group_codes(key_table, n_rows)
    kinds = np.asarray(columns[KIND_COL])
    types = list(columns[TYPE_COL])

    def column(name, rows):
        return columns[name][rows]

    def sums(rows, codes, n, settings, layout, of):
        partials = {col.label: column(name, rows) for name, col, k in plan.columns()
                    if k == of}
        return reduce_engine_sums(partials, codes, n, settings, layout)

    whole_rows = kinds == WHOLE
    whole_codes = groups.codes[whole_rows]
    examples = group_sums({N_COL: column(N_COL, whole_rows)}, whole_codes,
                          groups.n_groups)[N_COL]
    whole: tuple[dict, Any] = ({}, None)
    if plan.whole is not None:
        whole = (values_from_sums(sums(whole_rows, whole_codes, groups.n_groups, plan.whole,
                                       plan.whole_layout, "whole"), plan.whole,
                                  examples=examples), examples)
    typed_rows = kinds == TYPED
    cell_of: dict[tuple, int] = {}
    cell_codes = np.array([cell_of.setdefault((int(g), t), len(cell_of)) for g, t in zip(
        groups.codes[typed_rows], [t for t, k in zip(types, typed_rows) if k])],
        dtype=np.int64)
    n_cells = len(cell_of)
    counted = group_sums({N_COL: column(N_COL, typed_rows),
                          NREF_COL: column(NREF_COL, typed_rows)}, cell_codes, n_cells)
    values = values_from_sums(sums(typed_rows, cell_codes, n_cells, plan.typed,
                                   plan.typed_layout, "typed"), plan.typed,
                              examples=counted[N_COL]) if plan.typed.metrics else {}
    by_group: list[dict] = [{} for _ in range(groups.n_groups)]
    for (g, t), c in cell_of.items():
        by_group[g][t] = ({m: {k: float(v[c]) for k, v in ms.items()} for m, ms in
                           values.items()}, int(counted[N_COL][c]),
                          int(counted[NREF_COL][c]))
    cells = [[(t, *found[t]) for t in sorted_types(np.array(list(found), dtype=object), None)]
             for found in by_group]
    wanted = None if plan.settings.typed_matching else [
        (m, k) for m, k in REFERENCE_SIDE if m in plan.settings.span_metrics]
    return frames.typed_rows(groups, cells, plan.settings, wanted=wanted, whole=whole)
