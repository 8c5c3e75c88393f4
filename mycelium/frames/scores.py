"""Frames with detector scores: ``df.mycelium.evaluate`` with score columns or a threshold,
``df.mycelium.sweep`` and ``df.mycelium.tune_threshold`` (SPEC section 9).

Columns are read positionally into plain lists (`rows_of`; Arrow-backed token offset
and score columns stay Arrow arrays, read column-wise by
`mycelium.core.token_input`) and each group's rows are
scored by `mycelium.evaluate` / `mycelium.sweep` / `mycelium.tune_threshold` themselves,
so every group's values equal the dict face on that group's rows, bit for bit. (The
score metrics are not sums of per-example statistics, so the grouped-sums engine of
`mycelium.frames.engine` does not apply to them.)
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pandas as pd
import pyarrow as pa

from ..core.token_input import arrow_column
from ..errors import SpanValidationError
from ..evaluate import evaluate, evaluate_keyed
from ..scores.plan import score_form_given
from ..scores.thresholds import sweep, tune_threshold

__all__ = ["wanted", "evaluate_scores_frame", "sweep_frame", "tune_frame", "rows_of"]

COLUMNS = ["metric", "measure", "value", "examples", "average", "profile"]
#: Metrics whose value is pooled over the examples whatever ``average`` says.
POOLED = {"response_level": "micro", "token_level": "micro", "response_auroc": "micro",
          "soft_spearman": "macro"}


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


def rows_of(series, *, arrow: bool = False) -> list:
    """A column as a list of Python values, positionally (pandas, Arrow-backed or Polars);
    with ``arrow=True`` an Arrow-backed or Polars column is returned as one pyarrow
    Array instead (token offsets and scores are read from it without Python objects)."""
    if series is None:
        return None  # type: ignore[return-value]
    if arrow:
        arr = arrow_column(series)
        if arr is not None:
            return arr
    if hasattr(series, "to_list") and type(series).__module__.startswith("polars"):
        return series.to_list()
    dtype = getattr(series, "dtype", None)
    if isinstance(dtype, pd.ArrowDtype):
        import pyarrow as pa

        return pa.array(series.array).to_pylist()
    out = list(series)
    return [x.tolist() if isinstance(x, np.ndarray) else x for x in out]


def _groups(columns: dict[str, list], by: list[str], n: int):
    """[(key tuple, positions)] in sorted key order, null keys their own group."""
    if not by:
        return [((), np.arange(n))]
    df = pd.DataFrame({b: columns[b] for b in by})
    codes = df.groupby(by, dropna=False, sort=True).ngroup().to_numpy()
    out = []
    for g in range(int(codes.max()) + 1 if n else 0):
        pos = np.flatnonzero(codes == g)
        out.append((tuple(df.iloc[int(pos[0])].tolist()), pos))
    return out


def _take(values, pos):
    if isinstance(values, pa.Array):
        return values.take(pa.array(pos, type=pa.int64()))
    return None if values is None else [values[i] for i in pos.tolist()]


def evaluate_scores_frame(columns: dict[str, list], *, ref: str, pred: str | None,
                          text: str | None, by: list[str], soft_ref: str | None,
                          soft_pred: str | None, token_offsets: str | None,
                          token_scores: str | None, threshold, options: dict,
                          id_col: str | None = None) -> pd.DataFrame:
    """Tidy rows ``[*by, metric, measure, value, examples, average, profile]`` per group."""
    n = len(columns[ref])
    rows, signature = [], None
    for key, pos in _groups(columns, by, n):
        try:
            r = _evaluate_rows(columns, pos, ref=ref, pred=pred, text=text,
                               soft_ref=soft_ref, soft_pred=soft_pred,
                               token_offsets=token_offsets, token_scores=token_scores,
                               threshold=threshold, options=options, id_col=id_col)
        except SpanValidationError as exc:
            raise at_row(exc, int(pos[exc.example]) if exc.example is not None else None) \
                from None
        meta = r["meta"]
        signature = meta["signature"]
        for metric, measures in r.items():
            if metric in ("meta", "ci", "per_example", "by_type"):
                continue
            for measure, value in measures.items():
                row = [*key, metric, measure, value]
                if "ci" in r:
                    ci = r["ci"][metric][measure]
                    row += [ci["low"], ci["high"]]
                rows.append(row + [meta["examples"], POOLED.get(metric, meta["average"]),
                                   meta["profile"]])
    cols = list(COLUMNS)
    if options.get("ci") is not None:
        cols[3:3] = ["ci_low", "ci_high"]
    out = pd.DataFrame(rows, columns=by + cols)
    out.attrs["mycelium_signature"] = signature
    return out


def at_row(exc: SpanValidationError, row: int | None) -> SpanValidationError:
    """The error of a group's example told at its frame row (positions count rows)."""
    if row is None or exc.side is None:
        return exc
    item = "token" if exc.side in ("token_offsets", "token_scores") or (
        exc.side == "soft_predictions" and "token" in str(exc)) else "span"
    where = f"{exc.side} example {row}" + ("" if exc.span is None else
                                           f", {item} {exc.span}")
    return SpanValidationError(f"{where}: {exc.problem}", side=exc.side, example=row,
                               span=exc.span, problem=exc.problem, fix=exc.fix)


