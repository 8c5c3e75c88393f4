"""The merge-based interval kernels against what they stand in for: binary searches
(`merged_ranks`, `count_below`), ``np.maximum.accumulate`` (`running_max`), ``reduceat``
(integer segment sums) and merged masks built interval by interval (`added_lengths`,
`Workspace.mask_sizes`), on linear keys and on keys with ranked groups."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from mycelium.core.pipeline import prepare
from mycelium.metrics import intervals as iv
from mycelium.metrics.base import Workspace

INT64_MAX = 2**63 - 1
value = st.one_of(st.integers(0, 30), st.integers(-(2**62), 2**62))
sorted_values = st.lists(value, max_size=40).map(lambda v: np.array(sorted(v), dtype=np.int64))
values = st.lists(value, max_size=40).map(lambda v: np.array(v, dtype=np.int64))


@settings(max_examples=300, deadline=None)
@given(sorted_values, sorted_values)
def test_merged_ranks_are_the_two_binary_searches(a, b):
    below, at_most = iv.merged_ranks(a, b)
    assert below.tolist() == np.searchsorted(b, a, side="left").tolist()
    assert at_most.tolist() == np.searchsorted(a, b, side="right").tolist()
    assert below.dtype == at_most.dtype == np.int64


@settings(max_examples=300, deadline=None)
@given(sorted_values, values)
def test_count_below_is_the_left_binary_search_for_values_in_any_order(keys, v):
    got = iv.count_below(keys, v)
    assert got.tolist() == np.searchsorted(keys, v, side="left").tolist()
    assert got.dtype == np.int64


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-(2**63), INT64_MAX), max_size=30))
def test_running_extremes_equal_the_accumulated_maximum_and_minimum(v):
    a = np.array(v, dtype=np.int64)
    assert iv.running_max(a).tolist() == np.maximum.accumulate(a).tolist()
    assert iv.running_min(a).tolist() == np.minimum.accumulate(a).tolist()
    f = np.array([1.0, np.nan, 0.5, 3.0])  # floats keep NaN's propagation
    assert np.isnan(iv.running_max(f)[1:]).all()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(-(2**62), 2**62), max_size=5), min_size=1, max_size=8))
def test_integer_segment_sums_by_running_sums_wrap_to_the_exact_value(segments):
    """Running int64 sums may pass 2**63 on the way; each segment's difference is its
    exact sum (Python integers), object only where a sum itself leaves int64."""
    counts = np.array([len(x) for x in segments], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    flat = np.array([v for x in segments for v in x], dtype=np.int64)
    assert [int(x) for x in iv.segment_sum(flat, offsets)] == [sum(x) for x in segments]


def _added(spans):
    """What each span adds to the union of the spans before it (Python integers)."""
    seen: list[tuple[int, int]] = []
    out = []
    for s, e in spans:
        new = set(range(s, e))  # small offsets only
        for a, b in seen:
            new -= set(range(a, b))
        out.append(len(new))
        seen.append((s, e))
    return out


group_spans = st.lists(st.lists(st.tuples(st.integers(0, 20), st.integers(1, 8)),
                                max_size=6), min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(group_spans, st.booleans())
def test_added_lengths_count_each_character_once_on_linear_and_ranked_keys(groups, ranked):
    ex, s, e = [], [], []
    for g, spans in enumerate(groups):
        for a, n in sorted(spans):
            ex.append(g)
            s.append(a)
            e.append(a + n)
    ex_, s_, e_ = (np.array(x, dtype=np.int64) for x in (ex, s, e))
    if ranked:  # dense ranks: the order of the values, not their differences
        both = np.concatenate([s_, e_])
        rank = {v: k for k, v in enumerate(sorted(set(both.tolist())))}
        ks = ex_ * 1000 + np.array([rank[v] for v in s], dtype=np.int64)
        ke = ex_ * 1000 + np.array([rank[v] for v in e], dtype=np.int64)
        got = iv.added_lengths(ks, ke, (s_, e_))
    else:
        got = iv.added_lengths(ex_ * 1000 + s_, ex_ * 1000 + e_)
    want = []
    for g, spans in enumerate(groups):
        want += _added([(a, a + n) for a, n in sorted(spans)])
    assert got.tolist() == want


def _mask_sizes(refs, preds):
    def mask(spans):
        return {c for s, e in spans for c in range(s, e)}
    out = []
    for r, p in zip(refs, preds):
        g, q = mask(r), mask(p)
        out.append((len(g), len(q), len(g & q)))
    return out


batch = st.lists(st.tuples(st.lists(st.tuples(st.integers(0, 25), st.integers(0, 7)),
                                    max_size=6),
                           st.lists(st.tuples(st.integers(0, 25), st.integers(0, 7)),
                                    max_size=6)), min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(batch, st.sampled_from([1, 2**55]))
def test_mask_sizes_equal_character_sets(examples, scale):
    """Overlapping, touching, nested and empty spans; at ``2**55`` apart the examples'
    keys take ranks (not linear), and the masks are read off the values."""
    import warnings

    refs = [[[s, s + n] for s, n in r] for r, _ in examples]
    preds = [[[s, s + n] for s, n in p] for _, p in examples]
    big_r = [[[a * scale, b * scale] for a, b in r] for r in refs]
    big_p = [[[a * scale, b * scale] for a, b in p] for p in preds]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mycelium.EmptySpanWarning)
        prepared = prepare(big_r, big_p)
    ws = Workspace(prepared.refs, prepared.preds)
    want = _mask_sizes(refs, preds)
    got = list(zip(*(np.asarray(x).tolist() for x in ws.mask_sizes)))
    assert [(g // scale, q // scale, i // scale) for g, q, i in got] == want
    assert all(g % scale == q % scale == i % scale == 0 for g, q, i in got)


def test_spans_near_the_end_of_int64_take_ranked_keys_and_keep_exact_masks():
    top = INT64_MAX - 10
    refs = [[[0, 5], [3, 9], [top - 6, top]], [[2**62, 2**62 + 4]]]
    preds = [[[4, 7], [top - 8, top - 2]], [[2**62 + 1, 2**62 + 9]]]
    prepared = prepare(refs, preds)
    ws = Workspace(prepared.refs, prepared.preds)
    assert ws._keys[1] is False  # this batch's keys are not linear
    g, q, inter = (np.asarray(x).tolist() for x in ws.mask_sizes)
    assert g == [9 + 6, 4] and q == [3 + 6, 8]
    assert inter == [3 + 4, 3]
