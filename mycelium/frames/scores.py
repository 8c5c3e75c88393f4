"""Frames with detector scores: ``df.mycelium.evaluate`` with score columns or a threshold,
``df.mycelium.sweep`` and ``df.mycelium.tune_threshold`` (SPEC section 9).

Group keys go through `mycelium.core.groups`, as on the span path: the key columns become
one Arrow key table (`key_table`, the face's own column objects, so types and values are
kept), grouped by `group_codes`, and every result carries ``Groups.keys`` as Arrow
columns, converted by each face as its span results are. The other columns are read
positionally into plain lists (`rows_of`; Arrow-backed token offset and score columns stay
Arrow arrays, read column-wise by `mycelium.core.token_input`; JSON strings, as CSV
files hold them, are decoded) and each group's rows are scored by `mycelium.evaluate`
itself, so every group's values equal the dict face on that group's rows, bit for bit.
Each group's rows come from the one grouping engine (`Groups.positions`) and its values
go back through it (`mycelium.core.groups.grouped_table`), as on the span path; calling
`mycelium.evaluate` per group, rather than summing per-row columns by group, is for the
options that are not sums of per-row statistics (intervals, per-type rows, soft labels,
words or sentences). Polars' lazy plans and Spark sum the score statistics by group
(`mycelium.frames.score_sums`) through the same engine. Sweeps are
`mycelium.scores.thresholds.sweep_curve`.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import numpy as np
import pandas as pd
import pyarrow as pa

from ..core.groups import Groups, group_codes, grouped_table, key_table, normalize_by
from ..core.token_input import arrow_column
from ..errors import SpanValidationError
from ..core.inputs import Inputs
from ..core.settings import Settings
from ..core.pipeline import EmptyAt, empty_spans_told
from ..evaluate import evaluate_settled
from ..metrics import fixed_average
from ..scores.plan import score_form_given
from ..scores.thresholds import Curve, sweep_curve, sweep_settings, tuned_dict
from .engine import COLUMN_ROLES, SIGNATURE_KEY

__all__ = ["wanted", "evaluate_scores_table", "rows_of", "evaluate_call", "call"]

COLUMNS = ["metric", "measure", "value", "examples", "average", "profile"]


def wanted(pred_col, soft_ref_col, soft_pred_col, token_offsets_col, token_scores_col,
           threshold, metrics, profile=None) -> bool:
    """Does a frame ``evaluate`` call involve scores, a threshold or an extra metric
    (asked for, or a profile's default one: ragtruth's ``response_level``, which
    `mycelium.evaluate` then adds on each group's rows as it does for a dict)?"""
    from ..core.profiles import get_profile
    from ..scores.plan import split_metrics

    prof = get_profile(profile)
    return pred_col is None or threshold is not None or bool(split_metrics(metrics)[1]) \
        or score_form_given(soft_ref_col, soft_pred_col, token_offsets_col, token_scores_col) \
        or (metrics is None and prof is not None and bool(prof.extra_metrics))


def soft_from_spans(profile, soft_ref_col, soft_pred_col) -> bool:
    """Does ``profile`` read the soft labels from the span columns (score rule
    ``soft_labels="spans"``: ``shroom_visions``), with no soft-label column given?"""
    from ..core.profiles import get_profile

    prof = get_profile(profile)
    return prof is not None and prof.rules.soft_labels == "spans" \
        and soft_ref_col is None and soft_pred_col is None


def label_rows_wanted(profile, metrics) -> bool:
    """Is ``soft_spearman_by_label`` scored (named, or the profile's default), so that
    the tidy result has per-label rows and a ``type`` column?"""
    from ..core.profiles import get_profile

    prof = get_profile(profile)
    if metrics is None:
        metrics = prof.metrics if prof is not None and prof.metrics is not None else ()
    names = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    return "soft_spearman_by_label" in names


def rows_of(series, *, arrow: bool = False) -> list:
    """A column as a list of Python values, positionally (pandas, Arrow-backed or Polars);
    with ``arrow=True`` an Arrow-backed or Polars column is returned as one pyarrow
    Array instead (token offsets and scores are read from it without Python objects),
    unless it holds strings."""
    if series is None:
        return None  # type: ignore[return-value]
    if arrow:
        arr = arrow_column(series)
        if arr is not None and not (pa.types.is_string(arr.type)
                                    or pa.types.is_large_string(arr.type)):
            return arr
    if hasattr(series, "to_list") and type(series).__module__.startswith("polars"):
        return series.to_list()
    dtype = getattr(series, "dtype", None)
    if isinstance(dtype, pd.ArrowDtype):
        return pa.array(series.array).to_pylist()
    out = list(series)
    return [x.tolist() if isinstance(x, np.ndarray) else x for x in out]


#: Score columns whose string cells are JSON (as in CSV files): their side, an example cell.
_JSON_ROLES = {"soft_ref_col": ("soft_references", '[{"start": 0, "end": 4, "prob": 0.8}]'),
               "soft_pred_col": ("soft_predictions", '[{"start": 0, "end": 4, "prob": 0.8}]'),
               "token_offsets_col": ("token_offsets", "[[0, 4], [5, 9]]"),
               "token_scores_col": ("token_scores", "[0.1, 0.9]")}


def decoded(values: list, name: str, role: str) -> list:
    """A score column's JSON string cells decoded (the span columns' rule); a cell that
    is not JSON is a `SpanValidationError` naming the column and the row."""
    if isinstance(values, pa.Array) or not any(isinstance(v, str) for v in values):
        return values
    side, example = _JSON_ROLES[role]
    out = []
    for row, v in enumerate(values):
        if isinstance(v, str):
            try:
                v = json.loads(v)
            except ValueError as exc:
                problem = (f"Expected a JSON list in {role} column {name!r}, got "
                           f"{v[:60]!r} ({exc}); fix by writing the cell as JSON, e.g. "
                           f"{example}, or giving the column as lists.")
                raise SpanValidationError(f"{side} example {row}: {problem}", side=side,
                                          example=row, problem=problem) from None
        out.append(v)
    return out


def _take(values, pos):
    if isinstance(values, pa.Array):
        return values.take(pa.array(pos, type=pa.int64()))
    return None if values is None else [values[i] for i in pos.tolist()]


def evaluate_scores_table(columns: dict[str, list], groups: Groups, names: Inputs,
                          settings: Settings) -> pa.Table:
    """Tidy rows ``[*keys, metric, measure, value, examples, average, profile]`` per group
    (``ci_low``, ``ci_high`` after ``value`` with ``ci``), the signature in the metadata:
    the rows of ``columns`` (``{column name: rows}``) that ``names`` names, scored under
    ``settings``."""
    rows: dict[str, list] = {c: [] for c in ["group", "metric", "measure", "value",
                                             "ci_low", "ci_high", "examples", "average",
                                             "profile"]}
    signature = None
    # Each group's zero-length spans, told once for the call, the first by its frame row
    # (as `prepare` names it: the first reference span if any, else the first predicted).
    firsts: list[EmptyAt] = []
    with empty_spans_told(hold=True) as told:
        for g, pos in enumerate(groups.positions()):
            before = len(told.parts)
            try:
                r = _evaluate_rows(columns, pos, names, settings)
            except SpanValidationError as exc:
                raise at_row(exc, int(pos[exc.example]) if exc.example is not None
                             else None) from None
            firsts += [at._replace(example=int(pos[at.example]))
                       for _, _, at in told.parts[before:] if isinstance(at, EmptyAt)]
            _rows_of(r, g, rows)
            signature = r["meta"]["signature"]
    told.tell(min(firsts, key=lambda at: (at.side != "references", at.example, at.span))
              if firsts else None)
    group = rows.pop("group")
    types = {"value": pa.float64(), "ci_low": pa.float64(), "ci_high": pa.float64(),
             "examples": pa.int64()}
    out = {c: pa.array(values, types.get(c, pa.string())) for c, values in rows.items()
           if c not in ("ci_low", "ci_high") or settings.bootstrap is not None}
    table = grouped_table(groups, group, out)
    return table.replace_schema_metadata({SIGNATURE_KEY: (signature or "").encode()})


def _rows_of(r: dict[str, Any], g: int, rows: dict[str, list]) -> None:
    """One group's report ``r`` (group ``g``) added to the tidy ``rows``."""
    meta = r["meta"]
    for metric, measures in r.items():
        if metric in ("meta", "ci", "per_example", "by_type"):
            continue
        for measure, value in measures.items():
            ci = r["ci"][metric][measure] if "ci" in r else {"low": None, "high": None}
            for c, v in (("group", g), ("metric", metric), ("measure", measure),
                         ("value", value), ("ci_low", ci["low"]), ("ci_high", ci["high"]),
                         ("examples", meta["examples"]),
                         ("average", fixed_average(metric) or meta["average"]),
                         ("profile", meta["profile"])):
                rows[c].append(v)


def at_row(exc: SpanValidationError, row: int | None) -> SpanValidationError:
    """The error of a group's example told at its frame row (positions count rows)."""
    return exc if row is None else exc.at(row)


def _evaluate_rows(columns, pos, names: Inputs, settings: Settings) -> dict[str, Any]:
    """`mycelium.evaluate` of the rows at ``pos``."""
    rows = Inputs(**{field: _take(columns.get(name) if name else None, pos)
                     for field, name in vars(names).items()})
    keys = None
    if names.ids is None and settings.bootstrap is not None:
        # Without ids a row is keyed by its position in the whole frame, as the span
        # engine keys it (`mycelium.frames.engine.with_intervals`).
        keys = pos.astype(np.uint64)
    return evaluate_settled(rows, settings, keys)


#: Columns passed to the scorers as Arrow arrays when they are Arrow-backed (read
#: column-wise); every other column is read as Python values.
_ARROW_ROLES = {"token_offsets_col", "token_scores_col"}


def collect(column: Callable[[str, str], Any], names: dict[str, str | None]
            ) -> dict[str, list]:
    """``{column name: rows}`` of the named columns (``column(name, role)`` looks one up);
    JSON string cells of a score column decoded (`decoded`)."""
    out: dict[str, list] = {}
    for role, name in names.items():
        if name is not None and name not in out:
            values = rows_of(column(name, role), arrow=role in _ARROW_ROLES)
            out[name] = decoded(values, name, role) if role in _JSON_ROLES else values
    return out


def evaluate_call(column: Callable[[str, str], Any], by, names: Inputs,
                  settings: Settings) -> pa.Table:
    """One frame face's ``evaluate`` with scores: its tidy rows, whose key columns are
    the ``by`` columns' values (`mycelium.core.groups`), the signature in the metadata.

    ``column(name, role)`` returns a column (raising KeyError listing the frame's
    columns); ``names``: the columns of the data (`mycelium.frames.engine.face_call`).
    """
    by_names = normalize_by(by)
    by_columns = {name: column(name, "by") for name in by_names}
    cols = collect(column, {role: getattr(names, field)
                            for role, field in COLUMN_ROLES.items()})
    keys = key_table(by_columns) if by_names else None
    groups = group_codes(keys, len(cols[names.references]))
    return evaluate_scores_table(cols, groups, names, settings)


def call(column: Callable[[str, str], Any], kind: str, by, *, ref_col: str, text=None,
         soft_pred_col=None, token_offsets_col=None, token_scores_col=None, **rest):
    """One frame face's ``sweep`` / ``tune_threshold``.

    ``column(name, role)`` returns a column (raising KeyError listing the frame's
    columns). Returns the sweep's `Curve`, or `tune_threshold`'s rows (a dict without
    ``by``), whose key columns are the ``by`` columns' values (`mycelium.core.groups`).
    """
    names = normalize_by(by)
    by_columns = {name: column(name, "by") for name in names}
    cols = collect(column, {
        "ref_col": ref_col, "text": text, "soft_pred_col": soft_pred_col,
        "token_offsets_col": token_offsets_col, "token_scores_col": token_scores_col})
    if kind == "tune_threshold":
        if "metrics" in rest:  # as mycelium.tune_threshold: one metric, named metric=
            raise TypeError("tune_threshold() got an unexpected keyword argument 'metrics'; "
                            "expected metric= (and measure=), the one measure to maximise.")
        metric, measure = rest.pop("metric", "iou"), rest.pop("measure", "score")
        rest["metrics"] = [metric]
    thresholds = rest.pop("thresholds", None)
    settings = sweep_settings(kind, **rest)
    curve = sweep_curve(Inputs(cols[ref_col], text=cols[text] if text else None,
                               soft_predictions=cols.get(soft_pred_col) if soft_pred_col
                               else None,
                               token_offsets=cols.get(token_offsets_col) if token_offsets_col
                               else None,
                               token_scores=cols.get(token_scores_col) if token_scores_col
                               else None),
                        settings, by=by_columns or None, thresholds=thresholds)
    if kind == "sweep":
        return curve
    return tuned_dict(curve, metric, measure) if not names else curve.tuned_table(
        metric, measure)
