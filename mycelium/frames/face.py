"""What the pandas accessor and the Polars namespace share: finding a frame's columns and
handing them to `mycelium.frames.engine`, `mycelium.frames.scores` and
`mycelium.frames.compare`.

Both faces take the same options and must give the same numbers, so the one way from
column names to an Arrow result table lives here; each face keeps only its signatures,
its docstrings and the conversion of that table into its own frame type.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import pyarrow as pa

from ..core.inputs import Inputs
from ..core.settings import Settings
from . import engine as frames

__all__ = ["FrameFace"]

_T = TypeVar("_T")


class FrameFace:
    """The column plumbing of a frame face over ``df`` (a pandas or Polars DataFrame:
    anything with ``df[name]``, ``df.columns`` and ``len(df)``)."""

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
            if settings.offsets != "half-open":
                raise ValueError(f"Expected offsets='half-open' with scores or a threshold, "
                                 f"got offsets={settings.offsets!r}; the score forms read "
                                 "half-open offsets only. Fix by converting the spans to "
                                 "[start, end + 1) first, or by scoring the spans alone.")
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
