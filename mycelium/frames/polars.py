"""The Polars face: a ``mycelium`` namespace on ``pl.DataFrame`` and ``pl.Expr`` (and, via
`mycelium.frames.polars_lazy`, on ``pl.LazyFrame``).

A thin adapter over `mycelium.frames.engine` (registered by ``import mycelium`` as soon as Polars
is imported): eager frames are scored by the same functions as the pandas accessor, and
the lazy plan computes per-row statistics batch by batch, then reduces them with the
same functions, so every face gives the same numbers bit for bit.
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from . import engine as frames
from .face import FrameFace
from .told import telling_empty_spans
from ._options import (By, Granularity, Metrics, Missing, Params, ProfileArg, TrimSpans,
                       ZeroDivision)
from .polars_batches import (
    SPAN_DTYPE,
    polars_frame,
    to_polars,
)

__all__ = ["SPAN_DTYPE", "MyceliumFrame", "MyceliumExpr"]  # MyceliumLazyFrame: polars_lazy


# ------------------------------------------------------------------ DataFrame

@pl.api.register_dataframe_namespace("mycelium")
class MyceliumFrame(FrameFace[pl.DataFrame]):
    """Score span columns of a Polars DataFrame: ``df.mycelium.evaluate(...)``, ``.score(...)``,
    ``.compare(...)``.

    Span columns are `SPAN_DTYPE` (``List(Struct{start, end})``, extra struct fields
    ignored), lists of ``[start, end]`` pairs, or JSON strings.

    Examples
    --------
    >>> import polars as pl, mycelium
    >>> from mycelium.frames.polars import SPAN_DTYPE
    >>> df = pl.DataFrame({"model": ["a", "a", "b"],
    ...                    "ref": [[{"start": 0, "end": 10}], [{"start": 4, "end": 7}],
    ...                            [{"start": 0, "end": 5}]],
    ...                    "pred": [[{"start": 2, "end": 8}], [{"start": 4, "end": 7}], []]},
    ...                   schema_overrides={"ref": SPAN_DTYPE, "pred": SPAN_DTYPE})
    >>> out = df.mycelium.evaluate("ref", "pred", by="model", metrics="iou")
    >>> out.columns
    ['model', 'metric', 'measure', 'value', 'examples', 'average', 'profile', 'signature']
    >>> out.select("model", "value", "examples").rows()
    [('a', 0.8, 2), ('b', 0.0, 1)]
    >>> df.mycelium.score("ref", "pred", metrics="iou")["iou_score"].to_list()
    [0.6, 1.0, 0.0]

    ``evaluate`` and ``compare`` take the pandas accessor's keywords
    (`mycelium.frames.face.FrameFace`) and return a Polars frame:

    >>> df = pl.DataFrame({"lang": ["en", "en", "fr"],
    ...                    "ref": [[[0, 10]], [[4, 7]], [[0, 5]]],
    ...                    "pred": [[[2, 8]], [[4, 7]], [[0, 5]]]})
    >>> out = df.mycelium.evaluate("ref", "pred", by="lang", metrics="character",
    ...                            average="micro")
    >>> out.filter(pl.col("measure") == "recall").select("lang", "value").rows()
    [('en', 0.6923076923076923), ('fr', 1.0)]
    >>> mycelium.parse_signature(out["signature"][0])["average"]
    'micro'
    >>> df = pl.DataFrame({"id": [0, 1, 2, 0, 1, 2], "detector": ["a"] * 3 + ["b"] * 3,
    ...                    "ref": [[[0, 10]], [[4, 7]], [[2, 5]]] * 2,
    ...                    "pred": [[[0, 10]], [[4, 7]], [[2, 5]], [], [[4, 5]], []]})
    >>> out = df.mycelium.compare("ref", "pred", detector_col="detector", id_col="id",
    ...                           metrics="iou", n_resamples=200)
    >>> out.select("detector_a", "detector_b", "value_a", "value_b").rows()
    [('a', 'b', 1.0, 0.1111111111111111)]
    """

    _df: pl.DataFrame

    def _with_key_types(self, out: pl.DataFrame, names: list[str]) -> pl.DataFrame:
        return out.cast({name: self._df.schema[name] for name in names})

    def _result(self, table: pa.Table, by: By, with_signature: bool) -> pl.DataFrame:
        """``evaluate``'s and ``compare``'s frame, its key columns in the frame's types."""
        return self._with_key_types(to_polars(table, with_signature),
                                    frames.normalize_by(by))

    def _frame(self, table: pa.Table, by: By) -> pl.DataFrame:
        return self._with_key_types(polars_frame(table), frames.normalize_by(by))

    @telling_empty_spans
    def score(self, ref_col: str, pred_col: str, *, text: str | None = None,
              profile: ProfileArg = None, metrics: Metrics = None,
              zero_division: ZeroDivision = None, params: Params = None,
              missing: Missing = "error", soft_ref_col: str | None = None,
              soft_pred_col: str | None = None, granularity: Granularity = "char",
              with_signature: bool = False, trim_spans: TrimSpans = None,
              offsets: str = "half-open") -> pl.DataFrame:
        """Per-row measures: one Float64 column ``<metric>_<measure>`` each, same row order.

        Parameters
        ----------
        ref_col, pred_col, text, profile, metrics, zero_division, params, missing
            As in the pandas accessor's ``score``
            (`mycelium.frames.pandas.MyceliumAccessor.score`): there is no ``average``,
            every row is one example.
        soft_ref_col, soft_pred_col, granularity, trim_spans, offsets
            As there: soft labels (both or neither) add ``soft_spearman_score``;
            ``granularity`` and ``trim_spans`` need ``text``; ``offsets="inclusive"``
            reads ``[s, e]`` as ``[s, e + 1)``.
        with_signature : bool
            Add a last column ``signature`` holding the settings signature.

        Returns
        -------
        polars.DataFrame
            One Float64 column ``<metric>_<measure>`` per measure, in row order: each
            row's values are `mycelium.evaluate` of that row alone. Rows left out by
            ``missing="drop"`` are null; an undefined value under
            ``zero_division="nan"`` is NaN.

        Raises
        ------
        KeyError, TypeError, ValueError, mycelium.SpanValidationError
            As for `evaluate` (a bad span is named by its row position).

        Notes
        -----
        The caller's frame is not modified; attach the result with
        ``df.hstack(df.mycelium.score(...))``.

        Examples
        --------
        >>> import polars as pl, mycelium
        >>> df = pl.DataFrame({"ref": [[[0, 10]], None, []],
        ...                    "pred": [[[2, 8]], [[4, 7]], []]})
        >>> out = df.mycelium.score("ref", "pred", metrics="character", missing="drop",
        ...                         zero_division="nan")
        >>> out.rows()
        [(1.0, 0.6, 0.75), (None, None, None), (nan, nan, nan)]
        """
        names, settings = frames.face_call(locals())  # first: locals() are the arguments
        table = self._score_table(names, settings)
        return to_polars(table, with_signature)

    def show(self, ref_col: str, pred_col, *, text: str | None = None, sort_by: str = "iou",
             ascending: bool = True, n: int = 10, by=None, **options):
        """Look at the worst (or best) rows first, per group: a `mycelium.show` view.

        The pandas accessor's ``show``
        (`mycelium.frames.pandas.MyceliumAccessor.show`), by the same engine: for the
        same data, the same rows in the same order and the same HTML; rows are titled
        by their position (a Polars frame has no index).

        Parameters
        ----------
        ref_col, pred_col, text, sort_by, ascending, n, by, **options
            As in the pandas accessor's ``show``.

        Returns
        -------
        mycelium.report.view.SpanView

        Examples
        --------
        >>> import polars as pl, mycelium
        >>> df = pl.DataFrame({"text": ["one two", "three"], "ref": [[[0, 3]], [[0, 5]]],
        ...                    "pred": [[[0, 3]], [[2, 5]]]})
        >>> view = df.mycelium.show("ref", "pred", text="text", n=1, ascending=False)
        >>> [ex.title for ex in view.examples]  # the best row first
        ['row 0 · iou_score 1.000']
        """
        return self._show(ref_col, pred_col, text=text, sort_by=sort_by,
                          ascending=ascending, n=n, by=by, **options)


# ------------------------------------------------------------------ LazyFrame


from .polars_expr import MyceliumExpr  # noqa: E402  (registers pl.Expr.mycelium)
