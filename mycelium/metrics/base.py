"""What a metric is (`Metric`), its parameters (`Param`), and the shared `Workspace`.

A metric is a name, the names of its per-example sufficient statistics, the names of
its measures, a vectorised ``statistics(workspace, params)`` and a vectorised
``ratios(stats, params)`` that states each measure as ``numerator / denominator``.
Undefined values (``0/0``) are decided in one place, `mycelium.core.aggregate`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numpy as np

from . import _blocks
from . import intervals as iv
from ._blocks import PairRanges
from .tokens import TokenLabels

if TYPE_CHECKING:  # a structural type: what the kernels read of the core's SpanBatch
    from ._spans import SpanArrays


Stats = Mapping[str, np.ndarray]
Ratios = dict[str, tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Param:
    """A named metric parameter with its default and its valid range (for errors).

    A parameter with ``choices`` takes one of those names instead of a number. A
    ``quiet`` parameter is left out of ``meta["params"]`` and the signature while it has
    its default, so that signatures written before it existed still stand.
    """

    name: str
    default: Any
    check: Callable[[Any], bool]
    expected: str
    allow_none: bool = False
    choices: tuple[str, ...] = ()
    quiet: bool = False

    def validate(self, metric: str, value: Any) -> Any:
        """The value as a float (a finite number in the parameter's range), one of the
        ``choices``, or an error."""
        if value is None and self.allow_none:
            return None
        where = f"params['{metric}']['{self.name}']"
        if self.choices:
            if not isinstance(value, str) or value not in self.choices:
                from ..errors import closest_name

                valid = ", ".join(map(repr, self.choices))
                close = closest_name(value, self.choices) if isinstance(value, str) else None
                hint = f" Did you mean {close!r}?" if close else ""
                raise ValueError(f"Expected {self.expected}, got {value!r}, at {where}; fix "
                                 f"by passing one of {valid} (default {self.default!r})."
                                 f"{hint}")
            return value
        if isinstance(value, (bool, np.bool_)) or not isinstance(
                value, (int, float, np.integer, np.floating)):
            raise TypeError(f"Expected {self.expected}, got {type(value).__name__} "
                            f"{value!r}, at {where}; fix by passing a number.")
        try:
            number = float(value)
        except OverflowError:  # an int beyond the float range
            number = math.inf
        if not math.isfinite(number) or not self.check(number):
            raise ValueError(f"Expected {self.expected}, got {value!r}, at {where}; fix by "
                             f"passing a finite number in that range (default "
                             f"{self.default!r}).")
        return number


@dataclass(frozen=True)
class Metric:
    """A span metric defined by per-example sufficient statistics."""

    name: str
    statistics: tuple[str, ...]
    measures: tuple[str, ...]
    compute: Callable[["Workspace", Mapping[str, Any]], dict[str, np.ndarray]]
    ratios: Callable[[Stats, Mapping[str, Any]], Ratios]
    params: tuple[Param, ...] = ()
    #: value of a measure whose denominator is 0 when it is *not* governed by
    #: ``zero_division`` (IoU of two empty sets is 1.0, as the official Mu-SHROOM scorer).
    fixed_undefined: Mapping[str, float] = field(default_factory=dict)
    summary: str = ""
    #: statistics that count spans (a sum of them is at most the number of spans, so it
    #: never leaves int64); the others are lengths in characters, whose sums may
    #: (`mycelium.core.engine_sums` gives lengths two int64 limbs).
    counts: tuple[str, ...] = ()

    def default_params(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def recorded(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """``values`` without the quiet parameters that have their default (what
        ``meta["params"]`` and the signature record)."""
        quiet = {p.name: p.default for p in self.params if p.quiet}
        return {k: v for k, v in values.items() if k not in quiet or v != quiet[k]}


def named(x: Any) -> bool:
    """A choice parameter: `Param.validate` checks the name against its ``choices``."""
    return True


def unit_open(x: float) -> bool:
    """A threshold: in (0, 1]."""
    return 0.0 < x <= 1.0


def unit(x: float) -> bool:
    """A credit: in [0, 1]."""
    return 0.0 <= x <= 1.0


def whole(x: float) -> bool:
    """A length: a whole number >= 0."""
    return x >= 0.0 and x == int(x)


def non_negative(x: float) -> bool:
    """A weight: finite and >= 0 (`Param.validate` rejects inf and NaN for every range)."""
    return x >= 0.0


def prf_ratios(p_num, p_den, r_num, r_den) -> Ratios:
    """Precision and recall as ratios; F1 is derived from them by the aggregator."""
    return {"precision": (p_num, p_den), "recall": (r_num, r_den)}


class Workspace:
    """The two canonical sides of a batch and the interval products metrics share.

    Products (order keys, mask sizes, overlapping pairs) are computed on first use and
    reused by every metric of the same call, so asking for six metrics costs much less
    than six separate calls.
    """

    def __init__(self, refs: SpanArrays, preds: SpanArrays, *, share_pairs: bool = False,
                 listed: tuple[np.ndarray, np.ndarray] | None = None,
                 tokens: TokenLabels | None = None) -> None:
        if refs.n_examples != preds.n_examples:
            raise ValueError("internal: sides of different sizes")
        self.refs, self.preds = refs, preds
        #: spans listed per example on each side before zero-length spans and
        #: duplicates were dropped (the canonical counts when not known).
        self.listed = listed if listed is not None else (refs.counts, preds.counts)
        #: the tokens' gold and predicted labels when the call scores tokens at a
        #: threshold (``token_level``; ``response_level`` with ``unit="tokens"``).
        self.tokens = tokens
        self.n = refs.n_examples
        self._share_pairs = share_pairs

    @property
    def share_pairs(self) -> bool:
        """True when a requested metric needs every overlapping pair anyway and they are
        held in memory (not `dense`): the cheaper metrics then derive their statistics
        from those pairs."""
        return self._share_pairs and not self.dense

    @cached_property
    def pair_ranges(self) -> PairRanges:
        """The overlapping pairs as index ranges (`mycelium.metrics._blocks`)."""
        rs, re_, ps, pe = self.keys
        return PairRanges.of(rs, re_, ps, pe, self.start_order)

    @cached_property
    def dense(self) -> bool:
        """More overlapping pairs than are held at once: metrics read `pair_blocks`."""
        return self.pair_ranges.n_pairs > _blocks.MATERIALIZE

    @cached_property
    def pair_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Overlapping partners of each reference span and of each predicted span: from
        the ranges (no pair enumerated) when `dense`, else from the held pairs, which
        every metric reading these counts then holds anyway."""
        if self.dense:
            return self.pair_ranges.counts()
        pairs = self.pairs
        return iv.count(pairs.ref, self.refs.n_spans), iv.count(pairs.pred, self.preds.n_spans)

    def pair_blocks(self, by: str = "ref", *, rows=None, dead=None, keep=None):
        """The overlapping pairs as an iterable of `Pairs` blocks, each holding every
        pair of its ``by`` spans (``"ref"`` or ``"pred"``), blocks in ``by`` order:
        ``[self.pairs]`` unless `dense`. Iterate it as often as needed; dense blocks are
        enumerated afresh, skipping blocks without a ``rows`` span or whose other spans
        are all ``dead`` (bool masks over the ``by`` and the other side), and keeping
        only the pairs ``keep(ref_index, pred_index)`` accepts before their overlaps
        are computed."""
        if not self.dense:
            return [self.pairs]
        return _PairBlocks(self, by, rows, dead, keep)

    @cached_property
    def keys(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Order keys (ref starts, ref ends, pred starts, pred ends) in one key space."""
        return self._keys[0]

    @cached_property
    def _keys(self):
        r, p = self.refs, self.preds
        (rs, re_, ps, pe), linear = iv.linear_order_keys(
            [r.example_ids, r.example_ids, p.example_ids, p.example_ids],
            [r.starts, r.ends, p.starts, p.ends], self.n, spans=True)
        return (rs, re_, ps, pe), linear

    @cached_property
    def start_order(self) -> np.ndarray:
        """Both sides' start keys, references' then predictions', in one stable order
        (`iv.merge_order`): read by the pair ranges and by the masks' union."""
        rs, _, ps, _ = self.keys
        return iv.merge_order(rs, ps)

    @cached_property
    def sums_fit(self) -> bool:
        """True when every sum of characters over one example's spans stays below 2**61
        (then int64 arithmetic on them is exact, intermediate products wrapping modulo
        2**64 included): both sides are int64 and their total lengths times the larger
        side's spans, a float estimate with margin, stay below it."""
        r, p = self.refs, self.preds
        if r.starts.dtype != np.int64 or p.starts.dtype != np.int64:
            return False
        total = float(r.lengths.sum(dtype=np.float64)) + float(p.lengths.sum(dtype=np.float64))
        return total * (max(r.n_spans, p.n_spans) + 1) < 2.0**61

    @cached_property
    def overlap_sums(self) -> tuple[np.ndarray, np.ndarray]:
        """``(Σ_d c[g,d] per reference g, Σ_g c[g,d] per prediction d)``: each span's
        overlaps with the other side's spans of its example, summed, from prefix sums of
        starts and ends (no pair enumerated; O(spans · log spans)). Exact when
        `sums_fit`; callers check it first."""
        rs, re_, ps, pe = self.keys
        r, p = self.refs, self.preds
        return (_overlap_sums((ps, pe), p, (rs, re_), r),
                _overlap_sums((rs, re_), r, (ps, pe), p))

    @cached_property
    def pairs(self) -> "Pairs":
        """Every overlapping (reference, prediction) pair of the canonical spans."""
        ig, jd = self.pair_ranges.pairs()
        return Pairs.at(self.refs, self.preds, ig, jd)

    @cached_property
    def pair_lengths(self) -> tuple[np.ndarray, np.ndarray]:
        """The lengths of each held pair's reference and prediction (`pairs`): with the
        overlap they decide equality (``c == len g == len d``), containment and the
        area tests of the pair metrics."""
        pairs = self.pairs
        return self.refs.lengths[pairs.ref], self.preds.lengths[pairs.pred]

    @cached_property
    def mask_sizes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(|mask(G)|, |mask(P)|, |mask(G) ∩ mask(P)|) per example, no pair read: each
        mask's characters are what its spans add in start order (`iv.added_lengths`),
        and the intersection is ``|mask(G)| + |mask(P)| − |mask(G ∪ P)|``, the union's
        spans being both sides' in one start order (`start_order`).
        Every value is at most the largest offset, so int64 arithmetic (wrapping in
        ``g + p``) is exact."""
        r, p = self.refs, self.preds
        (rs, re_, ps, pe), linear = self._keys
        values = (lambda side: None if linear else (side.starts, side.ends))  # noqa: E731
        g = iv.segment_sum(iv.added_lengths(rs, re_, values(r)), r.offsets)
        q = iv.segment_sum(iv.added_lengths(ps, pe, values(p)), p.offsets)
        order = self.start_order
        both = None if linear else (np.concatenate([r.starts, p.starts])[order],
                                    np.concatenate([r.ends, p.ends])[order])
        added = iv.added_lengths(np.concatenate([rs, ps])[order],
                                 np.concatenate([re_, pe])[order], both)
        union = iv.segment_sum(added, r.offsets + p.offsets)
        return g, q, g + q - union


@dataclass(frozen=True)
class Pairs:
    """Overlapping span pairs: indices into each side, their example and overlap length."""

    ref: np.ndarray
    pred: np.ndarray
    example: np.ndarray
    overlap: np.ndarray

    @classmethod
    def at(cls, refs: SpanArrays, preds: SpanArrays, ig, jd) -> "Pairs":
        """The pairs ``(refs[ig], preds[jd])`` with their examples and overlaps."""
        ov = (np.minimum(refs.ends[ig], preds.ends[jd])
              - np.maximum(refs.starts[ig], preds.starts[jd]))
        return cls(ig, jd, refs.example_ids[ig], ov)

    def select(self, mask: np.ndarray) -> "Pairs":
        """The pairs where ``mask`` (bool) is True, or at the indices ``mask``."""
        at = np.flatnonzero(mask) if mask.dtype == bool else mask
        return Pairs(self.ref[at], self.pred[at], self.example[at], self.overlap[at])


class _PairBlocks:
    """Re-iterable blocks of `Pairs` of a dense workspace, cut by whole ``by`` spans."""

    def __init__(self, ws: Workspace, by: str, rows, dead, keep) -> None:
        self.ws, self.by, self.rows, self.dead, self.keep = ws, by, rows, dead, keep

    def __iter__(self):
        ws = self.ws
        r, p = ws.refs, ws.preds
        if self.by == "ref":
            found = ws.pair_ranges.blocks(r.offsets, p.offsets, r.example_ids,
                                          rows=self.rows, dead=self.dead)
        else:
            if "_pred_ranges" not in ws.__dict__:
                rs, re_, ps, pe = ws.keys
                ws.__dict__["_pred_ranges"] = PairRanges.of(ps, pe, rs, re_)
            found = ((ig, jd) for jd, ig in ws.__dict__["_pred_ranges"].blocks(
                p.offsets, r.offsets, p.example_ids, rows=self.rows, dead=self.dead))
        for ig, jd in found:
            if self.keep is not None:
                sel = self.keep(ig, jd)
                ig, jd = ig[sel], jd[sel]
            yield Pairs.at(r, p, ig, jd)


def _overlap_sums(a_keys, a: SpanArrays, b_keys, b: SpanArrays) -> np.ndarray:
    """``Σ_a |a ∩ b|`` over the ``a`` spans of each ``b`` span's example, per ``b`` span:
    ``F(end b) − F(start b)`` with ``F(x) = Σ_{a.start<x} (x − a.start) − Σ_{a.end<x}
    (x − a.end)``. Keys never mix examples, so global prefix sums differenced at the
    example's first ``a`` span are the example's own."""
    starts, ends = a_keys  # starts sorted (canonical order)
    by_end = np.argsort(ends, kind="stable")
    end_keys = ends[by_end]
    start_pre = np.zeros(a.n_spans + 1, dtype=np.int64)
    np.cumsum(a.starts, out=start_pre[1:])
    end_pre = np.zeros(a.n_spans + 1, dtype=np.int64)
    np.cumsum(a.ends[by_end], out=end_pre[1:])
    first = a.offsets[b.example_ids]  # the example's first a span

    def F(keys: np.ndarray, offs: np.ndarray) -> np.ndarray:
        ks = np.searchsorted(starts, keys, side="left")
        ke = np.searchsorted(end_keys, keys, side="left")
        return ((ks - ke) * offs - (start_pre[ks] - start_pre[first])
                + (end_pre[ke] - end_pre[first]))

    return F(b_keys[1], b.ends) - F(b_keys[0], b.starts)
