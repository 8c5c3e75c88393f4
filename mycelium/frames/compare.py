"""Detector comparisons on dataframe columns: `mycelium.compare`, per group.

The engine behind ``df.mycelium.compare`` (pandas and Polars). Two layouts:

- wide: one prediction column per detector, every row one example;
- long: one prediction column and a detector column, one row per (example, detector);
  the rows of different detectors are paired by an example id, and the call fails
  clearly when they do not pair (a detector missing an id, an id repeated within a
  detector, references or texts that differ between detectors for one id).

With group keys, each group is compared on its own rows (resampling within the group)
and its p-values are Holm-corrected within the group's (metric, measure) families.
Each group's rows equal `mycelium.compare` called on that group's examples with
the same ids (without ids: positions *within the group*, in frame order).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import pyarrow as pa

from ..core.groups import grouped_table
from ..core.inputs import convert, text_values
from ..core.pipeline import empty_spans_told, prepare
from ..core.types import Missing
from ..errors import MyceliumError
from ..stats.comparison import COLUMNS, compare
from .engine import SIGNATURE_KEY, Groups, column_values, example_ids, group_codes, take_rows

__all__ = ["compare_table", "COMPARE_TYPES"]

#: Arrow types of the comparison columns (the detector columns keep their values' type).
COMPARE_TYPES = {"metric": pa.string(), "measure": pa.string(), "value_a": pa.float64(),
                 "value_b": pa.float64(), "difference": pa.float64(),
                 "ci_low": pa.float64(), "ci_high": pa.float64(), "p_value": pa.float64(),
                 "p_holm": pa.float64(), "test": pa.string(), "n_resamples": pa.int64(),
                 "examples": pa.int64(), "average": pa.string(), "profile": pa.string()}


def compare_table(column: Callable, ref_col: str, pred_cols, *, n_rows: int,
                  keys: pa.Table | None = None, detector_col: str | None = None,
                  id_col: str | None = None, text: str | None = None,
                  **options) -> pa.Table:
    """The comparison table ``[*keys, detector_a, detector_b, metric, ...]``.

    ``column(name, role)`` returns a column of the caller's frame (raising ``KeyError``
    for an unknown name); ``options`` are those of `mycelium.compare` (baseline, test,
    n_resamples, seed, ci, profile, metrics, average, zero_division, params, missing),
    which checks them (it is the face each group is scored by).
    """
    missing: Missing = options.get("missing", "error")
    groups = group_codes(keys, n_rows)
    ids = None if id_col is None else example_ids(column(id_col, "id_col"), n_rows)
    refs = column(ref_col, "ref_col")
    texts = None if text is None else column(text, "text")
    if detector_col is None:
        names = _wide_names(pred_cols)
        preds = {name: column(name, "pred_cols") for name in names}
        firsts = []
        for name, col in preds.items():  # errors name frame rows, not group positions
            at = _check(refs, col, texts, missing, f"pred_cols {name!r}")
            if at is not None:
                firsts.append(str(at) if at.side == "references"
                              else f"pred_cols {name!r}: {at}")
        make = lambda rows, where: _wide(refs, preds, texts, ids, rows)  # noqa: E731
    else:
        if keys is not None and detector_col in keys.column_names:
            raise ValueError(f"detector_col {detector_col!r} is also a by column; detectors "
                             "are compared within each group, so group by other columns.")
        pred = column(_long_name(pred_cols), "pred_cols")
        if ids is None:
            raise ValueError("long format (detector_col) pairs the rows of different "
                             "detectors by example id; pass id_col=... naming the column "
                             "that identifies each example.")
        at = _check(refs, pred, texts, missing, f"pred_cols {pred_cols!r}")
        firsts = [] if at is None else [str(at)]
        long = _Long(refs, pred, texts, ids, column_values(column(detector_col,
                                                                  "detector_col")),
                     detector_col)
        make = long.inputs
    parts, signature = [], None
    # Each group's comparison counts its zero-length spans; they are told once, the
    # first named by its frame row (rather than its position in the group).
    with empty_spans_told(hold=True) as told:
        for g, rows in enumerate(groups.positions()):
            where = _where(groups, g)
            references, predictions, text_g, ids_g = make(rows, where)
            try:
                out = compare(references, predictions, text=text_g, ids=ids_g, **options)
            except (ValueError, KeyError, TypeError) as exc:
                if not where or isinstance(exc, MyceliumError):
                    raise
                raise type(exc)(f"{where}{exc.args[0] if exc.args else exc}") from None
            signature = out.attrs.get("mycelium_signature")
            parts.append((g, out))
    told.tell(f"{firsts[0]} (the example is a row position in the frame)" if firsts
              else None)
    return _assemble(parts, groups, signature)


def _wide_names(pred_cols) -> list[str]:
    if isinstance(pred_cols, str):
        raise TypeError(f"pred_cols={pred_cols!r} is one column; pass a list of prediction "
                        "columns (one per detector), or give detector_col=... for long "
                        "format (one row per example and detector).")
    if not isinstance(pred_cols, Sequence) or len(pred_cols) < 2 \
            or not all(isinstance(c, str) for c in pred_cols):
        raise TypeError(f"pred_cols={pred_cols!r}; expected a list of at least two "
                        "prediction column names (one per detector).")
    if len(set(pred_cols)) != len(pred_cols):
        raise ValueError(f"pred_cols={list(pred_cols)!r} names a column twice.")
    return list(pred_cols)


def _long_name(pred_cols) -> str:
    if isinstance(pred_cols, Sequence) and not isinstance(pred_cols, str) \
            and len(pred_cols) == 1:
        pred_cols = pred_cols[0]
    if not isinstance(pred_cols, str):
        raise TypeError(f"pred_cols={pred_cols!r}; with detector_col (long format) give "
                        "the one prediction column name.")
    return pred_cols


def _check(refs, preds, texts, missing: Missing, role: str):
    """Both columns checked whole (errors name frame rows); the first zero-length span,
    or None."""
    try:
        return prepare(refs, preds, text=texts, missing=missing, warn_empty=False).first_empty
    except (ValueError, TypeError) as exc:
        if type(exc).__module__.startswith("mycelium"):
            raise
        raise type(exc)(f"{role}: {exc}") from None


def _where(groups: Groups, g: int) -> str:
    if groups.keys.num_columns == 0:
        return ""
    key = groups.keys.slice(g, 1).to_pylist()[0]
    return "in group " + ", ".join(f"{k}={v!r}" for k, v in key.items()) + ": "


def _wide(refs, preds, texts, ids, rows):
    return (take_rows(refs, rows), {n: take_rows(c, rows) for n, c in preds.items()},
            take_rows(texts, rows), None if ids is None else ids[rows].tolist())


class _Long:
    """Pairs the rows of each detector by example id, group by group."""

    def __init__(self, refs, pred, texts, ids: np.ndarray, detectors: list, name: str):
        for k, d in enumerate(detectors):
            if d is None:
                raise ValueError(f"detector_col {name!r} is null in row {k}; every row "
                                 "needs a detector name.")
        self.names = sorted(set(detectors), key=lambda v: (str(type(v)), v))
        if len(self.names) < 2:
            raise ValueError(f"detector_col {name!r} has {len(self.names)} detector(s) "
                             f"({self.names}); a comparison needs at least two.")
        index = {d: i for i, d in enumerate(self.names)}
        self.codes = np.array([index[d] for d in detectors], dtype=np.int64)
        self.refs, self.pred, self.texts, self.ids = refs, pred, texts, ids
        batch = convert(refs, "references")
        self.ref_nulls = batch.nulls
        self.spans = _sorted_spans(batch.batch)
        self.text_list = None
        if texts is not None:
            self.text_list = np.empty(len(self.codes), dtype=object)
            self.text_list[:] = text_values(texts, single=False)

    def inputs(self, rows: np.ndarray, where: str):
        first, *others = self.names
        rows_of = {d: rows[self.codes[rows] == i] for i, d in enumerate(self.names)}
        index = {d: self._index(d, rows_of[d], where) for d in self.names}
        order = list(index[first])
        for d in others:
            order.extend(i for i in index[d] if i not in index[first])
        for d in self.names:
            lacking = [i for i in order if i not in index[d]]
            if lacking:
                raise ValueError(f"{where}detector {d!r} has no row for {len(lacking)} "
                                 f"example id(s) that other detectors have "
                                 f"({_some(lacking)}); in long format every detector needs "
                                 "one row per example id.")
        aligned = {d: np.array([index[d][i] for i in order], dtype=np.int64)
                   for d in self.names}
        for d in others:
            self._same_references(first, d, aligned[first], aligned[d], order, where)
        return (take_rows(self.refs, aligned[first]),
                {d: take_rows(self.pred, aligned[d]) for d in self.names},
                take_rows(self.texts, aligned[first]), order)

    def _index(self, d, rows: np.ndarray, where: str) -> dict:
        index: dict = {}
        for row, i in zip(rows.tolist(), self.ids[rows].tolist()):
            if i in index:
                raise ValueError(f"{where}detector {d!r} has example id {i!r} in more than "
                                 f"one row (rows {index[i]} and {row}); in long format each "
                                 "detector has one row per example id.")
            index[i] = row
        return index

    def _same_references(self, a, b, ra: np.ndarray, rb: np.ndarray, order, where):
        differ = _differing(self.spans, ra, rb) | (self.ref_nulls[ra] != self.ref_nulls[rb])
        what = "references"
        if not differ.any() and self.text_list is not None:
            differ = self.text_list[ra] != self.text_list[rb]
            what = "texts"
        if differ.any():
            k = int(np.flatnonzero(differ)[0])
            raise ValueError(f"{where}{what} differ between detectors {a!r} and {b!r} for "
                             f"example id {order[k]!r} (rows {int(ra[k])} and "
                             f"{int(rb[k])}); in long format every detector's row of an id "
                             f"must carry the same {what}.")


def _sorted_spans(batch):
    """The batch with each example's spans sorted by (start, end), nothing dropped."""
    order = np.lexsort((batch.ends, batch.starts, batch.example_ids))
    return batch.offsets, batch.starts[order], batch.ends[order]


