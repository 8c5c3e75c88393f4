"""Flat span tables: many span sets as three int64 arrays, and the vectorised set operations
the study needs (merging, coverage counts over voters, Arrow conversion).

A `Flat` holds ``n`` rows (span sets); span ``i`` belongs to row ``row[i]`` and covers
``[start[i], end[i])``. Rows are kept sorted so that a row's spans are contiguous.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from mycelium import SPAN_TYPE

_BIG = np.int64(1) << 32  # offsets in the data are < 2**32, rows < 2**31


@dataclass(frozen=True)
class Flat:
    """``n`` span sets as flat arrays, spans grouped by row (rows ascending)."""

    n: int
    row: np.ndarray
    start: np.ndarray
    end: np.ndarray

    @classmethod
    def build(cls, n: int, row, start, end) -> "Flat":
        """A `Flat` from unsorted arrays (sorted by row, then start, then end)."""
        row, start, end = (np.asarray(a, dtype=np.int64) for a in (row, start, end))
        order = np.lexsort((end, start, row))
        return cls(int(n), row[order], start[order], end[order])

    @classmethod
    def from_arrow(cls, arr) -> "Flat":
        """From a ``list<struct<start, end>>`` Arrow array (nulls read as empty)."""
        arr = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
        values = arr.flatten()
        row = pa.compute.list_parent_indices(arr).to_numpy()
        return cls(len(arr), row.astype(np.int64),
                   values.field("start").to_numpy(zero_copy_only=False).astype(np.int64),
                   values.field("end").to_numpy(zero_copy_only=False).astype(np.int64))

    @property
    def offsets(self) -> np.ndarray:
        return np.searchsorted(self.row, np.arange(self.n + 1)).astype(np.int64)

    @property
    def counts(self) -> np.ndarray:
        return np.diff(self.offsets)

    def to_arrow(self) -> pa.Array:
        """A `mycelium.SPAN_TYPE` array with one span list per row."""
        values = pa.StructArray.from_arrays([pa.array(self.start, pa.int64()),
                                             pa.array(self.end, pa.int64())],
                                            names=["start", "end"])
        arr = pa.ListArray.from_arrays(pa.array(self.offsets.astype(np.int32)), values)
        return arr.cast(SPAN_TYPE)

    def where(self, keep: np.ndarray) -> "Flat":
        """Only the spans selected by the boolean mask ``keep`` (rows unchanged)."""
        return Flat(self.n, self.row[keep], self.start[keep], self.end[keep])

    def take(self, rows) -> "Flat":
        """A new `Flat` whose row ``i`` is a copy of row ``rows[i]`` of this one."""
        rows = np.asarray(rows, dtype=np.int64)
        off = self.offsets
        counts = off[rows + 1] - off[rows]
        total = int(counts.sum())
        new_row = np.repeat(np.arange(rows.size, dtype=np.int64), counts)
        first = np.repeat(off[rows] - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
        idx = first + np.arange(total, dtype=np.int64)
        return Flat(rows.size, new_row, self.start[idx], self.end[idx])

    def lists(self) -> list[list[tuple[int, int]]]:
        """Python span lists, one per row (for the per-character Cor vectors)."""
        out: list[list[tuple[int, int]]] = [[] for _ in range(self.n)]
        for r, s, e in zip(self.row.tolist(), self.start.tolist(), self.end.tolist()):
            out[r].append((s, e))
        return out


def concat(parts: list[Flat]) -> Flat:
    """Rows of every part, one after the other."""
    shift = np.cumsum([0] + [p.n for p in parts[:-1]])
    return Flat(int(sum(p.n for p in parts)),
                np.concatenate([p.row + k for p, k in zip(parts, shift)]),
                np.concatenate([p.start for p in parts]),
                np.concatenate([p.end for p in parts]))


def merge(flat: Flat, *, adjacent: bool = True) -> Flat:
    """Merge each row's overlapping spans (and touching ones when ``adjacent``).

    Zero-length spans must already be gone. The result is sorted and disjoint.
    """
    if flat.row.size == 0:
        return flat
    order = np.lexsort((flat.end, flat.start, flat.row))
    row, start, end = flat.row[order], flat.start[order], flat.end[order]
    # Running maximum of the end within each row: rows are sorted, so a key of
    # row * 2**32 + end never lets one row's ends leak into the next.
    reach = np.maximum.accumulate(row * _BIG + end) - row * _BIG
    prev_reach = np.concatenate(([-1], reach[:-1]))
    new_row = np.concatenate(([True], row[1:] != row[:-1]))
    gap = start > prev_reach if adjacent else start >= prev_reach
    first = new_row | gap
    idx = np.flatnonzero(first)
    last = np.concatenate((idx[1:], [row.size])) - 1
    return Flat(flat.n, row[idx], start[idx], reach[last])


def coverage(voters: Flat, n_groups: int, group_of_row: np.ndarray,
             threshold: np.ndarray) -> tuple[Flat, Flat, np.ndarray]:
    """Characters covered by more than ``threshold[g]`` voters of each group ``g``.

    Each row of ``voters`` is one voter (e.g. one annotator on one item) whose spans are
    already merged (so a voter counts at most once per character); ``group_of_row[r]``
    is the group the voter votes in. Returns ``(majority, segments, counts)``:
    ``majority`` has one row per group with the merged spans where the count exceeds the
    group's threshold; ``segments`` (one row per group) and ``counts`` give every
    maximal piece with a constant, non-zero count.
    """
    g = group_of_row[voters.row]
    pos = np.concatenate((voters.start, voters.end))
    grp = np.concatenate((g, g))
    delta = np.concatenate((np.ones_like(voters.start), -np.ones_like(voters.end)))
    order = np.lexsort((pos, grp))
    pos, grp, delta = pos[order], grp[order], delta[order]
    # One event per distinct (group, position); every group's deltas sum to zero, so a
    # global running sum is each group's running count.
    key_new = np.concatenate(([True], (grp[1:] != grp[:-1]) | (pos[1:] != pos[:-1])))
    ids = np.cumsum(key_new) - 1
    pos, grp = pos[key_new], grp[key_new]
    delta = np.bincount(ids, weights=delta).astype(np.int64)
    count = np.cumsum(delta)
    same_group_next = np.concatenate((grp[1:] == grp[:-1], [False]))
    seg = same_group_next & (count > 0)
    nxt = np.concatenate((pos[1:], [0]))
    segments = Flat(n_groups, grp[seg], pos[seg], nxt[seg])
    counts = count[seg]
    major = counts > np.asarray(threshold)[segments.row]
    return merge(segments.where(major)), segments, counts
