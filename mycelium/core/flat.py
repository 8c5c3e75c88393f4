"""Nested Python lists read in one flat pass, vouched for or refused (never guessed).

The input conversions (`mycelium.core.inputs` for span lists, `mycelium.core.token_input`
for token offsets and scores) first try these readers: each level of nesting is flattened
with `itertools.chain`, its types are checked as a set, and the values are read by
`numpy.fromiter` in one pass; the counts per example come from ``map(len, ...)``. When a
reader cannot vouch for every value (a bool, a string, a None, a pair of three, a
non-integral offset, ...) it returns None and the caller's checked path finds and names
the first bad value, so the fast path never changes a result or a message.
"""

from __future__ import annotations

from collections.abc import Mapping, Set as AbstractSet
from itertools import chain

import numpy as np

__all__ = ["flat_pairs", "flat_numbers", "set_in_spans", "numpy_bool_in"]

_SEQ = {list, tuple}
_INTS = {int}
#: Offsets of the token form may be numpy integers or integral floats (SPEC section 9).
_NUMBERS = {int, float, np.float64, np.float32, np.int64, np.int32}
_NUMBER_INTS = {int, np.int64, np.int32}


def _counts(rows) -> np.ndarray | None:
    if not isinstance(rows, (list, tuple)) or not set(map(type, rows)) <= _SEQ:
        return None
    return np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))


def flat_pairs(rows, *, numbers: bool = False):
    """``(counts, pairs)`` of a list of lists of ``[start, end]`` pairs: counts per row
    (int64) and every pair as an int64 ``(m, 2)`` array, in order; None when the reader
    cannot vouch for the values.

    ``numbers=False`` (span lists) takes plain Python ints only; ``numbers=True`` (token
    offsets) also numpy integers, integral floats and numpy pairs, read exactly.
    """
    counts = _counts(rows)
    if counts is None:
        return None
    pairs = list(chain.from_iterable(rows))
    if not pairs:
        return counts, np.empty((0, 2), dtype=np.int64)
    pair_types = _SEQ | {np.ndarray} if numbers else _SEQ
    if not set(map(type, pairs)) <= pair_types or set(map(len, pairs)) != {2}:
        return None
    values = list(chain.from_iterable(pairs))  # one list: read twice, faster than twice a chain
    types = set(map(type, values))
    try:
        if types <= (_NUMBER_INTS if numbers else _INTS):  # integers read exactly
            return counts, np.fromiter(values, np.int64, 2 * len(pairs)).reshape(-1, 2)
        if not numbers or not types <= _NUMBERS:
            return None
        # float64 holds every offset of a real text exactly; non-integral values refuse.
        flat = np.fromiter(values, np.float64, 2 * len(pairs))
    except OverflowError:
        return None
    if not (np.isfinite(flat).all() and (flat == np.trunc(flat)).all()
            and np.abs(flat).max() < 2**53):
        return None
    return counts, flat.astype(np.int64).reshape(-1, 2)


def flat_numbers(rows):
    """``(counts, values)`` of a list of lists of numbers (ints, floats, numpy ints and
    floats; never bools) as float64, in order; None when the reader cannot vouch."""
    counts = _counts(rows)
    if counts is None:
        return None
    if not set(map(type, chain.from_iterable(rows))) <= _NUMBERS:
        return None
    try:
        values = np.fromiter(chain.from_iterable(rows), np.float64, int(counts.sum()))
    except OverflowError:
        return None
    return counts, values


# Arrow's converter, which the span lists take first, reads a set as a list (its items in
# hash order) and a numpy bool among integers as 0 or 1; SPEC section 2 refuses both, so
# these tell the caller to let its checked path name them.

def set_in_spans(examples, *, sequences: bool = False) -> bool:
    """Whether a span of ``examples`` (a list of span lists) is a set or frozenset (one
    pass over the span types). ``sequences``: every example is known to be a collection
    of spans (Arrow read each as a list, none as a null), so the examples' own types
    need no pass first."""
    if not isinstance(examples, (list, tuple)):
        return False
    rows = examples if sequences or set(map(type, examples)) <= _SEQ else [
        e for e in examples if isinstance(e, (list, tuple))]
    return any(issubclass(t, AbstractSet) for t in set(map(type, chain.from_iterable(rows))))


def numpy_bool_in(examples, offsets: np.ndarray, starts: np.ndarray, ends: np.ndarray
                  ) -> bool:
    """Whether a span read as ``starts``/``ends`` (per example ``offsets``) was written
    with a ``numpy.bool_`` or a Python bool: only the spans with an offset of 0 or 1 are
    looked at (what a bool becomes)."""
    suspects = np.flatnonzero(((starts >= 0) & (starts <= 1)) | ((ends >= 0) & (ends <= 1)))
    if not suspects.size:
        return False
    examples_of = np.searchsorted(offsets, suspects, side="right") - 1
    for i, k in zip(suspects.tolist(), examples_of.tolist()):
        span = examples[k][i - int(offsets[k])]
        values = (span.get("start"), span.get("end")) if isinstance(span, Mapping) else span
        if any(isinstance(v, (bool, np.bool_)) for v in values):
            return True
    return False