def _differing(spans, ra: np.ndarray, rb: np.ndarray) -> np.ndarray:
    """True where rows ``ra[k]`` and ``rb[k]`` hold different span sets (any order)."""
    offsets, starts, ends = spans
    counts = np.diff(offsets)
    differ = counts[ra] != counts[rb]
    same = np.flatnonzero(~differ)
    n = counts[ra[same]]
    if n.sum() == 0:
        return differ
    owner = np.repeat(np.arange(same.size), n)
    within = np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)
    ia = offsets[ra[same]][owner] + within
    ib = offsets[rb[same]][owner] + within
    bad = (starts[ia] != starts[ib]) | (ends[ia] != ends[ib])
    differ[same[np.unique(owner[bad])]] = True
    return differ


def _some(values, k: int = 3) -> str:
    shown = ", ".join(repr(v) for v in list(values)[:k])
    return shown + (", ..." if len(values) > k else "")


def _assemble(parts, groups: Groups, signature: str | None) -> pa.Table:
    group = np.concatenate([np.full(len(out), g, dtype=np.int64) for g, out in parts])
    columns: dict[str, pa.Array] = {}
    for name in COLUMNS:
        values = [v for _, out in parts for v in out[name].tolist()]
        typ = COMPARE_TYPES.get(name)
        if typ is None:  # detector names: as given (column names, or detector values)
            columns[name] = pa.array(values)
        else:
            columns[name] = pa.array([None if v is None else v for v in values], typ)
    table = grouped_table(groups, group, columns)
    meta = {SIGNATURE_KEY: signature.encode()} if signature is not None else {}
    return table.replace_schema_metadata(meta)
