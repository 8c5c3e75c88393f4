"""Per-row int64 columns whose engine sums give `mycelium.core.reduce`'s exact group sums.

`mycelium.core.reduce.row_columns` gives, per row, integer-valued float64 limbs, a float
residual per value and (only for ``cleval_1d`` with a fractional penalty weight) float
statistics. An engine — Polars' streaming ``group_by().sum()``, Spark's ``GROUP BY SUM``
— sums integers exactly (in 128-bit integers or decimals) but floats in an order of its
own. `engine_columns` therefore rewrites every column as int64 columns plus a float
*rest*, and `reduce_engine_sums` turns the engine's per-group sums back into the sums
`mycelium.frames.engine.tidy_from_sums` expects — the very numbers ``groups.group_sums``
computes on the same rows, so every face agrees bit for bit:

- an integer(-valued) column (a limb, a definedness flag, a count per row) stays one
  int64 column;
- an integer micro statistic ``x`` that is a length (CLEval's ``det_chars``, IoU's
  ``union``: several overlapping spans near 2**62 take one row beyond int64) becomes
  two int64 limbs, ``lo = x mod 2**31`` and ``hi = x >> 31`` (floor): engine sums of
  ``lo`` stay below 2**63 for 2**32 rows, and of ``hi`` while the group's total stays
  below 2**94 (more than 2**31 spans of 2**63 characters); Polars sums both in Int128
  anyway. A statistic counting spans (`Metric.counts`) stays one column: its sums are
  at most the number of spans;
- a limb residual ``r`` (``|r| < 2**-84``, zero for every value ``>= 2**-31``) becomes
  ``trunc(r·2**115)`` (an int64 below 2**31) and a float rest, zero whenever the value
  is at least 2**-63 in magnitude — every ratio of int64 counts, so every measure of a
  built-in metric — because such a value has no bit below 2**-115;
- a float statistic ``x`` becomes its integer part (as ``lo`` and ``hi`` above, for
  ``|x| < 2**93``), three limbs of its fraction on the grids 2**-28, 2**-56, 2**-84,
  the fraction's residual as above, and two counts (rows with ``x != 0``, rows with a
  fraction) which decide, as ``groups.group_sums`` does, whether the sums are exact
  integers or correctly rounded floats.

The layout is fixed before any row is seen (a lazy plan declares its schema first), so
a length always takes its two limbs, not only on rows that need them.

The exact sum of a float column is then ``N / 2**115`` for an integer ``N`` built from
the summed int64 columns, rounded once (Python's int division is correctly rounded, as
``math.fsum`` is). Only the float rests are summed in the engine's order; they are zero
unless a value lies below 2**-63 (not reachable by the built-in metrics' measures;
reachable by a CLEval numerator only with a penalty weight below about 2**-60) or a
float statistic reaches 2**93.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

import numpy as np

from ..metrics import STATISTIC_METRICS as METRICS  # typed_span's statistics sum too
from .exactsum import limb_arrays
from .groups import group_fsums, group_sums
from .reduce import SEP, row_columns
from .settings import Settings

__all__ = ["EngineColumn", "engine_layout", "engine_columns", "reduce_engine_sums",
           "exact_ints", "value_layout", "value_columns"]

_GRID = 115                 # bits of the residual grid: 2**-115
_SCALE = 2.0**_GRID
_SHIFTS = (_GRID - 28, _GRID - 56, _GRID - 84)  # limbs h, m, l on the 2**-115 grid
_RES_MAX = 2.0**62          # |residual · 2**115| kept in int64 (else the rest)
_LO = 31                    # bits of the low limb of an integer (part): lo < 2**31
_WHOLE_MAX = 2.0**93        # float integer parts kept in limbs (larger: the rest)
_WIDE_PARTS = ("lo", "hi")
_FLOAT_PARTS = ("lo", "hi", "h", "m", "l", "res", "rest", "nonzero", "fractional")


@dataclass(frozen=True)
class EngineColumn:
    """One engine column: ``label`` is ``source#part`` (``source`` alone for an int)."""

    label: str
    source: str   # the `reduce.row_columns` name it comes from
    kind: str     # "int" (as is), "wide" (lo, hi), "residual" (res, rest) or
                  # "float" (_FLOAT_PARTS)
    part: str     # "" for "int"

    @property
    def integer(self) -> bool:
        """int64, summed exactly; else float64, summed in the engine's order."""
        return self.part != "rest"

    def masked_sum(self, values: np.ndarray, rows: np.ndarray) -> int | float:
        """This column's ``values`` summed over the rows of the mask ``rows``: an int64
        sum for an integer column (its parts are small enough not to overflow), the
        correctly rounded sum (``math.fsum``) for a float rest.

        Examples
        --------
        >>> col = EngineColumn("iou|inter", "iou|inter", "int", "")
        >>> col.masked_sum(np.array([3, 4, 5]), np.array([True, False, True]))
        8
        >>> EngineColumn("x#rest", "x", "residual", "rest").masked_sum(
        ...     np.array([0.1] * 10), np.ones(10, bool))
        1.0
        """
        if self.integer:
            return int(values[rows].sum(dtype=np.int64))
        return math.fsum(values[rows].tolist())


