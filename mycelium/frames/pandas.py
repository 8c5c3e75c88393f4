"""The ``df.mycelium`` pandas accessor: a thin, stateless adapter over `mycelium.frames.engine`.

Columns are handed to the core positionally (the index is never used for alignment,
``.loc`` is never used), the caller's frame is never modified, and results keep the
caller's index where they are per row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pandas as pd
import pyarrow as pa

from ..core.groups import pandas_frame
from ..core.provenance import dataset_of
from ..core.signature import signature_with
from ..errors import SpanValidationError
from . import engine as frames
from .face import FrameFace
from .told import telling_empty_spans
from ._options import (By, Granularity, Metrics, Missing, Params, ProfileArg, TrimSpans,
                       ZeroDivision)
from .to_pandas import SIGNATURE_ATTR, tidy_to_pandas, with_index_label, with_signature_column

__all__ = ["MyceliumAccessor"]

_T = TypeVar("_T")

# The placeholder mycelium.frames.hooks set when pandas was imported gives way: the
# registration below would warn that it overrides an attribute.
if getattr(pd.DataFrame.__dict__.get("mycelium"), "placeholder", False):
    del pd.DataFrame.mycelium


@pd.api.extensions.register_dataframe_accessor("mycelium")
class MyceliumAccessor(FrameFace[pd.DataFrame]):
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

    def _result(self, table: pa.Table, by: By, with_signature: bool) -> pd.DataFrame:
        """``evaluate``'s and ``compare``'s frame: the key columns in the frame's dtypes,
        the dataset provenance in the signature, which ``with_signature`` also puts in a
        last column (after the provenance, so both say the same)."""
        out = self._stamped(tidy_to_pandas(table, self._key_dtypes(by)))
        return with_signature_column(out) if with_signature else out

    def _frame(self, table: pa.Table, by: By) -> pd.DataFrame:
        return pandas_frame(table, self._key_dtypes(by))

    @telling_empty_spans
    def score(self, ref_col: str, pred_col: str, *, text: str | None = None,
              profile: ProfileArg = None, metrics: Metrics = None,
              zero_division: ZeroDivision = None, params: Params = None,
              missing: Missing = "error", soft_ref_col: str | None = None,
              soft_pred_col: str | None = None,
              granularity: Granularity = "char",
              trim_spans: TrimSpans = None, offsets: str = "half-open") -> pd.DataFrame:
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
        offsets : {"half-open", "inclusive"}, default "half-open"
            How span offsets are read, as in `mycelium.evaluate` (recorded in the
            signature).

        Returns
        -------
        pandas.DataFrame
            Float columns ``<metric>_<measure>`` in the order of the metrics and their
            measures, with the caller's index; ``attrs["mycelium_signature"]`` holds
            the settings signature and ``attrs["mycelium_empty_spans"]`` the zero-length
            spans given (``meta["empty_spans"]`` of `mycelium.evaluate`). Each row's
            values are `mycelium.evaluate` of that row alone. Rows left out by
            ``missing="drop"`` get NaN, as do undefined values under
            ``zero_division="nan"``.

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
