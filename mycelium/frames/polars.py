"""The Polars face: a ``mycelium`` namespace on ``pl.DataFrame`` and ``pl.Expr`` (and, via
`mycelium.frames.polars_lazy`, on ``pl.LazyFrame``).

A thin adapter over `mycelium.frames.engine` (registered by ``import mycelium`` as soon as Polars
is imported): eager frames are scored by the same functions as the pandas accessor, and
the lazy plan computes per-row statistics batch by batch, then reduces them with the
same functions, so every face gives the same numbers bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from . import engine as frames
from .face import FrameFace
from ._options import (Average, By, Granularity, Metrics, Missing, Params, ProfileArg,
                       TrimSpans, Test, ZeroDivision)
from .polars_batches import (
    SPAN_DTYPE,
    polars_frame,
    to_polars,
)

__all__ = ["SPAN_DTYPE", "MyceliumFrame", "MyceliumExpr"]  # MyceliumLazyFrame: polars_lazy


# ------------------------------------------------------------------ DataFrame

@pl.api.register_dataframe_namespace("mycelium")
class MyceliumFrame(FrameFace):
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
    """

    _df: pl.DataFrame

    def _with_key_types(self, out: pl.DataFrame, names: list[str]) -> pl.DataFrame:
        return out.cast({name: self._df.schema[name] for name in names})

    def evaluate(self, ref_col: str, pred_col: str | None = None, *, text: str | None = None,
                 by: By = None, profile: ProfileArg = None, metrics: Metrics = None,
                 average: Average | None = None, zero_division: ZeroDivision = None,
                 params: Params = None, missing: Missing = "error",
                 soft_ref_col: str | None = None, soft_pred_col: str | None = None,
                 granularity: Granularity = "char", ci: float | None = None,
                 n_resamples: int = 1000, seed: int = 0, id_col: str | None = None,
                 progress: bool | None = None, type_field: str | None = None,
                 typed_matching: bool = False, with_signature: bool = True,
                 token_offsets_col: str | None = None, token_scores_col: str | None = None,
                 threshold: float | None = None,
                 trim_spans: TrimSpans = None, offsets: str = "half-open") -> pl.DataFrame:
        """Tidy results: one row per (group, metric, measure).

        Parameters
        ----------
        ref_col, pred_col : str
            Span columns.
        text : str, optional
            Column of output texts; spans must end within them.
        by : str or list of str, optional
            Group key columns. Null keys form their own group; groups are sorted by key
            (nulls last), in the same order as the pandas accessor.
        profile, metrics, average, zero_division, params, missing
            As in `mycelium.evaluate`.
        soft_ref_col, soft_pred_col : str, optional
            Soft-label columns (``List(Struct{start, end, prob})``, or JSON strings):
            add ``soft_spearman`` (needs ``text``; average always ``"macro"``).
        granularity, ci, n_resamples, seed, id_col, progress, type_field, typed_matching
            As in the pandas accessor (`mycelium.frames.pandas.MyceliumAccessor.evaluate`):
            ``ci`` adds ``ci_low`` and ``ci_high`` after ``value``, resampling within
            each group, examples keyed by ``id_col`` ids or else by their row position
            in the whole frame; ``type_field`` gives the per-type rows with a ``type``
            key column after the ``by`` keys.
        trim_spans : {"whitespace", "punctuation"}, optional
            As in `mycelium.evaluate` (needs ``text``; recorded in the signature).
        offsets : {"half-open", "inclusive"}, default "half-open"
            ``"inclusive"`` reads every span ``[s, e]`` as ``[s, e + 1)`` (recorded in the
            signature), as in `mycelium.evaluate`.
        with_signature : bool
            Add the last column ``signature`` (default): the settings signature on every
            row (Polars frames have no ``attrs``; ``pl.concat`` of several results keeps
            it; `mycelium.parse_signature` reads it back from the frame or a value).

        Returns
        -------
        polars.DataFrame
            Columns ``[*by, "metric", "measure", "value", "examples", "average",
            "profile", "signature"]`` (``"ci_low", "ci_high"`` after ``"value"`` with
            ``ci``). Each group's values equal `mycelium.evaluate` on that group's rows,
            bit for bit; ``examples`` sums to the rows scored.

        Raises
        ------
        KeyError
            A column is missing (the message lists the frame's columns).
        TypeError
            A column argument is not a column name.
        ValueError
            An unknown option value (the message lists the valid ones).
        mycelium.SpanValidationError
            A bad span, named by its row position.

        Examples
        --------
        >>> import polars as pl, mycelium
        >>> df = pl.DataFrame({"lang": ["en", "en", "fr"],
        ...                    "ref": [[[0, 10]], [[4, 7]], [[0, 5]]],
        ...                    "pred": [[[2, 8]], [[4, 7]], [[0, 5]]]})
        >>> out = df.mycelium.evaluate("ref", "pred", by="lang", metrics="character",
        ...                            average="micro")
        >>> out.filter(pl.col("measure") == "recall").select("lang", "value").rows()
        [('en', 0.6923076923076923), ('fr', 1.0)]
        >>> mycelium.parse_signature(out["signature"][0])["average"]
        'micro'
        """
        names, settings = frames.face_call(locals())  # first: locals() are the arguments
        table = self._evaluate_table(names, settings, by)
        return self._with_key_types(to_polars(table, with_signature),
                                    frames.normalize_by(by))

    def sweep(self, ref_col: str, *, text: str, soft_pred_col: str | None = None,
              token_offsets_col: str | None = None, token_scores_col: str | None = None,
              by=None, **options) -> pl.DataFrame:
        """`mycelium.sweep` of the frame's columns (as ``df.mycelium.sweep`` on pandas)."""
        curve = self._scores("sweep", by, ref_col=ref_col, text=text,
                             soft_pred_col=soft_pred_col, token_offsets_col=token_offsets_col,
                             token_scores_col=token_scores_col, **options)
        return self._with_key_types(polars_frame(curve.table()), frames.normalize_by(by))

    def tune_threshold(self, ref_col: str, *, text: str, soft_pred_col: str | None = None,
                       token_offsets_col: str | None = None,
                       token_scores_col: str | None = None, by=None, **options):
        """`mycelium.tune_threshold` of the frame's columns (a frame per group with ``by``)."""
        out = self._scores("tune_threshold", by, ref_col=ref_col, text=text,
                           soft_pred_col=soft_pred_col, token_offsets_col=token_offsets_col,
                           token_scores_col=token_scores_col, **options)
        if isinstance(out, dict):
            return out
        return self._with_key_types(polars_frame(out), frames.normalize_by(by))

    def score(self, ref_col: str, pred_col: str, *, text: str | None = None,
              profile: ProfileArg = None, metrics: Metrics = None,
              zero_division: ZeroDivision = None, params: Params = None,
              missing: Missing = "error", soft_ref_col: str | None = None,
              soft_pred_col: str | None = None, granularity: Granularity = "char",
              with_signature: bool = False, trim_spans: TrimSpans = None) -> pl.DataFrame:
        """Per-row measures: one Float64 column ``<metric>_<measure>`` each, same row order.

        Parameters
        ----------
        ref_col, pred_col, text, profile, metrics, zero_division, params, missing
            As in the pandas accessor's ``score``
            (`mycelium.frames.pandas.MyceliumAccessor.score`): there is no ``average``,
            every row is one example.
        soft_ref_col, soft_pred_col, granularity, trim_spans
            As there: soft labels (both or neither) add ``soft_spearman_score``;
            ``granularity`` and ``trim_spans`` need ``text``.
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

    def compare(self, ref_col: str, pred_cols: str | Sequence[str], *, by: By = None,
                id_col: str | None = None, detector_col: str | None = None,
                baseline: str | None = None, test: Test = "paired_bootstrap",
                n_resamples: int = 1000, seed: int = 0, ci: float = 0.95,
                text: str | None = None, profile: ProfileArg = None,
                metrics: Metrics = None, average: Average | None = None,
                zero_division: ZeroDivision = None, params: Params = None,
                missing: Missing = "error", with_signature: bool = False) -> pl.DataFrame:
        """Paired comparison of detectors (`mycelium.compare`), per group.

        Parameters
        ----------
        ref_col, pred_cols, by, id_col, detector_col, baseline, test, n_resamples, seed, ci
            As in the pandas accessor's ``compare`` (wide format: one prediction column
            per detector; long format: one column and ``detector_col``)
            (`mycelium.frames.pandas.MyceliumAccessor.compare`).
        text, profile, metrics, average, zero_division, params, missing
            As in `evaluate`.
        with_signature : bool
            Add a last column ``signature`` holding the settings signature.

        Returns
        -------
        polars.DataFrame
            The columns of the pandas accessor's ``compare``: with ``by``, one
            comparison per group, Holm-corrected within the group.

        Raises
        ------
        ValueError
            In long format, when rows do not pair (as in the pandas accessor's
            ``compare``).

        Examples
        --------
        >>> import polars as pl, mycelium
        >>> df = pl.DataFrame({"id": [0, 1, 2, 0, 1, 2], "detector": ["a"] * 3 + ["b"] * 3,
        ...                    "ref": [[[0, 10]], [[4, 7]], [[2, 5]]] * 2,
        ...                    "pred": [[[0, 10]], [[4, 7]], [[2, 5]], [], [[4, 5]], []]})
        >>> out = df.mycelium.compare("ref", "pred", detector_col="detector", id_col="id",
        ...                           metrics="iou", n_resamples=200)
        >>> out.select("detector_a", "detector_b", "value_a", "value_b").rows()
        [('a', 'b', 1.0, 0.1111111111111111)]
        """
        table = self._compare_table(locals())  # first: locals() are the arguments
        return self._with_key_types(to_polars(table, with_signature),
                                    frames.normalize_by(by))

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
