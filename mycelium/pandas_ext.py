"""The ``df.mycelium`` pandas accessor: a thin, stateless adapter over `mycelium.frames`.

Columns are handed to the core positionally (the index is never used for alignment,
``.loc`` is never used), the caller's frame is never modified, and results keep the
caller's index where they are per row.
"""

from __future__ import annotations

import pandas as pd
import pyarrow as pa

from . import frames

__all__ = ["MyceliumAccessor"]

SIGNATURE_ATTR = "mycelium_signature"


@pd.api.extensions.register_dataframe_accessor("mycelium")
class MyceliumAccessor:
    """Score span columns of a DataFrame: ``df.mycelium.evaluate(...)``, ``.score(...)``.

    Examples
    --------
    >>> import pandas as pd, mycelium
    >>> df = pd.DataFrame({"model": ["a", "a", "b"],
    ...                    "ref": [[[0, 10]], [[4, 7]], [[0, 5]]],
    ...                    "pred": [[[2, 8]], [[4, 7]], []]})
    >>> df.mycelium.evaluate("ref", "pred", by="model", metrics="iou")
      model metric measure  value  examples average profile
    0     a    iou   score    0.8         2   macro    None
    1     b    iou   score    0.0         1   macro    None
    >>> df.mycelium.score("ref", "pred", metrics="iou")
       iou_score
    0        0.6
    1        1.0
    2        0.0
    """

    def __init__(self, df: pd.DataFrame) -> None:
        self._df = df

    def _column(self, name, role: str) -> pd.Series:
        if not isinstance(name, str):
            raise TypeError(f"{role} is a {type(name).__name__}; expected a column name.")
        if name not in self._df.columns:
            raise KeyError(f"{role} column {name!r} not found; the frame has columns "
                           f"{list(map(str, self._df.columns))}.")
        return self._df[name]

    def _keys(self, by) -> pa.Table | None:
        names = frames.normalize_by(by)
        if not names:
            return None
        for name in names:
            self._column(name, "by")
        return pa.Table.from_pandas(self._df[names], preserve_index=False)

    def evaluate(self, ref_col: str, pred_col: str, *, text: str | None = None, by=None,
                 profile=None, metrics=None, average=None, zero_division=None, params=None,
                 missing: str = "error") -> pd.DataFrame:
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

        Returns
        -------
        pandas.DataFrame
            Columns ``[*by, "metric", "measure", "value", "examples", "average",
            "profile"]``; ``attrs["mycelium_signature"]`` holds the settings signature.
            Each group's values equal `mycelium.evaluate` on that group's rows.
        """
        keys = self._keys(by)
        n = len(self._df)
        table = frames.evaluate_table(
            self._column(ref_col, "ref_col"), self._column(pred_col, "pred_col"),
            text=None if text is None else self._column(text, "text"),
            groups=frames.group_codes(keys, n) if keys is not None else None,
            profile=profile, metrics=metrics, average=average, zero_division=zero_division,
            params=params, missing=missing)
        return _to_pandas(table)

    def score(self, ref_col: str, pred_col: str, *, text: str | None = None, profile=None,
              metrics=None, zero_division=None, params=None,
              missing: str = "error") -> pd.DataFrame:
        """Per-row measures: one column ``<metric>_<measure>`` each, same index and order.

        Rows left out by ``missing="drop"`` get NaN. The caller's frame is not modified;
        join the result to it with ``df.join(df.mycelium.score(...))``.
        """
        table = frames.score_table(
            self._column(ref_col, "ref_col"), self._column(pred_col, "pred_col"),
            text=None if text is None else self._column(text, "text"),
            profile=profile, metrics=metrics, zero_division=zero_division, params=params,
            missing=missing)
        out = table.to_pandas()
        out.index = self._df.index
        out.attrs[SIGNATURE_ATTR] = frames.signature_of(table)
        return out


def _to_pandas(table: pa.Table) -> pd.DataFrame:
    out = table.to_pandas()
    if "profile" in out.columns:
        out["profile"] = out["profile"].astype(object).where(out["profile"].notna(), None)
    out.attrs[SIGNATURE_ATTR] = frames.signature_of(table)
    return out
