"""Cor (`soft_spearman`) of many examples at once, on runs of equal probability.

A soft-label vector is constant between span bounds, so its average ranks and the
Pearson correlation of those ranks are sums over the *elementary segments* of an example
(the pieces between the bounds of both sides), each weighted by its length. Twice an
average rank is an integer (``2 * before + count + 1``), so every sum is exact in int64;
the last steps repeat ``numpy.corrcoef``'s own float operations on these exact sums.
``corrcoef``'s sums over per-character ranks are exact too (multiples of 1/4 far below
2**53), so the scores are bit for bit those of `mycelium.metrics.soft_spearman.cor` on
the per-character vectors, at a cost proportional to the spans, not the characters.

Texts longer than `EXACT_CHARS` (where the per-character float sums could round) and
examples whose spans overlap (last writer wins: their runs come from the vector) take
the per-character path of one example.

The sorts of bounds are of keys that ascend by example (``example * width + offset``),
made of a few runs that are sorted already (one per side and kind of bound) or of short
unsorted stretches within each example: numpy's stable sort (timsort) merges such runs
in about linear time, where its default quicksort does not see them (5-10x slower on
these keys). The order of equal keys is the stable one either way. Ranks sort only the
values an example can take (each run's, and 0.0 for its gaps), not its segments, and
sort them by one float key that such runs keep nearly in order (`_by_owner_and_value`).
"""

from __future__ import annotations

import numpy as np

from . import intervals as iv

__all__ = ["EXACT_CHARS", "CONSTANT_RULES", "cor_runs", "cor_of_runs", "last_writer_runs",
           "round8"]

#: The constant-vector rules (after Python ``round(x, 8)``) Cor can follow:
#: ``"mu_shroom"``, 1.0 when both sides are constant, else 0.0 (even when the constants
#: differ); ``"shroom_visions"``, 0.0 unless both are constant, then 1.0 when the
#: reference is all zero and the prediction too, or the reference is a nonzero constant
#: and the prediction is not all zero.
CONSTANT_RULES = ("mu_shroom", "shroom_visions")

#: Above this text length, sums of products of centred ranks may pass 2**53 / 4.
EXACT_CHARS = 100_000


