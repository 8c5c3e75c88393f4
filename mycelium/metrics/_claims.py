"""The greedy claim passes of ``deteval_1d`` (pass 2, split; pass 3, merge), exact and
at a cost proportional to the overlapping pairs.

The sequential rule: the ``by`` spans (references in pass 2, predictions in pass 3) are
visited in canonical order; each claims its candidates C (the ``other`` spans not yet
claimed that pass the pass's test) when ``|C| == 1`` and the single test holds, or
``|C| >= 2`` and ``Σ overlap`` meets the threshold. Claimed spans are never reused.

Cost. A block of candidate pairs holds every pair of its ``by`` spans, blocks come in
``by`` order (`mycelium.metrics._blocks`), so the sequential rule runs block after block
with only the claimed ``other`` spans carried over: every pair is read from the ranges
once. Within a block, vectorised rounds decide most spans of an ordinary batch in one or
two passes over its pairs (`_round`); when a round decides few spans for the pairs it
read (a chain of spans that each wait for the one before, typical of many mutually
overlapping spans, needed one round per claim), the rest of the block is decided span by
span in order, each reading only its own pairs (`_in_order`). Either way each pair is
read a bounded number of times.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import intervals as iv

#: A round that reads more live pairs than this per span it decides hands the rest of
#: its block to the span-by-span pass (whose cost per span is a few numpy calls, about
#: the cost of a round over this many pairs; benchmarks/bench_deteval.py).
PAIRS_PER_DECISION = 256


@dataclass(frozen=True)
class Claims:
    """What a pass decided, over one side's spans (``by``) and the other's (``other``);
    the arrays are filled in place as the pass goes."""

    matched: np.ndarray   # bool per by span: claimed its candidates
    single: np.ndarray    # bool per by span: claimed exactly one (a one-to-one match)
    members: np.ndarray   # int64 per by span: candidates claimed by a group, else 0
    claimed: np.ndarray   # bool per other span: claimed in this pass

    @classmethod
    def empty(cls, n_by: int, n_other: int) -> "Claims":
        return cls(np.zeros(n_by, dtype=bool), np.zeros(n_by, dtype=bool),
                   np.zeros(n_by, dtype=np.int64), np.zeros(n_other, dtype=bool))


def claim_pass(blocks, *, rows: np.ndarray, taken: np.ndarray, length: np.ndarray,
               threshold: float) -> Claims:
    """The sequential pass over candidate ``blocks``.

    ``blocks`` yields ``(by, other, overlap, single_ok)`` columns of the live candidate
    pairs (``by`` in ``rows``, ``other`` not in ``taken``, passing the pass's test), each
    block holding every such pair of its ``by`` spans, blocks in ``by`` order: a generator
    that reads ``taken`` as it goes, which is updated in place after each block. ``rows``:
    the ``by`` spans that take part; ``taken``: the ``other`` spans claimed before the
    pass (and, on return, in it); ``length``: each ``by`` span's length.
    """
    out = Claims.empty(rows.size, taken.size)
    for b, o, ov, ok in blocks:
        if b.size == 0:
            continue
        # Number the block's spans from 0, in order (so "earlier" is unchanged).
        by_ids, lb = _compact(b)
        other_ids, lo = _compact(o)
        got = _solve(lb, lo, ov, ok, length[by_ids], threshold)
        out.matched[by_ids] = got.matched
        out.single[by_ids] = got.single
        out.members[by_ids] = got.members
        won = other_ids[got.claimed]
        out.claimed[won] = True
        taken[won] = True
    return out


def _solve(b, o, ov, ok, length, threshold) -> Claims:
    """The sequential rule on one block's live candidate pairs (local span numbers)."""
    n_by, n_other = length.size, int(o.max()) + 1
    out = Claims.empty(n_by, n_other)
    undecided = np.ones(n_by, dtype=bool)
    pairs = (b, o, ov, ok)
    while undecided.any():
        before = int(undecided.sum())
        cost = pairs[0].size + n_by + n_other  # a round reads the pairs and the spans
        pairs = _round(pairs, undecided, out, length, threshold)
        if cost > PAIRS_PER_DECISION * (before - int(undecided.sum())):
            break
    if undecided.any():
        _in_order(pairs, undecided, out, length, threshold)
    return out


def _round(pairs, undecided, out: Claims, length, threshold):
    """One vectorised round; returns the pairs still live for the next.

    Two facts give the sequential result exactly:

    - a span that would not claim with its current candidates never claims later
      (claims only remove candidates, and a subset of a failing C fails: its sum is
      smaller, and one candidate passing the single test alone would make Σ pass), so it
      is decided now;
    - a span that would claim and that no earlier such span competes with (none shares a
      candidate) claims now. The first one always does, so each round decides at least
      one span; claims apply after the round.
    """
    b, o, ov, ok = pairs
    alive = undecided[b] & ~out.claimed[o]
    if not alive.all():
        at = np.flatnonzero(alive)
        b, o, ov, ok = b[at], o[at], ov[at], ok[at]
    n_by = length.size
    visited = np.zeros(n_by, dtype=bool)
    visited[b] = True
    n_cand = iv.count(b, n_by)
    would = _would(n_cand, iv.count(b[ok], n_by), iv.group_sum(b, ov, n_by), length,
                   threshold)
    want = np.flatnonzero(would[b])
    bw, ow = b[want], o[want]
    first = np.full(out.claimed.size, n_by, dtype=np.int64)
    np.minimum.at(first, ow, bw)
    waiting = np.zeros(n_by, dtype=bool)
    waiting[bw[first[ow] != bw]] = True
    ready = would & ~waiting
    _record(out, ready, n_cand)
    claims = ow[ready[bw]]
    # Spans seen now are decided unless they would claim and wait; spans with no live
    # candidate left were not seen: they cannot claim.
    undecided &= visited
    undecided[b] = would[b] & waiting[b]
    out.claimed[claims] = True
    return b, o, ov, ok


def _in_order(pairs, undecided, out: Claims, length, threshold) -> None:
    """The sequential rule itself over the undecided spans, each reading its own pairs."""
    b, o, ov, ok = pairs
    # Each span's pairs together, in a stable sort by span (int32 keys sort in half the
    # time of int64 ones).
    order = np.argsort(b.astype(np.int32) if length.size < 2**31 else b, kind="stable")
    o, ov, ok = o[order], ov[order], ok[order]
    bounds = np.zeros(length.size + 1, dtype=np.int64)
    np.cumsum(iv.count(b, length.size), out=bounds[1:])
    claimed = out.claimed
    for u in np.flatnonzero(undecided).tolist():
        lo, hi = int(bounds[u]), int(bounds[u + 1])
        live = ~claimed[o[lo:hi]]
        k = int(np.count_nonzero(live))
        if k == 0:
            continue
        n_single = int(np.count_nonzero(ok[lo:hi][live]))
        total = iv.group_sum(np.zeros(k, dtype=np.int64), ov[lo:hi][live], 1)
        if _would(np.array([k]), np.array([n_single]), total, length[u:u + 1],
                  threshold)[0]:
            out.matched[u] = True
            out.single[u] = k == 1
            out.members[u] = k if k >= 2 else 0
            claimed[o[lo:hi][live]] = True
    undecided[:] = False


def _would(n_cand, n_single, sum_ov, length, threshold) -> np.ndarray:
    """Whether each span claims its current candidates."""
    return ((n_cand == 1) & (n_single == 1)) | (
        (n_cand >= 2) & iv.passes(sum_ov, np.maximum(length, 1), threshold))


def _record(out: Claims, ready: np.ndarray, n_cand: np.ndarray) -> None:
    """Mark the ``ready`` spans as claiming their ``n_cand`` candidates."""
    np.logical_or(out.matched, ready, out=out.matched)
    np.logical_or(out.single, ready & (n_cand == 1), out=out.single)
    np.copyto(out.members, n_cand, where=ready & (n_cand >= 2))


def _compact(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Local numbers for the span indices ``idx`` (>= 0, not empty), order preserving:
    ``(ids, local)`` with ``ids[local] == idx``. Indices counted from the lowest when
    they fill most of their range (a dense block), else renumbered densely (no sort)."""
    low, high = int(idx.min()), int(idx.max())
    if high - low < idx.size:
        return np.arange(low, high + 1), idx - low
    used = np.zeros(high - low + 1, dtype=bool)
    used[idx - low] = True
    ids = np.flatnonzero(used) + low
    local = np.cumsum(used) - 1
    return ids, local[idx - low]