def engine_layout(settings: Settings, stats=None) -> tuple[EngineColumn, ...]:
    """The engine columns of ``settings``, in order (read off an empty batch, or off
    ``stats``, the statistics of no rows, for metrics the span pipeline does not compute:
    ``typed_span`` reads the types)."""
    if stats is None:
        stats = _empty_statistics(settings)
    out: list[EngineColumn] = []
    for name, col in row_columns(stats, settings).items():
        parts: tuple[str, ...]
        if name.endswith(f"{SEP}residual"):
            kind, parts = "residual", ("res", "rest")
        elif _is_statistic(name, settings) and col.dtype.kind == "f":
            kind, parts = "float", _FLOAT_PARTS
        elif _is_statistic(name, settings) and not _is_count(name):
            kind, parts = "wide", _WIDE_PARTS
        else:
            out.append(EngineColumn(name, name, "int", ""))
            continue
        out += [EngineColumn(f"{name}#{p}", name, kind, p) for p in parts]
    return tuple(out)


def _empty_statistics(settings: Settings) -> dict:
    import pyarrow as pa

    from .pipeline import compute_statistics, prepare
    from .spans import SPAN_TYPE

    empty = pa.array([], SPAN_TYPE)
    prepared = prepare(empty, empty)
    stats = compute_statistics(prepared.refs, prepared.preds, settings.span_metrics,
                               settings.params)
    if "soft_spearman" in settings.metrics:  # per-row scores (`soft_statistics`)
        stats["soft_spearman"] = {"score": np.zeros(0, dtype=np.float64)}
    return stats


def _is_statistic(name: str, settings: Settings) -> bool:
    """A micro statistic (``metric|statistic``), not a limb of a per-example value."""
    metric = name.split(SEP, 1)[0]
    return settings.average == "micro" and metric in METRICS and name.count(SEP) == 1


def _is_count(name: str) -> bool:
    """A statistic counting spans (`Metric.counts`): its sums cannot leave int64."""
    metric, key = name.split(SEP, 1)
    return key in METRICS[metric].counts


def engine_columns(stats, settings: Settings, layout=None) -> dict[str, np.ndarray]:
    """``{label: int64 or float64 array}``: the per-row engine columns of ``stats``."""
    layout = engine_layout(settings) if layout is None else layout
    columns = row_columns(stats, settings)
    out: dict[str, np.ndarray] = {}
    split: dict[str, dict[str, np.ndarray]] = {}
    for col in layout:
        source = columns[col.source]
        if col.kind == "int":
            out[col.label] = _as_int64(source)
            continue
        if col.source not in split:
            split[col.source] = {"residual": _split_residual, "wide": _split_wide,
                                 "float": _split_float}[col.kind](source)
        out[col.label] = split[col.source][col.part]
    return out


def value_layout(name: str) -> tuple[EngineColumn, ...]:
    """The engine columns of per-example values ``name`` whose sums give their exact mean
    over the defined (non-NaN) ones: the limbs ``name|h``, ``name|m``, ``name|l`` and the
    count ``name|defined`` as int64, the residual ``name|residual`` as ``res`` (int64)
    and a float ``rest``. `reduce_engine_sums` with this layout gives the limb sums that
    `mycelium.core.exactsum.means_of_sums` finishes (the values' `exact_mean`)."""
    out = [EngineColumn(f"{name}{SEP}{part}", f"{name}{SEP}{part}", "int", "")
           for part in ("h", "m", "l", "defined")]
    source = f"{name}{SEP}residual"
    return tuple(out + [EngineColumn(f"{source}#{p}", source, "residual", p)
                        for p in ("res", "rest")])


def value_columns(name: str, values: np.ndarray) -> dict[str, np.ndarray]:
    """The per-row engine columns of `value_layout` for ``values`` (NaN: undefined)."""
    h, m, low, residual, defined = limb_arrays(np.asarray(values, dtype=np.float64))
    out = {f"{name}{SEP}{part}": col.astype(np.int64)
           for part, col in (("h", h), ("m", m), ("l", low), ("defined", defined))}
    split = _split_residual(residual)
    out[f"{name}{SEP}residual#res"] = split["res"]
    out[f"{name}{SEP}residual#rest"] = split["rest"]
    return out


