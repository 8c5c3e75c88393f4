"""The thresholds of a sweep, group by group (`Grids`): each group's curve is the curve of
its own scores, as `mycelium.sweep` on that group's rows alone would draw it, unless the
caller names the thresholds.

SPEC section 9. The spans at t change only at the scores themselves, so the exact curve
of a group is 0 and every distinct score of its intervals; quantiles and PsiloQA's range
grid are taken over the group's scores too. Explicit thresholds are every group's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core.groups import group_bounds, split_rows
from ..core.scores import ScoreInput, score_runs
from .plan import check_threshold

__all__ = ["Grids", "grids", "grid_label"]


@dataclass(frozen=True)
class Grids:
    """Each group's sorted distinct thresholds, end to end: group ``g``'s are
    ``values[offsets[g]:offsets[g + 1]]`` (never empty). A (group, threshold) pair is a
    *cell* of the sweep; cell ``c`` is ``values[c]`` of group ``group[c]``."""

    values: np.ndarray   # float64
    offsets: np.ndarray  # int64, one more than the groups

    @property
    def n_groups(self) -> int:
        return self.offsets.size - 1

    @property
    def sizes(self) -> np.ndarray:
        """Thresholds per group."""
        return np.diff(self.offsets)

    @property
    def group(self) -> np.ndarray:
        """The group of every cell."""
        return np.repeat(np.arange(self.n_groups, dtype=np.int64), self.sizes)


def grid_label(thresholds) -> str | None:
    """``range/<steps>`` for a score-range grid (recorded in the signature)."""
    return f"range/{thresholds['steps']}" if isinstance(thresholds, dict) else None


def grids(thresholds, si: ScoreInput, lengths: np.ndarray, codes: np.ndarray,
          n_groups: int, said: Callable[[int], str]) -> Grids:
    """The `Grids` of a sweep's ``thresholds`` option (see `mycelium.sweep`).

    ``si``, ``lengths`` and ``codes`` are the kept examples' scores, text lengths and
    groups; ``said(g)`` names group ``g`` in an error (``""`` without groups).
    """
    interval_group = codes[si.example]
    if isinstance(thresholds, dict):
        return _range_grids(thresholds, si, lengths, codes, n_groups, said)
    if thresholds is None:  # the exact curve: 0 and every distinct score of the group
        values = np.concatenate([si.scores, np.zeros(n_groups)])
        group = np.concatenate([interval_group, np.arange(n_groups, dtype=np.int64)])
        return _distinct(values, group, n_groups)
    if isinstance(thresholds, (int, np.integer)) and not isinstance(thresholds, bool):
        if thresholds < 1:
            raise ValueError(f"Expected a number of quantiles >= 1, got {thresholds}, at "
                             "thresholds=; fix by passing e.g. 100.")
        q = np.linspace(0.0, 1.0, int(thresholds)) if thresholds > 1 else np.array([0.5])
        return _per_group(si.scores, interval_group, n_groups,
                          lambda s: np.quantile(s, q) if s.size else np.array([0.0]))
    if isinstance(thresholds, (str, bytes)) or not hasattr(thresholds, "__iter__"):
        raise TypeError(f"Expected thresholds= as None, a number of quantiles, "
                        f"{{'steps': n}} or a list of thresholds, got {thresholds!r}; fix "
                        f"by passing e.g. [0.5] for one threshold.")
    grid = np.array([check_threshold(t) for t in thresholds], dtype=np.float64)
    if grid.size == 0:
        raise ValueError("Expected at least one threshold, got none, at thresholds=; "
                         "fix by passing None for the exact curve.")
    return _distinct(np.tile(grid, n_groups),
                     np.repeat(np.arange(n_groups, dtype=np.int64), grid.size), n_groups)


def _distinct(values: np.ndarray, group: np.ndarray, n_groups: int) -> Grids:
    """Sorted distinct values per group (``-0.0`` is ``0.0``)."""
    values = np.asarray(values, dtype=np.float64) + 0.0
    order = np.lexsort((values, group))
    v, g = values[order], group[order]
    new = np.ones(v.size, dtype=bool)
    new[1:] = (g[1:] != g[:-1]) | (v[1:] != v[:-1])
    v, g = v[new], g[new]
    offsets = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(g, minlength=n_groups), out=offsets[1:])
    return Grids(v, offsets)


def _per_group(values: np.ndarray, group: np.ndarray, n_groups: int, make) -> Grids:
    """``make(values of group g)`` for every group, made distinct."""
    parts = [np.asarray(make(values[rows]), dtype=np.float64)
             for rows in split_rows(*group_bounds(group, n_groups))]
    return _distinct(np.concatenate(parts) if parts else np.zeros(0),
                     np.repeat(np.arange(n_groups, dtype=np.int64), [p.size for p in parts]),
                     n_groups)


def _range_grids(spec: dict, si: ScoreInput, lengths: np.ndarray, codes: np.ndarray,
                 n_groups: int, said) -> Grids:
    """``np.arange(lo, hi, (hi - lo) / steps)`` over each group's character scores."""
    steps = spec.get("steps") if set(spec) == {"steps"} else None
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"Expected thresholds={{'steps': <int >= 1>}}, got {spec!r}, at "
                         "thresholds=; fix by passing e.g. {'steps': 2000}.")
    runs = score_runs(si, lengths, None)  # characters no interval covers score 0
    group = codes[runs.example]

    def arange(g: int, scores: np.ndarray) -> np.ndarray:
        if scores.size == 0:
            raise ValueError(f"Expected characters to take a score range from, got empty "
                             f"texts only{said(g)}, at thresholds=; fix by passing "
                             "explicit thresholds.")
        lo, hi = float(scores.min()), float(scores.max())
        if hi == lo:
            raise ValueError(f"Expected character scores that vary, got every character "
                             f"scoring {lo!r}{said(g)}, at thresholds={spec!r}; fix by "
                             "passing explicit thresholds (a range grid of one value has "
                             "no step).")
        # The grid of PsiloQA's evaluator (psilo/methods/uncertainty/evaluation.py):
        # floating arange, so `steps` values (or one more from rounding) from lo up, hi
        # excluded.
        return np.arange(lo, hi, (hi - lo) / int(steps))

    parts = [arange(g, runs.score[rows])
             for g, rows in enumerate(split_rows(*group_bounds(group, n_groups)))]
    return _distinct(np.concatenate(parts), np.repeat(
        np.arange(n_groups, dtype=np.int64), [p.size for p in parts]), n_groups)
