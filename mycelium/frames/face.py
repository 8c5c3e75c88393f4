"""What the pandas accessor and the Polars namespace share: finding a frame's columns and
handing them to `mycelium.frames.engine`, `mycelium.frames.scores` and
`mycelium.frames.compare`.

Both faces take the same options and must give the same numbers, so the one way from
column names to an Arrow result table lives here, and so do the two methods whose keyword
signatures are the same on both faces, ``evaluate`` and ``compare``: each face keeps only
the conversion of a result table into its own frame type (`FrameFace._result`), its
other methods and its examples.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

import pyarrow as pa

from ..core.inputs import Inputs
from ..core.settings import Settings
from . import engine as frames
from .told import telling_empty_spans
from ._options import (Average, By, Granularity, Metrics, Missing, Params, ProfileArg,
                       TrimSpans, Test, ZeroDivision)

__all__ = ["FrameFace"]

_T = TypeVar("_T")
#: The frame type a face returns (``pandas.DataFrame``, ``polars.DataFrame``).
Frame = TypeVar("Frame")


class FrameFace(Generic[Frame]):
    """The column plumbing of a frame face over ``df`` (a pandas or Polars DataFrame:
    anything with ``df[name]``, ``df.columns`` and ``len(df)``), returning ``Frame``s."""

    def __init__(self, df: Any) -> None:
        self._df = df

    def _column(self, name: object, role: str) -> Any:
        """The column ``name``; KeyError (listing the columns) or TypeError otherwise."""
        return self._df[frames.check_column(name, role, list(self._df.columns))]

    def _optional(self, name: str | None, role: str) -> Any:
        return None if name is None else self._column(name, role)

    def _keys(self, names: list[str]) -> pa.Table | None:
        if not names:
            return None
        return frames.key_table({name: self._column(name, "by") for name in names})

    def _labelled(self, run: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """``run(*args, **kwargs)``; a face whose rows have labels adds them to a span
        error here (the pandas accessor does)."""
        return run(*args, **kwargs)

    def _evaluate_table(self, names: Inputs, settings: Settings, by: Any) -> pa.Table:
        """The result table of ``evaluate``: span columns through the engine; scores, a
        threshold or score metrics through `mycelium.frames.scores` (which also takes a
        missing ``pred_col``). ``names``, ``settings``: the face's columns and options
        (`mycelium.frames.engine.face_call`)."""
        from . import scores

        if scores.wanted(names.predictions, names.soft_references, names.soft_predictions,
                         names.token_offsets, names.token_scores, settings.threshold,
                         settings.option("metrics"), profile=settings.option("profile")):
            return self._labelled(scores.evaluate_call, self._column, by, names, settings)
        keys = self._keys(frames.normalize_by(by))
        return self._labelled(frames.evaluate_table, frames.columns_of(names, self._column),
                              settings,
                              None if keys is None else frames.group_codes(keys, len(self._df)))

    def _score_table(self, names: Inputs, settings: Settings) -> pa.Table:
        """The per-row table of ``score`` (`mycelium.frames.engine.score_table`)."""
        return self._labelled(frames.score_table, frames.columns_of(names, self._column),
                              settings)

    def _scores(self, kind: str, by: Any, **kwargs: Any) -> Any:
        """``sweep`` or ``tune_threshold`` of the frame's columns
        (`mycelium.frames.scores.call`)."""
        from . import scores

        return self._labelled(scores.call, self._column, kind, by, **kwargs)

    def _compare_table(self, arguments: Mapping[str, Any]) -> pa.Table:
        """The result table of ``compare`` (`mycelium.frames.compare.compare_table`) from
        the face's bound keyword ``arguments`` (its ``locals()``): every option of the
        face's signature is handed on, so the two faces keep no list of their own."""
        from .compare import compare_table

        options = {k: v for k, v in arguments.items()
                   if k not in frames.FACE_ONLY and k not in ("ref_col", "pred_cols")}
        return self._labelled(compare_table, self._column, arguments["ref_col"],
                              arguments["pred_cols"], n_rows=len(self._df),
                              keys=self._keys(frames.normalize_by(arguments.get("by"))),
                              **options)

    def _show(self, ref_col: str, pred_col: Any, **options: Any) -> Any:
        """The `mycelium.show` view of the frame's rows (``show``)."""
        import mycelium  # the view layer sits above frames: reached through the package face

        return mycelium._frame_view(self._df, ref_col, pred_col, **options)

    def _frame(self, table: pa.Table, by: By) -> Frame:
        """The face's frame of ``table``, its ``by`` key columns in the frame's types
        (``sweep``, ``tune_threshold``)."""
        raise NotImplementedError(f"{type(self).__name__} converts no tables; a frame "
                                  "face defines _frame.")

    def _result(self, table: pa.Table, by: By, with_signature: bool) -> Frame:
        """The face's frame of a tidy result ``table`` (``evaluate``, ``compare``): the
        ``by`` key columns keep the frame's types; ``with_signature`` adds the last
        column ``signature``."""
        raise NotImplementedError(f"{type(self).__name__} converts no result tables; "
                                  "a frame face defines _result.")

    @telling_empty_spans
    def evaluate(self, ref_col: str, pred_col: str | None = None, *, text: str | None = None,
                 by: By = None, profile: ProfileArg = None, metrics: Metrics = None,
                 average: Average | None = None, zero_division: ZeroDivision = None,
                 params: Params = None, missing: Missing = "error",
                 soft_ref_col: str | None = None, soft_pred_col: str | None = None,
                 granularity: Granularity = "char", ci: float | None = None,
                 n_resamples: int = 1000, seed: int = 0, id_col: str | None = None,
                 progress: bool | None = None, type_field: str | None = None,
                 typed_matching: bool = False, token_offsets_col: str | None = None,
                 token_scores_col: str | None = None,
                 threshold: float | None = None,
                 trim_spans: TrimSpans = None, with_signature: bool = True,
                 offsets: str = "half-open") -> Frame:
        """Tidy results: one row per (group, metric, measure).

        The same method on the pandas accessor and the Polars namespace: each returns
        its own frame type (``pandas.DataFrame``, ``polars.DataFrame``), with the same
        rows and values.

        Parameters
        ----------
        ref_col, pred_col : str
            Span columns: lists of ``[start, end]`` pairs or ``{start, end}`` structs
            (pandas ``ArrowDtype(SPAN_TYPE)``, Polars
            `mycelium.frames.polars.SPAN_DTYPE`; extra struct fields are ignored),
            or JSON strings.
        text : str, optional
            Column of output texts; spans must end within them.
        by : str or list of str, optional
            Group key columns; null keys form their own group; groups are sorted by
            key (nulls last), in the same order on every face.
        profile, metrics, average, zero_division, params, missing
            As in `mycelium.evaluate`.
        soft_ref_col, soft_pred_col : str, optional
            Columns of soft labels, a list of ``{start, end, prob}`` per row (Arrow
            ``list<struct<start, end, prob>>``, lists of dicts, or JSON strings); both
            or neither. They add the ``soft_spearman`` metric (needs ``text``): rows
            with measure ``score`` and average always ``"macro"``. ``soft_pred_col``
            alone is a score column (below).
        token_offsets_col, token_scores_col, threshold : optional
            Detector scores (`mycelium.evaluate`'s ``soft_predictions`` /
            ``token_offsets`` + ``token_scores``, needs ``text``; lists, Arrow lists or
            JSON strings per row) and a threshold
            whose spans replace ``pred_col``: the score metrics and ``response_level``
            are added (`mycelium.frames.scores`; each group is scored by
            `mycelium.evaluate` on its rows; with ``ci`` and no ``id_col`` a row is
            keyed by its position in the frame, as for span columns).
        granularity : {"char", "word", "sentence"}
            Unit of scoring (needs ``text``), as in `mycelium.evaluate`.
        trim_spans : {"whitespace", "punctuation"}, optional
            Strip whitespace (or whitespace and punctuation) from both ends of every span
            before scoring (needs ``text``; recorded in the signature), as in
            `mycelium.evaluate`. Not combined with ``type_field``.
        offsets : {"half-open", "inclusive"}, default "half-open"
            ``"inclusive"`` reads every span ``[s, e]`` as ``[s, e + 1)`` (recorded in the
            signature), as in `mycelium.evaluate`.
        ci : float, optional
            Confidence level (e.g. 0.95): adds ``ci_low`` and ``ci_high`` after
            ``value`` (which stays the full-data estimate): percentile-bootstrap
            intervals, resampling examples within each group.
        n_resamples, seed : int
            Resamples and seed of the intervals (recorded in the signature).
        id_col : str, optional
            Column of example ids keying the resamples (`mycelium.stats.bootstrap`); ids must
            be unique within each group. Without it an example is keyed by its row
            position in the whole frame, so a group's interval depends on where its
            rows sit in the frame; with ids it depends on the ids only.
        progress : bool, optional
            Progress bar while resampling (default: only on a terminal, for long runs).
        type_field : str, optional
            Span field holding a hallucination type (e.g. ``"label_type"``): the result
            is then the per-type breakdown only (see Returns).
        typed_matching : bool
            With ``type_field``, restrict predictions to each type too.
        with_signature : bool
            Add the last column ``signature`` (default): the settings signature on every
            row, which ``pd.concat`` and ``pl.concat`` of several results keep (pandas
            ``attrs`` they drop; Polars frames have none);
            `mycelium.parse_signature` reads it back from the frame or a value.

        Returns
        -------
        pandas.DataFrame or polars.DataFrame
            The face's frame type. Columns ``[*by, "metric", "measure", "value",
            "examples", "average", "profile", "signature"]``, with ``"ci_low",
            "ci_high"`` after ``"value"`` when ``ci`` is given; on pandas
            ``attrs["mycelium_signature"]`` holds the signature too. Each group's values
            equal `mycelium.evaluate` on that group's rows, bit for bit, and so do its
            intervals with the same example keys (`mycelium.evaluate.intervals`);
            ``examples`` sums to the rows scored.

            With ``type_field``: columns ``[*by, "type", "metric", "measure", "value",
            "examples", "average", "profile", "signature"]``, the entries of ``evaluate(...,
            type_field=...)["by_type"]`` on each group's rows: per type the measures
            `mycelium.views.typology` defines per type, then a row with metric ``"counts"``,
            measure ``"n_ref"`` (the type's reference spans) and average ``"sum"``;
            ``examples`` counts the group's examples having the type. (Soft labels and
            ``ci`` are not available there.)

            With ``soft_spearman_by_label`` (``profile="shroom_visions"``, whose span
            columns are typed soft labels ``{start, end, prob, label}``): a ``"type"``
            column after the keys; each group's means (type null), then per label its
            ``soft_spearman`` and ``iou`` (average ``"macro"``) and the counts
            ``n_ref`` and ``n_pred`` (average ``"sum"``), the entries of
            ``evaluate(...)["by_type"]`` (`mycelium.views.soft_labels`).

        Raises
        ------
        KeyError
            A named column is not in the frame (the message lists the frame's columns).
        TypeError
            A column argument is not a column name.
        ValueError
            An unknown option value (the message lists the valid ones).
        mycelium.SpanValidationError
            A bad span, named by its row position and, on pandas unless the index is
            the default ``RangeIndex``, its row's index label.

        Examples
        --------
        The Polars namespace's examples are in `mycelium.frames.polars.MyceliumFrame`.

        >>> import pandas as pd, mycelium
        >>> df = pd.DataFrame({"ref": [[[0, 10]], [[4, 7]], [[0, 5]], [[1, 3]]],
        ...                    "pred": [[[2, 8]], [[4, 7]], [], [[1, 3]]]})
        >>> out = df.mycelium.evaluate("ref", "pred", metrics="iou", ci=0.9,
        ...                            n_resamples=200)
        >>> out.columns.tolist()  # doctest: +NORMALIZE_WHITESPACE
        ['metric', 'measure', 'value', 'ci_low', 'ci_high', 'examples', 'average', 'profile',
         'signature']
        >>> bool(out.ci_low[0] <= out.value[0] <= out.ci_high[0])
        True
        """
        names, settings = frames.face_call(locals())  # first: locals() are the arguments
        return self._result(self._evaluate_table(names, settings, by), by, with_signature)

    @telling_empty_spans
    def compare(self, ref_col: str, pred_cols: str | Sequence[str], *, by: By = None,
                id_col: str | None = None, detector_col: str | None = None,
                baseline: str | None = None, test: Test = "paired_bootstrap",
                n_resamples: int = 1000, seed: int = 0, ci: float = 0.95,
                text: str | None = None, profile: ProfileArg = None,
                metrics: Metrics = None, average: Average | None = None,
                zero_division: ZeroDivision = None, params: Params = None,
                missing: Missing = "error", with_signature: bool = False) -> Frame:
        """Paired comparison of detectors (`mycelium.compare`), per group.

        The same method on the pandas accessor and the Polars namespace: each returns
        its own frame type, with the same rows and values.

        Parameters
        ----------
        ref_col : str
            Reference span column.
        pred_cols : list of str, or str with ``detector_col``
            Wide format: one prediction column per detector (named by the column).
            Long format: the one prediction column, with ``detector_col`` naming each
            row's detector; rows of different detectors are paired by ``id_col``.
        by : str or list of str, optional
            Group key columns: each group is compared on its own rows.
        id_col : str, optional
            Example ids: resampling keys (and, in long format, required to pair rows).
            Without ids (wide format), examples are keyed by their position within
            their group.
        detector_col : str, optional
            Long format: the column naming each row's detector (compared in sorted
            order of their names).
        baseline : optional
            Compare every other detector with this one; default: every pair.
        test, n_resamples, seed, ci
            As in `mycelium.compare`.
        text, profile, metrics, average, zero_division, params, missing
            As in `evaluate`.
        with_signature : bool
            Add a last column ``signature`` holding the settings signature (off by
            default; on pandas ``attrs["mycelium_signature"]`` holds it either way).

        Returns
        -------
        pandas.DataFrame or polars.DataFrame
            The face's frame type: ``[*by, detector_a, detector_b, metric, measure,
            value_a, value_b, difference, ci_low, ci_high, p_value, p_holm, test,
            n_resamples, examples, average, profile]``: for each group, the frame of
            `mycelium.compare` on the group's rows (so Holm's correction runs within
            each group's (metric, measure) family).

        Raises
        ------
        ValueError
            In long format, when rows do not pair: a detector lacks an id another has,
            an id occurs twice for one detector, or references (or texts) differ
            between detectors for one id.

        Examples
        --------
        The Polars namespace's examples are in `mycelium.frames.polars.MyceliumFrame`.

        >>> import pandas as pd, mycelium
        >>> df = pd.DataFrame({"ref": [[[0, 10]], [[4, 7]], [[2, 5]], [[0, 3]]] * 5,
        ...                    "good": [[[0, 10]], [[4, 7]], [[2, 5]], [[0, 3]]] * 5,
        ...                    "poor": [[[5, 9]], [], [[0, 1]], [[1, 9]]] * 5})
        >>> out = df.mycelium.compare("ref", ["good", "poor"], metrics="iou",
        ...                           n_resamples=200)
        >>> out[["detector_a", "detector_b", "difference"]].round(4).values.tolist()
        [['good', 'poor', 0.8444]]
        """
        table = self._compare_table(locals())  # first: locals() are the arguments
        return self._result(table, by, with_signature)

    def sweep(self, ref_col: str, *, text: str, soft_pred_col: str | None = None,
              token_offsets_col: str | None = None, token_scores_col: str | None = None,
              by: By = None, **options: Any) -> Frame:
        """`mycelium.sweep` of the frame's columns: ``[*by, threshold, metric, measure,
        value, examples, average, profile]`` (``options`` as for `mycelium.sweep`), in
        the face's frame type; a pandas frame's ``attrs["signature"]`` holds the
        signature."""
        curve = self._scores("sweep", by, ref_col=ref_col, text=text,
                             soft_pred_col=soft_pred_col, token_offsets_col=token_offsets_col,
                             token_scores_col=token_scores_col, **options)
        out = self._frame(curve.table(), by)
        attrs = getattr(out, "attrs", None)  # pandas frames have attrs, Polars frames not
        if isinstance(attrs, dict):
            attrs["signature"] = curve.signature
        return out

    def tune_threshold(self, ref_col: str, *, text: str, soft_pred_col: str | None = None,
                       token_offsets_col: str | None = None,
                       token_scores_col: str | None = None, by: By = None, **options: Any):
        """`mycelium.tune_threshold` of the frame's columns: its dict, or with ``by`` a
        frame of the face's type, one row per group."""
        out = self._scores("tune_threshold", by, ref_col=ref_col, text=text,
                           soft_pred_col=soft_pred_col, token_offsets_col=token_offsets_col,
                           token_scores_col=token_scores_col, **options)
        return out if isinstance(out, dict) else self._frame(out, by)