def _as_int64(col: np.ndarray) -> np.ndarray:
    col = np.asarray(col)
    return col if col.dtype == np.int64 else col.astype(np.int64)


def _split_wide(x: np.ndarray) -> dict[str, np.ndarray]:
    """``x = hi·2**31 + lo`` with ``0 <= lo < 2**31``, for int64 or Python-int values."""
    x = np.asarray(x)
    if x.dtype != object:
        x = x.astype(np.int64, copy=False)
        return {"lo": x & np.int64(2**_LO - 1), "hi": x >> np.int64(_LO)}
    ints = [int(v) for v in x.tolist()]
    his = [v >> _LO for v in ints]
    if any(not -2**63 <= h < 2**63 for h in his):
        raise OverflowError(
            "Expected per-example statistics below 2**94, got one of "
            f"{max(ints, key=abs)}, at an example with more than 2**31 spans of 2**63 "
            "characters; fix by splitting such an example's spans over several examples.")
    return {"lo": np.array([v & (2**_LO - 1) for v in ints], dtype=np.int64),
            "hi": np.array(his, dtype=np.int64)}


def _split_residual(r: np.ndarray) -> dict[str, np.ndarray]:
    """``r = res / 2**115 + rest`` with ``res`` int64 (exact: scaling by 2**115 is)."""
    r = np.asarray(r, dtype=np.float64)
    if not r.any():
        return {"res": np.zeros(r.size, np.int64), "rest": np.zeros(r.size)}
    s = r * _SCALE
    s = np.where(np.isfinite(s) & (np.abs(s) < _RES_MAX), s, 0.0)
    res = np.trunc(s)
    rest = r - res / _SCALE  # exact: the bits of r below 2**-115 (or r itself if huge)
    return {"res": res.astype(np.int64), "rest": rest}


def _split_float(x: np.ndarray) -> dict[str, np.ndarray]:
    """``x = hi·2**31 + lo + (h·2**56 + m·2**28 + l)/2**84 + res/2**115 + rest`` (all
    exact; ``hi·2**31 + lo`` is the integer part when ``|x| < 2**93``, else 0)."""
    x = np.asarray(x, dtype=np.float64)
    ok = np.isfinite(x) & (np.abs(x) < _WHOLE_MAX)
    inside = x if ok.all() else np.where(ok, x, 0.0)
    whole = np.trunc(inside)
    frac = inside - whole  # exact
    hi = np.floor(whole / 2.0**_LO)  # exact: scaling by a power of two
    lo = whole - hi * 2.0**_LO       # exact: an integer in [0, 2**31)
    h, m, low, residual, _ = limb_arrays(frac)
    parts = _split_residual(residual)
    if not ok.all():
        parts["rest"] = parts["rest"] + np.where(ok, 0.0, x)  # rest is 0 there: exact
    return {"lo": lo.astype(np.int64), "hi": hi.astype(np.int64), "h": h.astype(np.int64),
            "m": m.astype(np.int64), "l": low.astype(np.int64), **parts,
            "nonzero": (x != 0).astype(np.int64),
            "fractional": (frac != 0).astype(np.int64)}


def exact_ints(values) -> np.ndarray:
    """Engine integer sums (Python ints, None for an empty group, or an integer array)
    as an exact array: int64 when every value is below 2**62 in magnitude, else an object
    array of Python ints (the one conversion of every face's engine sums).

    Examples
    --------
    >>> exact_ints(np.array([1, 3], dtype=np.uint32)).dtype, exact_ints([None, -2]).tolist()
    (dtype('int64'), [0, -2])
    >>> exact_ints([2**70, None]).tolist()
    [1180591620717411303424, 0]
    """
    arr = np.asarray(values)
    if arr.dtype.kind in "iu" and (not arr.size or (int(arr.min()) > -2**62
                                                     and int(arr.max()) < 2**62)):
        return arr.astype(np.int64)
    ints = [0 if v is None else int(v) for v in arr.tolist()]
    if all(-2**62 < v < 2**62 for v in ints):
        return np.array(ints, dtype=np.int64)
    return np.array(ints, dtype=object)


