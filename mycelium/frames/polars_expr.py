"""The Polars expression face: ``pl.col("ref").mycelium.statistics(...)`` and
``.score(...)`` give each row's statistics or values as expressions, usable inside
``select``, ``with_columns`` and ``group_by().agg()``."""

from __future__ import annotations

from functools import partial
from typing import Any

import polars as pl

from ..core.settings import resolve_settings
from ..metrics import METRICS, unknown_name
from ._options import (
    Missing,
    Params,
    ProfileArg,
    ZeroDivision,
)
from .polars_batches import (
    batch_scores,
    batch_statistics,
    TellOnce,
    batch_inputs,
    one_metric,
    stat_fields,
)

__all__ = ["MyceliumExpr"]


@pl.api.register_expr_namespace("mycelium")
class MyceliumExpr:
    """Per-row statistics and scores as expressions: ``pl.col("ref").mycelium.statistics(...)``.

    Both are element-wise (one value per row, usable in ``select``, ``with_columns``
    and inside ``group_by().agg()``), so they stream batch by batch.

    Examples
    --------
    Summing the statistics per group gives the micro average of the frame face:

    >>> import polars as pl, mycelium
    >>> df = pl.DataFrame({"model": ["a", "a", "b"],
    ...                    "ref": [[[0, 10]], [[4, 7]], [[0, 5]]],
    ...                    "pred": [[[2, 8]], [[4, 7]], []]})
    >>> st = pl.col("ref").mycelium.statistics("pred", metric="iou")
    >>> sums = (df.group_by("model").agg(st.struct.field("inter").sum(),
    ...                                  st.struct.field("union").sum())
    ...           .sort("model")
    ...           .with_columns(score=pl.col("inter") / pl.col("union")))
    >>> sums.rows()
    [('a', 9, 13, 0.6923076923076923), ('b', 0, 5, 0.0)]
    >>> frame = df.mycelium.evaluate("ref", "pred", by="model", metrics="iou",
    ...                              average="micro")
    >>> frame["value"].to_list() == sums["score"].to_list()
    True
    >>> scores = df.select(pl.col("ref").mycelium.score("pred", metric="iou",
    ...                                                  measure="score"))
    >>> scores.to_dict(as_series=False)
    {'iou_score': [0.6, 1.0, 0.0]}
    """

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def statistics(self, predictions: str | pl.Expr, *, metric: str,
                   text: str | pl.Expr | None = None, params: Params = None,
                   missing: Missing = "error", offsets: str = "half-open") -> pl.Expr:
        """The per-row sufficient statistics of one metric, as a Struct named ``metric``.

        Parameters
        ----------
        predictions : str or polars.Expr
            The predicted spans (this expression holds the references).
        metric : str
            A span metric name (``"iou"``, ``"character"``, ...); its statistics are the
            Struct's fields (see ``mycelium.metrics.<metric>``).
        text, params, missing, offsets
            As in `mycelium.evaluate`; ``text`` is a column name or an expression.
            Rows left out by ``missing="drop"`` are null. Zero-length spans are told by
            one `mycelium.EmptySpanWarning` per expression, from the first batch
            holding any (`mycelium.frames.polars_batches.TellOnce`).

        Returns
        -------
        polars.Expr
            An element-wise Struct expression named ``metric``, one field per statistic
            (Int64 for counts, Float64 otherwise); summing a field over rows gives the
            statistic of the micro average.

        Raises
        ------
        TypeError, ValueError
            ``metric`` is not one metric name, or an option is invalid (now, not on
            collect).
        mycelium.SpanValidationError
            On evaluation, a bad span (named by its row in the batch Polars evaluates).

        Examples
        --------
        >>> import polars as pl, mycelium
        >>> df = pl.DataFrame({"ref": [[[0, 10]], [[4, 7]]], "pred": [[[2, 8]], []]})
        >>> st = df.select(pl.col("ref").mycelium.statistics("pred", metric="character"))
        >>> st.unnest("character").to_dict(as_series=False)
        {'tp': [6, 0], 'fp': [0, 0], 'fn': [4, 3]}
        """
        settings = resolve_settings(metrics=[one_metric(metric)], params=params,
                                    missing=missing, offsets=offsets)
        fields = stat_fields(settings)
        labels = [k for _, k, _ in fields]
        return batch_inputs(self._expr, predictions, text).map_batches(
            partial(batch_statistics, settings=settings, fields=fields, labels=labels,
                    once=TellOnce()),
            return_dtype=pl.Struct({lab: d for lab, (_, _, d) in zip(labels, fields)}),
            is_elementwise=True).alias(metric)

    def score(self, predictions: str | pl.Expr, *, metric: str, measure: str,
              text: str | pl.Expr | None = None, profile: ProfileArg = None,
              zero_division: ZeroDivision = None, params: Params = None,
              missing: Missing = "error", offsets: str = "half-open") -> pl.Expr:
        """Per-row values of one measure, a Float64 named ``<metric>_<measure>``.

        Parameters
        ----------
        predictions, metric : str or polars.Expr, str
            As in `statistics`: the predicted spans and a span metric name.
        measure : str
            One of the metric's measures (``"score"``, ``"precision"``, ...).
        text, profile, zero_division, params, missing, offsets
            As in `mycelium.evaluate`; ``text`` is a column name or an expression.
            Zero-length spans are told once per expression, as in `statistics`.

        Returns
        -------
        polars.Expr
            An element-wise Float64 expression equal to the column of the same name of
            `MyceliumFrame.score` (null for rows left out by ``missing="drop"``).

        Raises
        ------
        TypeError, ValueError
            An unknown metric or measure (the message lists the valid ones), or an
            invalid option; checked now, not on collect.

        Examples
        --------
        >>> import polars as pl, mycelium
        >>> df = pl.DataFrame({"ref": [[[0, 10]], [[4, 7]]], "pred": [[[2, 8]], []]})
        >>> df.with_columns(pl.col("ref").mycelium.score("pred", metric="character",
        ...                                               measure="recall")
        ...                 )["character_recall"].to_list()
        [0.6, 0.0]
        """
        options: dict[str, Any] = dict(profile=profile, metrics=[one_metric(metric)],
                                       zero_division=zero_division, params=params,
                                       missing=missing, offsets=offsets)
        settings = resolve_settings(**options)  # checked now, not on collect
        if measure not in METRICS[metric].measures:
            raise unknown_name(f"{metric} measure", measure, METRICS[metric].measures)
        name = f"{metric}_{measure}"
        return batch_inputs(self._expr, predictions, text).map_batches(
            partial(batch_scores, settings=settings, column=name, once=TellOnce()),
            return_dtype=pl.Float64, is_elementwise=True).alias(name)
