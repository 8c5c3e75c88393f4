"""Overlapping span pairs as ranges, counted without enumeration and enumerated in blocks.

Every overlapping pair of two sides sorted by start falls in exactly one of two
families of contiguous index ranges of the other side's sorted starts: ``a.start <=
b.start < a.end`` (b starts inside a) and ``b.start < a.start < b.end`` (a starts
strictly inside b), so no non-overlapping pair is ever enumerated. The number of
pairs, and each span's number of partners, follow from the ranges alone. When there are
more pairs than `MATERIALIZE` (one example with thousands of mutually overlapping spans
has tens of millions), the pairs are never held at once: `PairRanges.blocks` enumerates
them a block of whole rows (spans of one side) at a time, at most about `BLOCK` pairs
each, so memory stays bounded whatever the number of pairs, and the cost stays
proportional to it. Every per-span reduction of the side the blocks are cut by is
complete within one block.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

import numpy as np

from . import intervals as iv

if TYPE_CHECKING:  # a structural type: what the kernels read of the core's SpanBatch
    from ._spans import SpanArrays


#: Pairs held in memory at once (below: one `Pairs` of the whole batch, reused by every
#: metric); above, metrics read them in blocks.
MATERIALIZE = 1 << 23
#: Pairs per block (a block holds whole rows, so it may hold more when one span alone
#: overlaps more; at most the size of the other side of its example).
BLOCK = 1 << 21


@dataclass(frozen=True)
class PairRanges:
    """Case 1: a[i] pairs with b[lo1[i]:hi1[i]]; case 2: b[j] pairs with a[lo2[j]:hi2[j]]."""

    lo1: np.ndarray
    hi1: np.ndarray
    lo2: np.ndarray
    hi2: np.ndarray

    @classmethod
    def of(cls, a_start, a_end, b_start, b_end, start_order=None) -> "PairRanges":
        """The two families' ranges, for order keys (`mycelium.metrics.intervals.order_keys`)
        of non-empty intervals sorted by start on each side (``start_order``: the
        starts' `mycelium.metrics.intervals.merge_order`, when already known)."""
        lo1, lo2 = iv.merged_ranks(a_start, b_start, start_order)
        hi1 = np.maximum(iv.count_below(b_start, a_end), lo1)
        hi2 = np.maximum(iv.count_below(a_start, b_end), lo2)
        return cls(lo1, hi1, lo2, hi2)

    @property
    def n_pairs(self) -> int:
        return int((self.hi1 - self.lo1).sum() + (self.hi2 - self.lo2).sum())

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Partners of each a span and of each b span (without enumerating a pair)."""
        n_a, n_b = self.lo1.size, self.lo2.size
        return (self.hi1 - self.lo1 + _covered(self.lo2, self.hi2, n_a),
                self.hi2 - self.lo2 + _covered(self.lo1, self.hi1, n_b))

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Every pair ``(i, j)`` at once, case 1 then case 2."""
        ia1, jb1 = iv.expand_ranges(self.lo1, self.hi1)
        jb2, ia2 = iv.expand_ranges(self.lo2, self.hi2)
        return np.concatenate([ia1, ia2]), np.concatenate([jb1, jb2])

    def blocks(self, a_offsets, b_offsets, a_examples, block: int | None = None, *,
               rows: np.ndarray | None = None, dead: np.ndarray | None = None
               ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The pairs of consecutive rows of a (whole rows, about ``block`` pairs each).

        A block is skipped (cheaply, before enumerating it) when none of its rows is in
        ``rows`` or every b span of its examples is ``dead``; otherwise all its pairs
        come, and the caller filters them.
        """
        block = BLOCK if block is None else block
        per_a = self.counts()[0]
        if per_a.size == 0:
            return
        ends = np.cumsum(per_a)
        cuts = np.searchsorted(ends, np.arange(block, int(ends[-1]), block), side="left") + 1
        bounds = np.unique(np.concatenate([[0], cuts, [per_a.size]]))
        for r0, r1 in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            # b spans of the examples these rows belong to (keys never pair examples).
            j0 = int(b_offsets[a_examples[r0]])
            j1 = int(b_offsets[a_examples[r1 - 1] + 1])
            if (rows is not None and not rows[r0:r1].any()) or (
                    dead is not None and dead[j0:j1].all()):
                continue
            ia1, jb1 = iv.expand_ranges(self.lo1[r0:r1], self.hi1[r0:r1])
            ia1 += r0
            lo = np.clip(self.lo2[j0:j1], r0, r1)
            hi = np.clip(self.hi2[j0:j1], r0, r1)
            jb2, ia2 = iv.expand_ranges(lo, np.maximum(hi, lo))
            jb2 += j0
            yield np.concatenate([ia1, ia2]), np.concatenate([jb1, jb2])


def _covered(lo: np.ndarray, hi: np.ndarray, n: int) -> np.ndarray:
    """How many of the ranges ``[lo[k], hi[k])`` contain each index of ``0..n-1``."""
    diff = np.bincount(lo, minlength=n + 1)[:n + 1] - np.bincount(hi, minlength=n + 1)[:n + 1]
    return np.cumsum(diff[:n]).astype(np.int64)
