"""`canonicalize` against its definition in Python: zero-length spans dropped, each
example sorted by (start, end), duplicates collapsed and counted; with few unsorted
examples (sorted in place) and with many (the whole batch ordered at once)."""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mycelium.core import spans as spans_mod
from mycelium.core.spans import SpanBatch, canonicalize

span = st.tuples(st.integers(0, 12), st.integers(0, 5)).map(lambda t: (t[0], t[0] + t[1]))
sorted_example = st.lists(span, max_size=5).map(sorted)


def _batch(examples):
    counts = [len(x) for x in examples]
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    s = np.array([a for x in examples for a, _ in x], dtype=np.int64)
    e = np.array([b for x in examples for _, b in x], dtype=np.int64)
    return SpanBatch(offsets, s, e)


def _want(examples):
    spans, mult = [], []
    for x in examples:
        c = Counter((a, b) for a, b in x if a < b)
        keys = sorted(c)
        spans.append(keys)
        mult += [c[k] for k in keys]
    return spans, mult


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(sorted_example, st.lists(span, max_size=5)), max_size=12))
def test_canonical_batch_is_the_sorted_set_with_its_multiplicities(examples):
    got = canonicalize(_batch(examples))
    spans, mult = _want(examples)
    assert got.canonical
    assert got.to_lists() == spans
    assert got.offsets.dtype == got.starts.dtype == np.int64
    if got.multiplicity is None:
        assert all(m == 1 for m in mult)
    else:
        assert got.multiplicity.tolist() == mult


def test_many_unsorted_examples_take_the_whole_batch_order_and_few_sort_in_place(
        monkeypatch):
    sorted_sizes = []
    lex_order = spans_mod._lex_order
    monkeypatch.setattr(spans_mod, "_lex_order",
                        lambda ex, s, e: sorted_sizes.append(ex.size) or lex_order(ex, s, e))
    rng = np.random.default_rng(0)
    examples = [sorted((int(a), int(a + n)) for a, n in zip(rng.integers(0, 50, 4),
                                                            rng.integers(1, 9, 4)))
                for _ in range(200)]
    few = [list(x) for x in examples]
    few[7].reverse()  # one unsorted example of 200: sorted in place
    many = [list(reversed(x)) for x in examples]  # every one: the whole batch at once
    for case in (few, many):
        assert canonicalize(_batch(case)).to_lists() == _want(case)[0]
    assert sorted_sizes == [4, 800]  # one example's spans; then all of them


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(span, max_size=5), min_size=1, max_size=12),
       st.sampled_from([0, 20, 40, 50, 58]))
def test_the_whole_batch_order_with_long_offsets(examples, shift):
    # Offsets times 2**shift: (example, start, end) pack into one key up to some shift,
    # then no longer fit 62 bits and _lex_order takes its other ways.
    examples = [[(a << shift, b << shift) for a, b in x] for x in examples]
    many = [list(reversed(sorted(x))) for x in examples]
    got = canonicalize(_batch(many))
    spans, mult = _want(many)
    assert got.to_lists() == spans
    assert got.starts.dtype == got.ends.dtype == np.int64
    assert (got.multiplicity is None and all(m == 1 for m in mult)) or \
        got.multiplicity.tolist() == mult
