"""`plot_sweep`: a threshold sweep drawn with matplotlib (the optional ``validation`` extra)."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["plot_sweep"]

_SWEEP = ["threshold", "metric", "measure", "value", "examples", "average", "profile"]


def plot_sweep(frame, *, metrics=None, measures=None, tuned=None, ax=None) -> Any:
    """Draw the measures of a `mycelium.sweep` frame against the threshold.

    Parameters
    ----------
    frame : pandas.DataFrame
        A `mycelium.sweep` result (Polars frames are converted).
    metrics, measures : str or list of str, optional
        Keep only these (default: every metric and measure in the frame).
    tuned : float, dict or pandas.DataFrame, optional
        A tuned threshold to mark with a vertical line: a number, a
        `mycelium.tune_threshold` result, or its per-group frame (one line per group).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        One line per (group, metric, measure), labelled ``group · metric.measure``.

    Raises
    ------
    ImportError
        matplotlib is not installed (``pip install mycelium-eval[validation]``).
    ValueError
        The frame is not a sweep frame.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import mycelium
    >>> f = mycelium.sweep([[2, 6]], text="abcdefgh", metrics="iou",
    ...                    token_offsets=[(0, 2), (2, 4), (4, 6), (6, 8)],
    ...                    token_scores=[0.1, 0.9, 0.6, 0.2])
    >>> ax = plot_sweep(f, tuned=0.2)
    >>> [line.get_label() for line in ax.get_lines()]
    ['iou.score', 'tuned 0.2']
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("plot_sweep needs matplotlib; install it with "
                          "pip install 'mycelium-eval[validation]'.") from exc
    if hasattr(frame, "to_pandas") and not hasattr(frame, "iloc"):
        frame = frame.to_pandas()
    missing = [c for c in _SWEEP if c not in frame.columns]
    if missing:
        raise ValueError(f"Expected a mycelium.sweep frame, got columns "
                         f"{list(frame.columns)} (missing {missing}); fix by passing "
                         "the result of mycelium.sweep.")
    by = [c for c in frame.columns if c not in _SWEEP]
    keep = frame
    for col, wanted in (("metric", metrics), ("measure", measures)):
        if wanted is not None:
            wanted = [wanted] if isinstance(wanted, str) else list(wanted)
            keep = keep[keep[col].isin(wanted)]
    if ax is None:
        _, ax = plt.subplots()
    keys = by + ["metric", "measure"]
    for key, part in keep.groupby(keys, dropna=False, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        group = " · ".join(map(str, key[:len(by)]))
        label = f"{key[-2]}.{key[-1]}"
        part = part.sort_values("threshold")
        ax.plot(part["threshold"], part["value"], marker=".",
                label=f"{group} · {label}" if group else label)
    for name, t in _tuned_lines(tuned, by):
        if not math.isnan(t):
            ax.axvline(t, linestyle="--", color="grey", label=f"tuned {name}{t:g}")
    ax.set_xlabel("threshold (spans are scores > threshold)")
    ax.set_ylabel("value")
    ax.legend(fontsize="small")
    return ax


def _tuned_lines(tuned, by) -> list[tuple[str, float]]:
    if tuned is None:
        return []
    if isinstance(tuned, dict):
        return [("", float(tuned["threshold"]))]
    if hasattr(tuned, "columns"):
        if hasattr(tuned, "to_pandas") and not hasattr(tuned, "iloc"):
            tuned = tuned.to_pandas()
        cols = [c for c in by if c in tuned.columns]
        return [(" · ".join(map(str, row[:-1])) + " " if cols else "", float(row[-1]))
                for row in tuned[cols + ["threshold"]].itertuples(index=False)]
    return [("", float(tuned))]