def cor_runs(lengths: np.ndarray, ref: tuple, pred: tuple, *, slow=None) -> np.ndarray:
    """Cor per example from flat soft spans.

    ``lengths`` is ``len(text)`` per example; ``ref`` and ``pred`` are ``(offsets,
    starts, ends, probs)``: example k owns spans ``offsets[k]:offsets[k+1]`` in list
    order, already validated (``0 <= start <= end <= len``, probabilities in [0, 1]).
    ``slow(a, b)`` scores two per-character vectors (`soft_spearman.cor`).
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    ref, pred = ((np.asarray(side[0], dtype=np.int64), *map(np.asarray, side[1:]))
                 for side in (ref, pred))
    scores = np.empty(lengths.size)
    for lo, hi in iv.example_blocks(np.diff(ref[0]) + np.diff(pred[0]), CHUNK_RUNS):
        part = lengths[lo:hi]
        scores[lo:hi] = cor_of_runs(part, _runs(part, *iv.span_rows(ref, lo, hi)),
                                    _runs(part, *iv.span_rows(pred, lo, hi)), slow=slow)
    return scores


def last_writer_runs(lengths, offsets, starts, ends, probs):
    """The runs ``(example, start, end, prob)``, sorted by (example, start) and not
    overlapping, that each example's spans write in list order (the last writer of a
    character wins; empty and reversed spans write nothing). Arguments as `cor_runs`'s
    ``ref``."""
    return _runs(np.asarray(lengths, dtype=np.int64), offsets, starts, ends, probs)


def cor_of_runs(lengths, runs_a, runs_b, *, slow=None, constant: str = "mu_shroom"
                ) -> np.ndarray:
    """Cor per example from the runs of both sides (`last_writer_runs`, or any sorted,
    non-overlapping runs), under the ``constant`` rule (`CONSTANT_RULES`). ``slow(a,
    b)`` scores the per-character vectors of a text longer than `EXACT_CHARS`."""
    if constant not in CONSTANT_RULES:
        raise ValueError(f"Expected a constant rule in {CONSTANT_RULES}, got {constant!r}.")
    lengths = np.asarray(lengths, dtype=np.int64)
    scores = np.full(lengths.size, np.nan)
    big = np.flatnonzero(lengths > EXACT_CHARS)
    for k in big.tolist():
        scores[k] = slow(_vector(runs_a, k, int(lengths[k])), _vector(runs_b, k, int(lengths[k])))
    fast = (lengths > 0) & (lengths <= EXACT_CHARS)
    if not fast.any():
        return scores
    per_example = np.bincount(runs_a[0], minlength=lengths.size) \
        + np.bincount(runs_b[0], minlength=lengths.size)
    for lo, hi in iv.example_blocks(per_example, CHUNK_RUNS):
        # Runs are sorted by example: a chunk's are a slice, its examples numbered anew.
        part_a, part_b = (_rows_of(runs, lo, hi) for runs in (runs_a, runs_b))
        mine = fast[lo:hi]
        if mine.any():
            scores[lo:hi][mine] = _cor_fast(lengths[lo:hi], mine, part_a, part_b, constant)
    return scores


#: Runs (of both sides) scored at a time: a chunk's temporaries stay in the cache and
#: their memory is reused, where arrays over 100,000 examples at once are each fresh
#: memory in a fresh process (page faults cost more than the arithmetic).
CHUNK_RUNS = 1 << 16


def _rows_of(runs, lo: int, hi: int):
    """The runs of examples ``lo..hi-1``, their examples counted from ``lo``."""
    ex = runs[0]
    a, b = np.searchsorted(ex, [lo, hi]).tolist()
    return (ex[a:b] - lo, *(c[a:b] for c in runs[1:]))


# ------------------------------------------------------------------------ runs

def _runs(lengths, offsets, starts, ends, probs):
    """Non-overlapping runs ``(example, start, end, prob)`` sorted by (example, start):
    the vector each example's spans write, last writer winning."""
    offsets = np.asarray(offsets, dtype=np.int64)
    s = np.asarray(starts, dtype=np.int64)
    e = np.asarray(ends, dtype=np.int64)
    p = np.asarray(probs, dtype=np.float64)
    listed = np.repeat(np.arange(offsets.size - 1, dtype=np.int64), np.diff(offsets))
    ex = listed
    keep = s < e  # an empty span writes nothing
    if not keep.all():
        ex, s, e, p = ex[keep], s[keep], e[keep], p[keep]
    if s.size == 0:
        return ex, s, e, p
    ex, s, e, p = _sorted(ex, s, e, p)
    same = ex[1:] == ex[:-1]
    clash = same & (s[1:] < e[:-1])
    if not clash.any():
        return ex, s, e, p
    dirty = np.unique(ex[1:][clash])
    bad = np.zeros(offsets.size - 1, dtype=bool)
    bad[dirty] = True
    ok = ~bad[ex]
    # The examples with overlapping spans, from their spans in list order.
    mine = bad[listed] & (np.asarray(starts) < np.asarray(ends))
    written = _last_writer(lengths, listed[mine], np.asarray(starts, dtype=np.int64)[mine],
                           np.asarray(ends, dtype=np.int64)[mine],
                           np.asarray(probs, dtype=np.float64)[mine])
    return _sorted(*(np.concatenate(col) for col in zip((ex[ok], s[ok], e[ok], p[ok]),
                                                        written)))


#: (span, piece) pairs `_last_writer` enumerates at once (about twice this at most): an
#: example with more is written as a vector, the others go in chunks of examples.
_PAIRS = 1 << 22