def _evaluate_rows(columns, pos, *, ref, pred, text, soft_ref, soft_pred, token_offsets,
                   token_scores, threshold, options, id_col):
    def col(name):
        return _take(columns.get(name) if name else None, pos)

    kwargs = dict(text=col(text), soft_references=col(soft_ref),
                  soft_predictions=col(soft_pred), token_offsets=col(token_offsets),
                  token_scores=col(token_scores), threshold=threshold, **options)
    if id_col is None and options.get("ci") is not None:
        # Without ids a row is keyed by its position in the whole frame, as the span
        # engine keys it (`mycelium.frames.engine.with_intervals`).
        return evaluate_keyed(pos.astype(np.uint64), col(ref), col(pred), **kwargs)
    return evaluate(col(ref), col(pred), ids=col(id_col), **kwargs)


def _score_kwargs(columns, text, soft_pred, token_offsets, token_scores) -> dict[str, Any]:
    return {"text": columns[text] if text else None,
            "soft_predictions": columns.get(soft_pred) if soft_pred else None,
            "token_offsets": columns.get(token_offsets) if token_offsets else None,
            "token_scores": columns.get(token_scores) if token_scores else None}


def _by_dict(columns, by: list[str]):
    return {b: columns[b] for b in by} if by else None


def sweep_frame(columns: dict[str, list], *, ref: str, text: str, by: list[str],
                soft_pred, token_offsets, token_scores, **options) -> pd.DataFrame:
    """`mycelium.sweep` of a frame's columns (groups by ``by``)."""
    return sweep(columns[ref], by=_by_dict(columns, by),
                 **_score_kwargs(columns, text, soft_pred, token_offsets, token_scores),
                 **options)


def tune_frame(columns: dict[str, list], *, ref: str, text: str, by: list[str],
               soft_pred, token_offsets, token_scores, **options):
    """`mycelium.tune_threshold` of a frame's columns (per group with ``by``)."""
    return tune_threshold(columns[ref], by=_by_dict(columns, by),
                          **_score_kwargs(columns, text, soft_pred, token_offsets,
                                          token_scores), **options)


#: Columns passed to the scorers as Arrow arrays when they are Arrow-backed (read
#: column-wise); every other column is read as Python values.
_ARROW_ROLES = {"token_offsets_col", "token_scores_col"}


def collect(column: Callable[[str, str], Any], names: dict[str, str | None]
            ) -> dict[str, list]:
    """``{column name: rows}`` of the named columns (``column(name, role)`` looks one up)."""
    out: dict[str, list] = {}
    for role, name in names.items():
        if name is not None and name not in out:
            out[name] = rows_of(column(name, role), arrow=role in _ARROW_ROLES)
    return out


def call(column: Callable[[str, str], Any], kind: str, by, *, ref_col: str, text=None,
         pred_col=None, soft_ref_col=None, soft_pred_col=None, token_offsets_col=None,
         token_scores_col=None, id_col=None, threshold=None, options=None, **rest):
    """One frame face's ``evaluate`` / ``sweep`` / ``tune_threshold`` with scores.

    ``column(name, role)`` returns a column (raising KeyError listing the frame's
    columns); the columns are read positionally (`rows_of`).
    """
    from .groups import normalize_by

    names = normalize_by(by)
    cols = collect(column, {
        "ref_col": ref_col, "pred_col": pred_col, "text": text,
        "soft_ref_col": soft_ref_col, "soft_pred_col": soft_pred_col,
        "token_offsets_col": token_offsets_col, "token_scores_col": token_scores_col,
        "id_col": id_col, **{f"by[{i}]": b for i, b in enumerate(names)}})
    if kind == "evaluate":
        return evaluate_scores_frame(cols, ref=ref_col, pred=pred_col, text=text, by=names,
                                     soft_ref=soft_ref_col, soft_pred=soft_pred_col,
                                     token_offsets=token_offsets_col,
                                     token_scores=token_scores_col, threshold=threshold,
                                     id_col=id_col, options=options or {})
    run = sweep_frame if kind == "sweep" else tune_frame
    return run(cols, ref=ref_col, text=text, by=names, soft_pred=soft_pred_col,
               token_offsets=token_offsets_col, token_scores=token_scores_col, **rest)
