"""The ``df.mycelium`` pandas accessor: a thin, stateless adapter over `mycelium.frames.engine`.

Columns are handed to the core positionally (the index is never used for alignment,
``.loc`` is never used), the caller's frame is never modified, and results keep the
caller's index where they are per row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pandas as pd

from ..core.groups import pandas_frame
from ..core.provenance import dataset_of
from ..core.signature import signature_with
from ..errors import SpanValidationError
from . import engine as frames
from .face import FrameFace
from ._options import (Average, By, Granularity, Metrics, Missing, Params, ProfileArg,
                       TrimSpans, Test, ZeroDivision)
from .to_pandas import SIGNATURE_ATTR, tidy_to_pandas, with_index_label, with_signature_column

__all__ = ["MyceliumAccessor"]

_T = TypeVar("_T")

# The placeholder mycelium.frames._hooks set when pandas was imported gives way: the
# registration below would warn that it overrides an attribute.
if getattr(pd.DataFrame.__dict__.get("mycelium"), "placeholder", False):
    del pd.DataFrame.mycelium


@pd.api.extensions.register_dataframe_accessor("mycelium")
class MyceliumAccessor(FrameFace):
    """Score span columns of a DataFrame: ``df.mycelium.evaluate(...)``, ``.score(...)``,
    ``.compare(...)``.

    Examples
    --------
    >>> import pandas as pd, mycelium
    >>> df = pd.DataFrame({"model": ["a", "a", "b"],
    ...                    "ref": [[[0, 10]], [[4, 7]], [[0, 5]]],
    ...                    "pred": [[[2, 8]], [[4, 7]], []]})
    >>> out = df.mycelium.evaluate("ref", "pred", by="model", metrics="iou")
    >>> out.drop(columns="signature")  # the last column: the settings signature, per row
      model metric measure  value  examples average profile
    0     a    iou   score    0.8         2   macro    None
    1     b    iou   score    0.0         1   macro    None
    >>> df.mycelium.score("ref", "pred", metrics="iou")
       iou_score
    0        0.6
    1        1.0
    2        0.0
    """

    _df: pd.DataFrame

    def _key_dtypes(self, by: By) -> dict[str, Any]:
        return {name: self._df[name].dtype for name in frames.normalize_by(by)}

    def _labelled(self, run: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """``run(*args, **kwargs)``; a span error also names its row's index label (the
        engine's positions are frame rows)."""
        try:
            return run(*args, **kwargs)
        except SpanValidationError as exc:
            raise with_index_label(exc, self._df.index) from None

    def _stamped(self, out: _T) -> _T:
        """``out`` with the frame's dataset provenance (a loader's ``attrs``) appended to
        its signature (`mycelium.io.provenance`)."""
        attrs = getattr(out, "attrs", None)
        if isinstance(attrs, dict) and attrs.get(SIGNATURE_ATTR) is not None:
            attrs[SIGNATURE_ATTR] = signature_with(attrs[SIGNATURE_ATTR],
                                                   dataset=dataset_of(self._df))
        return out

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
                 offsets: str = "half-open") -> pd.DataFrame:
        """Tidy results: one row per (group, metric, measure).

        Parameters
        ----------
        ref_col, pred_col : str
            Span columns (``ArrowDtype(SPAN_TYPE)``, lists of pairs or dicts, or JSON).
        text : str, optional
            Column of output texts; spans must end within them.
        by : str or list of str, optional
            Group key columns; null keys form their own group; groups are sorted.
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
            row, which ``pd.concat`` of several results keeps (``attrs`` it drops);
            `mycelium.parse_signature` reads it back from the frame or a value.

        Returns
        -------
        pandas.DataFrame
            Columns ``[*by, "metric", "measure", "value", "examples", "average",
            "profile", "signature"]``, with ``"ci_low", "ci_high"`` after ``"value"`` when
            ``ci`` is given; ``attrs["mycelium_signature"]`` holds the signature too. Each
            group's values equal `mycelium.evaluate` on that group's rows, bit for bit,
            and so do its intervals with the same example keys
            (`mycelium.evaluate.intervals`).

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
            A bad span, named by its example position and, unless the index is the
            default ``RangeIndex``, its row's index label.

        Examples
        --------
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
        table = self._evaluate_table(names, settings, by)
        out = self._stamped(tidy_to_pandas(table, self._key_dtypes(by)))
        return with_signature_column(out) if with_signature else out

    def sweep(self, ref_col: str, *, text: str, soft_pred_col: str | None = None,
              token_offsets_col: str | None = None, token_scores_col: str | None = None,
              by=None, **options) -> pd.DataFrame:
        """`mycelium.sweep` of the frame's columns: ``[*by, threshold, metric, measure,
        value, examples, average, profile]`` (``options`` as for `mycelium.sweep`)."""
        curve = self._scores("sweep", by, ref_col=ref_col, text=text,
                             soft_pred_col=soft_pred_col, token_offsets_col=token_offsets_col,
                             token_scores_col=token_scores_col, **options)
        out = pandas_frame(curve.table(), self._key_dtypes(by))
        out.attrs["signature"] = curve.signature
        return out

    def tune_threshold(self, ref_col: str, *, text: str, soft_pred_col: str | None = None,
                       token_offsets_col: str | None = None,
                       token_scores_col: str | None = None, by=None, **options):
        """`mycelium.tune_threshold` of the frame's columns (one row per group with ``by``)."""
        out = self._scores("tune_threshold", by, ref_col=ref_col, text=text,
                           soft_pred_col=soft_pred_col, token_offsets_col=token_offsets_col,
                           token_scores_col=token_scores_col, **options)
        return out if isinstance(out, dict) else pandas_frame(out, self._key_dtypes(by))

    def score(self, ref_col: str, pred_col: str, *, text: str | None = None,
              profile: ProfileArg = None, metrics: Metrics = None,
              zero_division: ZeroDivision = None, params: Params = None,
              missing: Missing = "error", soft_ref_col: str | None = None,
              soft_pred_col: str | None = None,
              granularity: Granularity = "char",
              trim_spans: TrimSpans = None) -> pd.DataFrame:
        """Per-row measures: one column ``<metric>_<measure>`` each, same index and order.

        Parameters
        ----------
        ref_col, pred_col : str
            Span columns, as in `evaluate`.
        text : str, optional
            Column of output texts; spans must end within them.
        profile, metrics, zero_division, params, missing
            As in `mycelium.evaluate` (there is no ``average``: each row is one example).
        soft_ref_col, soft_pred_col : str, optional
            Soft-label columns (both or neither): add ``soft_spearman_score``.
        granularity : {"char", "word", "sentence"}
            Unit of scoring (needs ``text``), as in `evaluate`.
        trim_spans : {"whitespace", "punctuation"}, optional
            Span edges trimmed before scoring (needs ``text``), as in `mycelium.evaluate`.

        Returns
        -------
        pandas.DataFrame
            Float columns ``<metric>_<measure>`` in the order of the metrics and their
            measures, with the caller's index; ``attrs["mycelium_signature"]`` holds
            the settings signature. Each row's values are `mycelium.evaluate` of that
            row alone. Rows left out by ``missing="drop"`` get NaN, as do undefined
            values under ``zero_division="nan"``.

        Raises
        ------
        KeyError, TypeError, ValueError, mycelium.SpanValidationError
            As for `evaluate`.

        Notes
        -----
        The caller's frame is not modified; join the result to it with
        ``df.join(df.mycelium.score(...))``.

        Examples
        --------
        >>> import pandas as pd, mycelium
        >>> df = pd.DataFrame({"ref": [[[0, 10]], [[4, 7]], []],
        ...                    "pred": [[[2, 8]], [[4, 7]], []]},
        ...                   index=["x", "y", "z"])
        >>> df.mycelium.score("ref", "pred", metrics="character")
           character_precision  character_recall  character_f1
        x                  1.0               0.6          0.75
        y                  1.0               1.0          1.00
        z                  0.0               0.0          0.00
        >>> out = df.mycelium.score("ref", "pred", metrics="character",
        ...                         zero_division="nan")
        >>> out["character_precision"].tolist()
        [1.0, 1.0, nan]
        """
        names, settings = frames.face_call(locals())  # first: locals() are the arguments
        table = self._score_table(names, settings)
        out = table.to_pandas()
        out.index = self._df.index
        out.attrs[SIGNATURE_ATTR] = frames.signature_of(table)
        return self._stamped(out)

    def compare(self, ref_col: str, pred_cols: str | Sequence[str], *, by: By = None,
                id_col: str | None = None, detector_col: str | None = None,
                baseline: str | None = None, test: Test = "paired_bootstrap",
                n_resamples: int = 1000, seed: int = 0, ci: float = 0.95,
                text: str | None = None, profile: ProfileArg = None,
                metrics: Metrics = None, average: Average | None = None,
                zero_division: ZeroDivision = None, params: Params = None,
                missing: Missing = "error") -> pd.DataFrame:
        """Paired comparison of detectors (`mycelium.compare`), per group.

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

        Returns
        -------
        pandas.DataFrame
            ``[*by, detector_a, detector_b, metric, measure, value_a, value_b,
            difference, ci_low, ci_high, p_value, p_holm, test, n_resamples, examples,
            average, profile]``: for each group, the frame of `mycelium.compare`
            on the group's rows (so Holm's correction runs within each group's
            (metric, measure) family). ``attrs["mycelium_signature"]`` holds the
            signature.

        Raises
        ------
        ValueError
            In long format, when rows do not pair: a detector lacks an id another has,
            an id occurs twice for one detector, or references (or texts) differ
            between detectors for one id.

        Examples
        --------
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
        return self._stamped(tidy_to_pandas(table, self._key_dtypes(by)))

    def show(self, ref_col: str, pred_col, *, text: str | None = None, sort_by: str = "iou",
             ascending: bool = True, n: int = 10, by=None, **options):
        """Look at the worst (or best) rows first, per group: a `mycelium.show` view.

        Parameters
        ----------
        ref_col : str
            Reference span column.
        pred_col : str or list of str
            Prediction span column(s): one row of the view each.
        text : str
            Column of output texts (required: the spans are drawn over them).
        sort_by : str
            A metric (its score or F1) or a ``score`` column such as ``character_f1``;
            rows are ordered by it in the first prediction column.
        ascending : bool
            Lowest first (the worst rows) by default.
        n : int
            Rows shown per group.
        by : str or list of str, optional
            Group columns: ``n`` rows of each group (null keys form their own group).
        **options
            ``metrics`` and ``labels`` as in `mycelium.show`; ``id_col`` (a column that
            titles each row, instead of its index label) and ``context`` (a column shown
            collapsed above each text); ``type_field`` (the span field whose types the
            view styles, by default ``label_type``); ``profile``,
            ``zero_division``, ``params``, ``missing`` as in `score`.

        Returns
        -------
        mycelium.report.view.SpanView

        Examples
        --------
        >>> import pandas as pd, mycelium
        >>> df = pd.DataFrame({"text": ["abcd", "efgh", "ijkl"],
        ...                    "ref": [[[0, 2]], [[1, 3]], []],
        ...                    "pred": [[[0, 2]], [[2, 4]], [[0, 1]]]})
        >>> view = df.mycelium.show("ref", "pred", text="text", n=2)
        >>> [ex.title for ex in view.examples]
        ['row 2 · iou_score 0.000', 'row 1 · iou_score 0.333']
        """
        return self._show(ref_col, pred_col, text=text, sort_by=sort_by,
                          ascending=ascending, n=n, by=by, **options)