def _last_writer(lengths, ex, s, e, p):
    """The runs that spans written in list order leave (the last writer of each
    character wins): the pieces between the spans' bounds, each taking the value of the
    last span that covers it. Pieces of equal value are not merged; Cor's sums are
    weighted by length, so they do not depend on where runs are cut."""
    if ex.size == 0:
        return ex, s, e, p
    width = int(lengths.max()) + 1
    bounds, lo, hi = _pieces(ex * width + s, ex * width + e)
    count = hi - lo  # pieces under each span (spans never cross examples)
    if int(count.sum()) <= _PAIRS:
        return _written(ex, p, width, bounds, lo, count)
    per_example = np.bincount(ex, weights=count)
    heavy = per_example > _PAIRS
    parts = [_one_vector(k, int(lengths[k]), s[ex == k], e[ex == k], p[ex == k])
             for k in np.flatnonzero(heavy).tolist()]
    # The other examples in chunks of consecutive examples, each starting below a
    # multiple of _PAIRS pairs: at most 2 * _PAIRS pairs per chunk.
    light = np.where(heavy, 0.0, per_example)
    chunk = ((np.cumsum(light) - light) // _PAIRS).astype(np.int64)[ex]
    chunk[heavy[ex]] = -1
    for c in np.unique(chunk[chunk >= 0]).tolist():
        mine = chunk == c
        bounds, lo, hi = _pieces(ex[mine] * width + s[mine], ex[mine] * width + e[mine])
        parts.append(_written(ex[mine], p[mine], width, bounds, lo, hi - lo))
    return tuple(np.concatenate(col) for col in zip(*parts))


def _pieces(ks, ke):
    """The sorted distinct bounds of spans keyed on the global axis, and the first and
    past-last piece (between consecutive bounds) under each span."""
    bounds = distinct(np.sort(np.concatenate([ks, ke]), kind="stable"))
    return bounds, np.searchsorted(bounds, ks), np.searchsorted(bounds, ke)


def _written(ex, p, width, bounds, lo, count):
    """The pieces some span covers, each with the value of the last one (in list order)."""
    span = np.repeat(np.arange(ex.size, dtype=np.int64), count)
    piece = lo[span] + np.arange(span.size) - (np.cumsum(count) - count)[span]
    last = np.full(bounds.size, -1, dtype=np.int64)
    np.maximum.at(last, piece, span)  # spans are in list order: the highest writes last
    at = np.flatnonzero(last >= 0)
    owner = ex[last[at]]
    return owner, bounds[at] - owner * width, bounds[at + 1] - owner * width, p[last[at]]


def _one_vector(k: int, n: int, s, e, p):
    """`_last_writer` of one example by writing its vector."""
    vec = np.zeros(n, dtype=np.float64)
    for a, b, v in zip(s.tolist(), e.tolist(), p.tolist()):
        vec[a:b] = v
    cuts = np.flatnonzero(vec[1:] != vec[:-1]) + 1
    rs = np.concatenate(([0], cuts)).astype(np.int64)
    re = np.concatenate((cuts, [vec.size])).astype(np.int64)
    return np.full(rs.size, k, dtype=np.int64), rs, re, vec[rs]


def _sorted(ex, s, e, p):
    """The runs in (example, start) order; spans usually arrive so, and are kept."""
    if ex.size < 2 or ((ex[1:] > ex[:-1]) | ((ex[1:] == ex[:-1]) & (s[1:] >= s[:-1]))).all():
        return ex, s, e, p
    width = int(s.max()) + 1
    if int(ex.max()) < (1 << 62) // width:  # (example, start) packed in one key
        order = np.argsort(ex * width + s, kind="stable")
    else:
        order = np.lexsort((s, ex))
    return ex[order], s[order], e[order], p[order]


def distinct(sorted_values: np.ndarray) -> np.ndarray:
    """The distinct values of a sorted array, in order."""
    if sorted_values.size == 0:
        return sorted_values
    head = np.ones(sorted_values.size, dtype=bool)
    head[1:] = sorted_values[1:] != sorted_values[:-1]
    return sorted_values[head]


def _vector(runs, k: int, n: int) -> np.ndarray:
    ex, s, e, p = runs
    lo, hi = np.searchsorted(ex, [k, k + 1])
    vec = np.zeros(n, dtype=np.float64)
    for a, b, v in zip(s[lo:hi].tolist(), e[lo:hi].tolist(), p[lo:hi].tolist()):
        vec[a:b] = v
    return vec


# ----------------------------------------------------------------- the scores

def _cor_fast(lengths, fast, runs_a, runs_b, constant: str = "mu_shroom") -> np.ndarray:
    keep_a, keep_b = fast[runs_a[0]], fast[runs_b[0]]
    ra = tuple(c[keep_a] for c in runs_a)
    rb = tuple(c[keep_b] for c in runs_b)
    examples = np.flatnonzero(fast)
    n = lengths[examples]
    width = int(n.max()) + 1
    # Elementary segments: between consecutive bounds of either side (and 0, len).
    bounds = distinct(np.sort(np.concatenate([
        examples * width, examples * width + n,
        ra[0] * width + ra[1], ra[0] * width + ra[2],
        rb[0] * width + rb[1], rb[0] * width + rb[2]]), kind="stable"))
    seg_ex = bounds[:-1] // width
    inside = seg_ex == bounds[1:] // width
    seg_start = bounds[:-1][inside]
    seg_len = (bounds[1:] - bounds[:-1])[inside]
    seg_ex = seg_ex[inside]
    # Segments are grouped by example (in example order): where each example's begin,
    # and each segment's example as its position among ``examples``.
    first = np.searchsorted(seg_ex, examples)
    seg_pos = np.repeat(np.arange(examples.size, dtype=np.int64),
                        np.diff(np.append(first, seg_ex.size)))
    pos_of = np.zeros(lengths.size, dtype=np.int64)
    pos_of[examples] = np.arange(examples.size)
    twice_a, const_a, zero_a = _twice_ranks(pos_of[ra[0]], ra[3], _run_of(ra, width, seg_start),
                                            seg_pos, seg_len)
    twice_b, const_b, zero_b = _twice_ranks(pos_of[rb[0]], rb[3], _run_of(rb, width, seg_start),
                                            seg_pos, seg_len)
    centre = (n + 1)[seg_pos]
    da, db = twice_a - centre, twice_b - centre
    # Sums of products of centred ranks, times 4: exact integers.
    s_ab = np.add.reduceat(seg_len * da * db, first).astype(np.float64) / 4.0
    s_aa = np.add.reduceat(seg_len * da * da, first).astype(np.float64) / 4.0
    s_bb = np.add.reduceat(seg_len * db * db, first).astype(np.float64) / 4.0
    with np.errstate(divide="ignore", invalid="ignore"):
        # numpy.corrcoef's operations, in its order, on the same (exact) sums.
        inv = np.true_divide(1, (n - 1).astype(np.float64))
        first_sd, second_sd = np.sqrt(s_aa * inv), np.sqrt(s_bb * inv)
        if constant == "shroom_visions":
            # scipy's spearmanr (which the SHROOM-Visions kit calls) stacks the two
            # vectors as columns and returns the matrix's [1, 0] entry: the covariance
            # divided by the second deviation first.
            first_sd, second_sd = second_sd, first_sd
        rho = (s_ab * inv) / first_sd
        rho = rho / second_sd
    rho = np.clip(rho, -1, 1)
    either = const_a | const_b
    both = const_a & const_b
    if constant == "shroom_visions":
        # Quirk of the SHROOM-Visions kit scorer (scorer.py 71-76): unless both vectors
        # are constant after round(x, 8) the score is 0.0; then 1.0 iff the reference is
        # all zero and the prediction too, or the reference is a nonzero constant and
        # the prediction is not all zero.
        both = both & np.where(zero_a, zero_b, ~zero_b)
    # Quirk of the official Mu-SHROOM scorer: either vector constant after Python
    # round(x, 8) scores 1.0 when both are, else 0.0.
    return np.where(either, both.astype(np.float64), rho)


def _run_of(runs, width: int, seg_start: np.ndarray) -> np.ndarray:
    """The run covering each segment's start: its index among ``runs``, -1 in a gap.

    Every run's bounds are segment bounds, so run j covers the segments
    ``lo_j:hi_j`` (two binary searches per run, not one per segment); the runs do not
    overlap, so a running sum of +j at ``lo_j`` and -j at ``hi_j`` numbers each
    segment's run (0 in a gap, counting runs from 1)."""
    ex, s, e, _ = runs
    if s.size == 0:
        return np.full(seg_start.size, -1, dtype=np.int64)
    lo = np.searchsorted(seg_start, ex * width + s)
    hi = np.searchsorted(seg_start, ex * width + e)
    run = np.arange(1, s.size + 1, dtype=np.int64)
    mark = np.zeros(seg_start.size + 1, dtype=np.int64)
    mark[lo] = run   # the starts are distinct, and so are the ends
    mark[hi] -= run  # an end may be the next run's start: -j after +(j + 1)
    which = np.cumsum(mark[:-1])
    which -= 1
    return which


def _twice_ranks(run_pos, run_p, which, seg_pos, seg_len):
    """Twice the average rank of every segment's value within its example (an int64),
    whether each example's vector is constant after Python ``round(x, 8)``, and whether
    it is all zero after that rounding.

    ``run_pos`` and ``run_p``: each run's example (numbered ``0..m-1``, as ``seg_pos``
    numbers each segment's) and value; ``which``: each segment's run, -1 in a gap. An
    example's values are its runs' and, in its gaps, 0.0: a few per example, so they are
    ranked as *entries* (each run, and one 0.0 per example), not segment by segment.
    Entries of one example and equal value form a group; a group's count is the
    characters of its segments, and twice its average rank is ``2 * before + count + 1``
    (``before``: the characters of the example's smaller values). A group of no
    character (an example without gaps has an empty 0.0 entry) shifts no rank.
    Values are not NaN (validated probabilities, or their sums)."""
    m = int(seg_pos[-1]) + 1 if seg_pos.size else 0
    values = np.concatenate([run_p, np.zeros(m)]) + 0.0  # -0.0 is 0.0 (equal for ranks and round)
    owner = np.concatenate([run_pos, np.arange(m, dtype=np.int64)])
    order = _by_owner_and_value(owner, values)
    sorted_owner, sorted_value = owner[order], values[order]
    head = np.ones(order.size, dtype=bool)
    head[1:] = (sorted_owner[1:] != sorted_owner[:-1]) | (sorted_value[1:] != sorted_value[:-1])
    heads = np.flatnonzero(head)
    group = np.empty(order.size, dtype=np.int64)
    group[order] = np.cumsum(head) - 1  # each entry's group; groups in (example, value) order
    seg_group = group[np.where(which >= 0, which, run_p.size + seg_pos)]
    # Per-group characters: float sums of lengths, exact (an example has at most
    # EXACT_CHARS characters).
    count = np.bincount(seg_group, weights=seg_len, minlength=heads.size).astype(np.int64)
    group_owner, group_value = sorted_owner[heads], sorted_value[heads]
    before = np.cumsum(count) - count
    ex_first = np.flatnonzero(np.diff(group_owner, prepend=-1))  # every example has a group
    before -= before[ex_first][group_owner]
    twice = (2 * before + count + 1)[seg_group]
    # round(x, 8) never decreases as x grows, so an example's values all round alike iff
    # its least and greatest do, and all to 0.0 iff those two do: the first and last
    # group of each example that holds characters.
    held = np.flatnonzero(count > 0)
    held_owner = group_owner[held]
    cut = np.flatnonzero(np.diff(held_owner, prepend=-1))
    low = round8(group_value[held[cut]])
    high = round8(group_value[held[np.append(cut[1:], held.size) - 1]])
    return twice, low == high, (low == 0.0) & (high == 0.0)


def _by_owner_and_value(owner: np.ndarray, values: np.ndarray) -> np.ndarray:
    """An order of entries by (owner, value), both ascending; entries of one owner and
    value in any order among themselves.

    One stable sort of the float key ``owner + value / 2``: entries that arrive grouped
    by owner (runs are sorted by example) make a key of a few long ascending stretches,
    which numpy's timsort merges in about linear time, several times faster than a sort
    of (owner, value) pairs. The key cannot tell apart values closer than its precision
    (about 2**-35 for 100,000 owners) nor order values outside [0, 1]; the order it gives
    is checked, and where it is not one by (owner, value) the exact `numpy.lexsort` is
    taken.

    Examples
    --------
    >>> import numpy as np
    >>> _by_owner_and_value(np.array([0, 0, 1, 0]), np.array([0.5, 0.2, 0.0, 0.0])).tolist()
    [3, 1, 0, 2]
    """
    owner = np.asarray(owner, dtype=np.int64)
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(owner + values * 0.5, kind="stable")
    o, v = owner[order], values[order]
    if ((o[1:] > o[:-1]) | ((o[1:] == o[:-1]) & (v[1:] >= v[:-1]))).all():
        return order
    return np.lexsort((values, owner))


def round8(values: np.ndarray) -> np.ndarray:
    """Python's ``round(x, 8)`` of every value, bit for bit.

    Python rounds the exact binary value of ``x`` to 8 decimals (half to even) and
    returns the double nearest that decimal ``n / 10**8``. Here ``y = x * 1e8`` is
    rounded once, so it lies within ``spacing(y)`` of ``x * 10**8``; where its
    fraction is farther than twice that from one half (and ``|y| < 2**52``, so the
    fraction is exact), ``rint(y)`` is that ``n``, and ``n / 1e8`` (both exact
    doubles, one correctly rounded division) is Python's result. The other values
    (near a half, huge or not finite) are rounded by Python.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([0.3333333333 + 0.3333333333, 2.675e-9, -1e-12, 0.123456785])
    >>> round8(x).tolist() == [round(v, 8) for v in x.tolist()]
    True
    """
    x = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        y = x * 1e8
        out = np.rint(y) / 1e8
        size = np.abs(y)
        sure = (np.abs(np.abs(y - np.trunc(y)) - 0.5) > 2 * np.spacing(size)) \
            & (size < 2.0 ** 52)
    for i in np.flatnonzero(~sure).tolist():
        out[i] = round(float(x[i]), 8)
    return out