def reduce_engine_sums(partials: Mapping[str, np.ndarray], codes: np.ndarray,
                       n_groups: int, settings: Settings, layout=None
                       ) -> dict[str, np.ndarray]:
    """The exact group sums of `reduce.row_columns` from engine partial sums.

    ``partials[label]`` holds one engine sum per partial group (int columns as
    `exact_ints`, float rests as float64) and ``codes[i]`` the final group of partial
    ``i`` (an engine may split groups that pandas' rules merge, e.g. NaN and null keys).
    Returns ``{row_columns name: per-group sums}`` for `frames.tidy_from_sums`.

    Examples
    --------
    Two rows, each its own partial sum (as if from two batches), in one group:

    >>> import numpy as np, mycelium
    >>> from mycelium.core import reduce
    >>> from mycelium.core.settings import resolve_settings
    >>> settings = resolve_settings(metrics="iou", average="macro")
    >>> stats = mycelium.statistics([[[0, 3]], [[0, 10]]], [[[0, 1]], [[2, 9]]],
    ...                             metrics="iou")
    >>> cols = engine_columns(stats, settings)
    >>> sorted(cols)[:3], cols["iou|score|h"].dtype
    (['iou|score|defined', 'iou|score|h', 'iou|score|l'], dtype('int64'))
    >>> sums = reduce_engine_sums(cols, np.array([0, 0]), 1, settings)  # rows as partials
    >>> reduce.values_from_sums(sums, settings)["iou"]["score"].tolist()  # (1/3 + 0.7) / 2
    [0.5166666666666666]
    >>> mycelium.evaluate([[[0, 3]], [[0, 10]]], [[[0, 1]], [[2, 9]]],
    ...                   metrics="iou")["iou"]["score"]
    0.5166666666666666
    """
    layout = engine_layout(settings) if layout is None else layout
    ints = {c.label: partials[c.label] for c in layout if c.integer}
    summed = group_sums(ints, codes, n_groups) if ints else {}
    rests = {c.label: group_fsums(partials[c.label], codes, n_groups)
             for c in layout if not c.integer}
    out: dict[str, np.ndarray] = {}
    for col in layout:
        if col.kind == "int":
            out[col.source] = summed[col.label]
        elif col.source in out:
            continue
        elif col.kind == "wide":
            out[col.source] = _joined(summed[f"{col.source}#lo"], summed[f"{col.source}#hi"])
        elif col.kind == "residual":
            base = f"{col.source}#"
            out[col.source] = _residual_sums(summed[base + "res"], rests[base + "rest"])
        else:
            out[col.source] = _float_statistic(col.source, summed, rests)
    return out


def _float_statistic(source: str, summed, rests) -> np.ndarray:
    """Sums of a float statistic, typed as ``groups.group_sums`` types them (keep the
    two in step): float zeros if every row is 0, Python ints if every row is
    integer-valued, else correctly rounded floats (``math.fsum``'s values)."""
    get = {p: summed.get(f"{source}#{p}") for p in _FLOAT_PARTS}
    n = len(get["lo"])
    if sum(int(v) for v in get["nonzero"]) == 0:
        return np.zeros(n, dtype=np.float64)
    sh, sm, sl = _SHIFTS
    scaled = [(((int(hi) << _LO) + int(lo)) << _GRID) + (int(h) << sh) + (int(m) << sm)
              + (int(low) << sl) + int(r)
              for lo, hi, h, m, low, r in zip(get["lo"], get["hi"], get["h"], get["m"],
                                              get["l"], get["res"])]
    rest = rests[f"{source}#rest"]
    if sum(int(v) for v in get["fractional"]) == 0 and not rest.any():
        return np.array([v >> _GRID for v in scaled], dtype=object)
    return np.array([_rounded(v, r) for v, r in zip(scaled, rest)], dtype=np.float64)


def _joined(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """``hi·2**31 + lo`` exactly: int64 when every sum fits, else Python ints."""
    lo, hi = np.asarray(lo), np.asarray(hi)
    if lo.dtype == np.int64 and hi.dtype == np.int64 and (
            not hi.size or int(np.abs(hi).max()) < 2**30 and int(np.abs(lo).max()) < 2**62):
        return (hi << np.int64(_LO)) + lo
    return np.array([(int(h) << _LO) + int(v) for v, h in zip(lo.tolist(), hi.tolist())],
                    dtype=object)


def _residual_sums(res: np.ndarray, rest: np.ndarray) -> np.ndarray:
    """``res / 2**115 + rest`` per group, each rounded once (`_rounded`)."""
    res, rest = np.asarray(res), np.asarray(rest, dtype=np.float64)
    if res.dtype != np.int64 or rest.any():
        return np.array([_rounded(int(n), r) for n, r in zip(res.tolist(), rest.tolist())],
                        dtype=np.float64)
    # int64 → float64 rounds to nearest (ties to even), as Python's int / 2**115 does;
    # scaling by a power of two is then exact (no result is subnormal)
    return np.ldexp(res.astype(np.float64), -_GRID)


def _rounded(scaled: int, rest: float) -> float:
    """``scaled / 2**115 + rest`` rounded once."""
    if rest == 0:
        return scaled / (1 << _GRID) if scaled else 0.0
    return float(Fraction(scaled, 1 << _GRID) + Fraction(rest))
