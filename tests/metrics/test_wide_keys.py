"""Long offsets (keys past 2**63): order keys, canonical order and exact sums decided by
cheap bounds, group by group, against Python integers and the slow pair kernels."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from mycelium.core import spans as spans_mod
from mycelium.metrics import intervals as iv

from _slow_kernels import canonical, cleval, deteval

INT64_MAX = 2**63 - 1
# Offsets that mix short ranges with ones near 2**62 (some groups need ranks).
offset = st.one_of(st.integers(0, 50), st.integers(2**61, INT64_MAX),
                   st.integers(0, 3).map(lambda k: k * 2**61))


@st.composite
def keyed(draw):
    n_groups = draw(st.integers(1, 6))
    arrays = []
    for _ in range(draw(st.integers(1, 4))):
        n = draw(st.integers(0, 10))
        g = draw(st.lists(st.integers(0, n_groups - 1), min_size=n, max_size=n))
        if draw(st.booleans()):
            g = sorted(g)
        v = draw(st.lists(offset, min_size=n, max_size=n))
        arrays.append((np.array(g, dtype=np.int64), np.array(v, dtype=np.int64)))
        if draw(st.booleans()):  # a second array sharing the same group array
            v2 = draw(st.lists(offset, min_size=n, max_size=n))
            arrays.append((arrays[-1][0], np.array(v2, dtype=np.int64)))
    return n_groups, arrays


@settings(max_examples=300, deadline=None)
@given(keyed())
def test_order_keys_sort_like_group_value_pairs(case):
    n_groups, arrays = case
    keys = iv.order_keys([g for g, _ in arrays], [v for _, v in arrays], n_groups)
    pairs = [(g, v) for ga, va in arrays for g, v in zip(ga.tolist(), va.tolist())]
    flat = [int(k) for ka in keys for k in ka.tolist()]
    for (a, ka) in zip(pairs, flat):
        for (b, kb) in zip(pairs, flat):
            assert (a < b) == (ka < kb) and (a == b) == (ka == kb)


@st.composite
def span_pairs(draw):
    """(starts, ends) pairs per side, as a canonical batch has them; sometimes broken (an
    unsorted start, an end before its start) so the checked fallback is exercised too."""
    n_groups = draw(st.integers(1, 6))
    groups, values = [], []
    for _ in range(draw(st.integers(1, 2))):
        n = draw(st.integers(0, 10))
        g = np.array(sorted(draw(st.lists(st.integers(0, n_groups - 1), min_size=n,
                                          max_size=n))), dtype=np.int64)
        s = np.array(draw(st.lists(offset, min_size=n, max_size=n)), dtype=np.int64)
        order = np.lexsort((s, g)) if draw(st.booleans()) else np.arange(n)
        s = s[order]
        length = np.array(draw(st.lists(st.one_of(st.integers(0, 50), offset), min_size=n,
                                        max_size=n)), dtype=np.int64)
        e = np.minimum(s, INT64_MAX - length) + length
        if n and draw(st.booleans()):
            e[draw(st.integers(0, n - 1))] = draw(offset)  # maybe before its start
        groups += [g, g]
        values += [s, e]
    return n_groups, groups, values


@settings(max_examples=300, deadline=None)
@given(span_pairs())
def test_order_keys_of_span_pairs_equal_the_general_keys(case):
    """``spans=True`` takes one reduction per pair when its checks hold, and gives the
    very keys of the general path (same extremes), broken pairs included."""
    n_groups, groups, values = case
    keys = iv.order_keys(groups, values, n_groups, spans=True)
    want = iv.order_keys(groups, values, n_groups)
    assert [k.tolist() for k in keys] == [k.tolist() for k in want]
    pairs = [(g, v) for ga, va in zip(groups, values) for g, v in zip(ga.tolist(), va.tolist())]
    flat = [int(k) for ka in keys for k in ka.tolist()]
    for (a, ka) in zip(pairs, flat):
        for (b, kb) in zip(pairs, flat):
            assert (a < b) == (ka < kb) and (a == b) == (ka == kb)


def test_order_keys_of_long_offsets_stack_group_ranges_without_a_sort(monkeypatch):
    """10,000 groups of offsets near 10^13: the ranges stack in int64, no lexsort."""
    rng = np.random.default_rng(0)
    n = 10_000
    g = np.repeat(np.arange(n, dtype=np.int64), 3)
    base = rng.integers(0, 2**60, n).repeat(3)
    s = base + rng.integers(0, 10**13, g.size)
    e = s + rng.integers(1, 10**12, g.size)
    monkeypatch.setattr(iv.np, "lexsort", None)  # a call would raise TypeError
    ks, ke = iv.order_keys([g, g], [s, e], n)
    order = np.argsort(ks, kind="stable")
    assert (g[order] == np.sort(g)).all()
    assert ((ke - ks) == (e - s)).all()  # within a group keys keep the offsets' distances


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), offset, st.integers(0, 3)), min_size=1,
                max_size=25))
def test_canonical_order_of_long_offsets_equals_lexsort(rows):
    rows.sort(key=lambda r: r[0])
    ex = np.array([r[0] for r in rows], dtype=np.int64) + 5
    s = np.array([r[1] for r in rows], dtype=np.int64)
    e = np.array([min(r[1] + r[2] * 2**60, INT64_MAX) for r in rows], dtype=np.int64)
    assert spans_mod._lex_order(ex, s, e).tolist() == np.lexsort((e, s, ex)).tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1200), st.integers(0, 2**58), st.integers(0, 3)),
                min_size=1, max_size=40), st.sampled_from([2**44, 2**56, 2**58]))
def test_canonical_order_in_runs_of_examples_equals_lexsort(rows, top):
    """Starts of 45-59 bits leave 17-3 bits for the example: runs of examples are packed
    one by one (from one to hundreds of runs, then the range keys), ties by the end."""
    rows.sort(key=lambda r: r[0])
    ex = np.array([r[0] for r in rows], dtype=np.int64)
    s = np.array([r[1] % top for r in rows], dtype=np.int64)
    s[0] = top - 1  # the largest start sets the bits
    e = s + np.array([r[2] for r in rows], dtype=np.int64) * (top // 4)
    assert spans_mod._lex_order(ex, s, e).tolist() == np.lexsort((e, s, ex)).tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.one_of(st.integers(0, 2**40), st.integers(0, 2**62)),
                         max_size=6), min_size=1, max_size=6))
def test_group_and_segment_sums_of_long_lengths_are_exact(segments):
    counts = np.array([len(x) for x in segments], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    values = np.array([v for x in segments for v in x], dtype=np.int64)
    want = [sum(x) for x in segments]
    groups = np.repeat(np.arange(len(segments), dtype=np.int64), counts)
    assert iv.segment_sum(values, offsets).tolist() == want
    assert iv.group_sum(groups, values, len(segments)).tolist() == want


def _masks(refs, preds):
    """|∪G|, |∪P|, |∪G ∩ ∪P| of one example with Python integers (merged intervals)."""
    def merged(spans):
        out = []
        for s, e in canonical(spans):
            if out and s <= out[-1][1]:
                out[-1][1] = max(out[-1][1], e)
            else:
                out.append([s, e])
        return out
    g, p = merged(refs), merged(preds)
    inter = sum(max(0, min(ge, pe) - max(gs, ps)) for gs, ge in g for ps, pe in p)
    return sum(e - s for s, e in g), sum(e - s for s, e in p), inter


span = st.tuples(st.integers(0, 14), st.integers(1, 10)).map(lambda t: [t[0], t[0] + t[1]])
shuffled = st.lists(st.tuples(st.lists(span, max_size=6), st.lists(span, max_size=6)),
                    min_size=1, max_size=8)


@settings(max_examples=80, deadline=None)
@given(shuffled, st.sampled_from([1, 10**12 // 24, 2**40 + 1, 2**58]))
def test_six_metrics_of_long_spans_equal_python_integers(examples, scale):
    """Examples far apart (every example's offsets also moved by ~2**61/8 each): the
    keys take the stacked-range path, and at 2**58 some groups take ranks."""
    big = []
    for k, (r, p) in enumerate(examples):
        shift = k * (2**61 // 8) if scale > 1 else 0
        big.append(([[shift + s * scale, shift + e * scale] for s, e in r],
                    [[shift + s * scale, shift + e * scale] for s, e in p]))
    refs, preds = [r for r, _ in big], [p for _, p in big]
    got = mycelium.statistics(refs, preds, metrics=["iou", "character", "deteval_1d",
                                                    "cleval_1d"])
    for k, (r, p) in enumerate(big):
        g, q, inter = _masks(r, p)
        assert int(got["iou"]["inter"][k]) == inter
        assert int(got["iou"]["union"][k]) == g + q - inter
        assert (int(got["character"]["tp"][k]), int(got["character"]["fp"][k]),
                int(got["character"]["fn"][k])) == (inter, q - inter, g - inter)
        want = deteval(r, p)
        assert {key: int(got["deteval_1d"][key][k]) for key in want} == want
        want = cleval(r, p)
        assert {key: int(got["cleval_1d"][key][k]) for key in want} == want


@pytest.mark.parametrize("thresholds", [(0.8, 0.4), (0.5, 0.5), (0.3, 0.9)])
def test_deteval_rounds_on_chains_equal_the_slow_kernel(thresholds):
    """Chains of splits competing for the same predictions take many rounds; the rounds
    run on the spans with candidates only and must match the sequential passes."""
    tr, tp = thresholds
    rng = np.random.default_rng(7)
    examples = []
    for _ in range(300):
        starts = np.sort(rng.integers(0, 40, rng.integers(0, 9)))
        refs = [[int(s), int(s + rng.integers(1, 12))] for s in starts]
        starts = np.sort(rng.integers(0, 40, rng.integers(0, 9)))
        preds = [[int(s), int(s + rng.integers(1, 8))] for s in starts]
        examples.append((refs, preds))
    got = mycelium.statistics([r for r, _ in examples], [p for _, p in examples],
                              metrics="deteval_1d",
                              params={"deteval_1d": {"recall_threshold": tr,
                                                     "precision_threshold": tp}})
    for k, (r, p) in enumerate(examples):
        want = deteval(r, p, tr, tp)
        assert {key: int(got["deteval_1d"][key][k]) for key in want} == want


def test_cleval_pieces_of_long_offsets_take_the_packed_key(monkeypatch):
    """Short references far along (offsets near 2**61, so pieces keyed by their offsets
    would not pack): CLEval keys each reference's pieces from its own start, so they
    need no per-group ranges, and the counts are those of the slow kernel."""
    examples = [([[0, 10], [12, 20]], [[2, 5], [4, 15], [16, 30]]),
                ([[3, 9]], [[0, 4], [5, 8], [8, 12]])] * 3
    shift = 2**61
    big = [([[shift + s, shift + e] for s, e in r], [[shift + s, shift + e] for s, e in p])
           for r, p in examples]
    ranges = iv._ranges
    calls = []
    monkeypatch.setattr(iv, "_ranges", lambda *a: calls.append(len(a[1])) or ranges(*a))
    got = mycelium.statistics([r for r, _ in big], [p for _, p in big], metrics="cleval_1d")
    assert 2 not in calls  # the pieces' (start, end) keys: no per-group ranges
    for k, (r, p) in enumerate(big):
        want = cleval(r, p)
        assert {key: int(got["cleval_1d"][key][k]) for key in want} == want
