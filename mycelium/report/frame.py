"""The rows of a frame to look at first: per group, the ``n`` rows with the lowest (or
highest) per-row measure, as a `SpanView` (behind ``df.mycelium.show``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.pipeline import empty_spans_told
from ..metrics import METRICS
from .model import DEFAULT_METRICS, ExampleView, surprises, types_of
from .segments import parse_spans
from .view import SpanView

__all__ = ["frame_view", "order_rows", "sort_column"]


def sort_column(sort_by: str, columns) -> str:
    """The per-row score column ``sort_by`` names: a column itself (``character_f1``),
    else a metric's ``score`` or ``f1``."""
    for name in (sort_by, f"{sort_by}_score", f"{sort_by}_f1"):
        if name in columns:
            return name
    raise ValueError(f"Expected sort_by to name a metric or a per-row measure, got "
                     f"{sort_by!r}; fix by choosing one of {list(columns)}.")


def order_rows(values: np.ndarray, groups: list[np.ndarray], n: int,
               ascending: bool, ties: np.ndarray | None = None) -> list[np.ndarray]:
    """Per group (positions), its ``n`` positions in order of ``values`` (NaN last); equal
    values in descending order of ``ties`` (when given), then in row order."""
    out = []
    for positions in groups:
        key = values[positions]
        key = np.where(np.isnan(key), np.inf if ascending else -np.inf, key)
        second = (-ties[positions] if ties is not None
                  else np.zeros(positions.size))
        order = np.lexsort((np.arange(positions.size), second, key if ascending else -key))
        out.append(positions[order[:n]])
    return out


def _group_positions(keys: pd.DataFrame | None) -> list[tuple[tuple, np.ndarray | None]]:
    """Positions of each group of ``keys`` (the group columns, by position), groups in
    sorted key order, null keys a group of their own (last); without keys, one group
    of every row (positions None)."""
    if keys is None:
        return [((), None)]
    names = list(keys.columns)
    grouped = keys.groupby(names, dropna=False, sort=True).indices
    return [((k,) if len(names) == 1 else tuple(k), np.asarray(v)) for k, v in grouped.items()]


class _Rows:
    """What the view needs of a frame, whichever library holds it: its height, row
    labels, a column's values, the group keys (pandas) and the per-row scores (pandas)."""

    def __init__(self, df) -> None:
        self.df = df
        self.polars = not isinstance(df, pd.DataFrame)
        self.height = len(df)

    def label(self, i: int) -> str:
        return str(i) if self.polars else str(self.df.index[i])

    def values(self, name: str, role: str):
        col = self.df.mycelium._column(name, role)
        return col.to_list() if self.polars else col.to_numpy()

    def keys(self, names: list[str]) -> pd.DataFrame | None:
        if not names:
            return None
        cols = {k: self.df.mycelium._column(k, "by") for k in names}
        return pd.DataFrame({k: c.to_pandas() if self.polars else c.to_numpy()
                             for k, c in cols.items()})

    def score(self, ref_col, col, **options) -> pd.DataFrame:
        out = self.df.mycelium.score(ref_col, col, **options)
        return out.to_pandas() if self.polars else out

    def marked(self, ref_col: str, col: str, offsets: str | None = None) -> np.ndarray:
        """Per row, the characters marked on either side (the union of the two masks; a
        null span list counts as none), the spans read by ``offsets`` as the scores read
        them: what breaks ties between equal scores."""
        from ..core.inputs import to_spans
        from ..core.pipeline import compute_statistics, prepare

        sides = [to_spans(self.df.mycelium._column(c, role))
                 for c, role in ((ref_col, "ref_col"), (col, "pred_col"))]
        # the scores told the zero-length spans already
        prepared = prepare(*sides, missing="empty", offsets=offsets or "half-open",
                           warn_empty=False)
        union = compute_statistics(prepared.refs, prepared.preds, ["iou"], {})["iou"]["union"]
        return np.asarray(union, dtype=np.float64)


def _null(value) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _nested(row: dict, metrics) -> dict:
    """``{"iou_score": v, ...}`` as ``{"iou": {"score": v}, ...}`` for ``metrics``."""
    out: dict = {}
    for name, value in row.items():
        metric = next((m for m in metrics if name.startswith(m + "_")), None)
        if metric is not None:
            out.setdefault(metric, {})[name[len(metric) + 1:]] = float(value)
    return out


def frame_view(df, ref_col: str, pred_col, *, text: str | None = None,
               sort_by: str = "iou", ascending: bool = True, n: int = 10, by=None,
               metrics=DEFAULT_METRICS, labels=None, id_col: str | None = None,
               context: str | None = None, type_field: str = "label_type",
               **score_options) -> SpanView:
    """The worst (``ascending=True``) or best ``n`` rows of each group as a `SpanView`;
    the engine of ``df.mycelium.show`` for pandas and Polars frames alike (see there):
    the same rows in the same order. Rows with equal values come in descending order of
    the characters marked on either side (the largest miss or false alarm first), then
    in row order. Each is titled by its ``id_col`` value (else the pandas index or the
    Polars row); ``context`` names a column shown collapsed above each text;
    ``type_field`` is the span field whose types the view styles."""
    if text is None:
        raise ValueError("Expected text= naming the column of output texts, got None; fix "
                         "by passing text='<column>': the view draws spans over the text.")
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"Expected n >= 1 rows per group, got {n!r}.")
    frame = _Rows(df)
    pred_cols = [pred_col] if isinstance(pred_col, str) else list(pred_col)
    names = list(labels) if labels is not None else pred_cols
    wanted = list(dict.fromkeys(list(metrics or ()) + [sort_by.split("_")[0]]))
    wanted = [m for m in wanted if m in METRICS] or ["iou"]
    # Every detector's zero-length spans told once: the references once, as a comparison
    # tells them.
    with empty_spans_told(hold=True) as told:
        scores = [frame.score(ref_col, col, text=text, metrics=wanted, **score_options)
                  for col in pred_cols]
    told.tell(parts="detectors")
    ties = frame.marked(ref_col, pred_cols[0], score_options.get("offsets"))
    key = sort_column(sort_by, scores[0].columns)
    values = scores[0][key].to_numpy(dtype=np.float64, na_value=np.nan)
    by_names = [] if by is None else [by] if isinstance(by, str) else list(by)
    groups = _group_positions(frame.keys(by_names))
    picked = order_rows(values, [np.arange(frame.height) if pos is None else pos
                                 for _, pos in groups], n, ascending, ties=ties)
    shown = list(metrics or ())
    texts, refs = frame.values(text, "text"), frame.values(ref_col, "ref_col")
    ids = None if id_col is None else frame.values(id_col, "id_col")
    contexts = None if context is None else frame.values(context, "context")
    preds = [frame.values(col, "pred_col") for col in pred_cols]
    records = [s.to_dict("records") for s in scores]
    examples = []
    for (group, _), positions in zip(groups, picked):
        where = ", ".join(f"{b}={'null' if _null(g) else g}" for b, g in zip(by_names, group))
        for i in positions:
            name = f"row {frame.label(i)}" if ids is None else f"{id_col} {ids[i]}"
            title = name + (f" · {where}" if where else "") + f" · {key} {values[i]:.3f}"
            ref_spans = parse_spans(refs[i], type_field)
            rows = [(str(nm), parse_spans(p[i], type_field)) for nm, p in zip(names, preds)]
            values_i = [_nested(r[i], shown) if shown else None for r in records]
            ctx = None if contexts is None or _null(contexts[i]) else str(contexts[i])
            examples.append(ExampleView(
                text=str(texts[i]), references=ref_spans, rows=rows, metrics=values_i,
                title=title, context=ctx, notes=surprises(ref_spans, rows, values_i)))
    order = "lowest" if ascending else "highest"
    note = (f"{order} {key} first: up to {n} of {frame.height} rows"
            + (f" per group of {', '.join(by_names)}" if by_names else "")
            + "; ties: most characters marked on either side first")
    return SpanView(examples, note=note, types=types_of(examples))


# df.mycelium.show reaches this as mycelium._frame_view: frames sit below report.
_frame_view = frame_view
