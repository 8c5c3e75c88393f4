"""Pair kernels (DetEval, CLEval) against slow per-pair transcriptions: held pairs, pairs
read in tiny blocks, and spans far beyond int64 sums."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from mycelium.metrics import _blocks

from _slow_kernels import cleval, deteval

SIX = ["exact_span", "iou", "character", "deteval_1d", "cleval_1d", "span_coverage"]

span = st.tuples(st.integers(0, 14), st.integers(1, 10)).map(lambda t: [t[0], t[0] + t[1]])
crowded = st.lists(st.lists(span, max_size=7).flatmap(
    lambda r: st.tuples(st.just(r), st.lists(span, max_size=7))), min_size=1, max_size=5)


def _blocked(refs, preds, block, metrics=SIX, params=None):
    saved = _blocks.MATERIALIZE, _blocks.BLOCK
    _blocks.MATERIALIZE, _blocks.BLOCK = 0, block  # every batch is dense
    try:
        return mycelium.statistics(refs, preds, metrics=metrics, params=params)
    finally:
        _blocks.MATERIALIZE, _blocks.BLOCK = saved


def _assert_same(a, b):
    assert a.keys() == b.keys()
    for m in a:
        for k in a[m]:
            assert np.asarray(a[m][k]).tolist() == np.asarray(b[m][k]).tolist(), (m, k)


def _check_slow(got, examples, scale=1):
    for k, (r, p) in enumerate(examples):
        for name, slow in (("deteval_1d", deteval), ("cleval_1d", cleval)):
            want = slow(r, p)
            assert {key: int(got[name][key][k]) for key in want} == want, name


@settings(max_examples=150, deadline=None)
@given(crowded, st.sampled_from([1, 2, 5, 64]))
def test_blocked_pairs_equal_held_pairs_and_the_slow_kernels(examples, block):
    refs = [r for r, _ in examples]
    preds = [p for _, p in examples]
    held = mycelium.statistics(refs, preds, metrics=SIX)
    _assert_same(_blocked(refs, preds, block), held)
    _check_slow(held, examples)


@settings(max_examples=60, deadline=None)
@given(crowded, st.integers(2**40, 2**58), st.sampled_from([None, 3]))
def test_wide_spans_equal_the_slow_kernels(examples, scale, block):
    """Spans scaled to lengths near 2**62: sums of overlaps leave int64."""
    big = [([[s * scale, e * scale] for s, e in r], [[s * scale, e * scale] for s, e in p])
           for r, p in examples]
    refs = [r for r, _ in big]
    preds = [p for _, p in big]
    got = (mycelium.statistics(refs, preds, metrics=SIX) if block is None
           else _blocked(refs, preds, block))
    _check_slow(got, big)


def test_mutually_overlapping_spans_read_in_blocks():
    """400 x 400 mutually overlapping spans (160,000 pairs) in blocks of 5,000 pairs."""
    refs = [[[i, i + 1000] for i in range(400)]]
    preds = [[[i + 3, i + 900 + (i % 7)] for i in range(400)]]
    held = mycelium.statistics(refs, preds, metrics=SIX)
    _assert_same(_blocked(refs, preds, 5000), held)
    assert held["deteval_1d"]["n_split_refs"].tolist() == [1]
    assert held["deteval_1d"]["n_split_preds"].tolist() == [400]
    small = ([r[:40] for r in refs], [p[:40] for p in preds])
    _check_slow(mycelium.statistics(*small, metrics=SIX), [(small[0][0], small[1][0])])


wide_span = st.tuples(st.integers(0, 60), st.integers(1, 40)).map(lambda t: [t[0], t[0] + t[1]])
scattered = st.lists(st.tuples(st.lists(wide_span, max_size=12), st.lists(wide_span, max_size=12)),
                     min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(scattered, st.sampled_from([0.1, 0.25, 0.3, 0.5, 0.9, 1.0]),
       st.sampled_from([0.0, 0.5, 1.0, 2.0]), st.integers(0, 2**40))
def test_cleval_without_pairs_equals_the_pair_sweeps(examples, a, w, shift):
    """Dense batches take CLEval from prefix sums and pair ranges, never enumerating a pair:
    the same statistics, value for value and dtype for dtype, as the sweeps over blocks."""
    from mycelium.metrics import cleval_1d

    refs = [[[s + shift, e + shift] for s, e in r] for r, _ in examples]
    preds = [[[s + shift, e + shift] for s, e in p] for _, p in examples]
    params = {"cleval_1d": {"area_precision_threshold": a, "granularity_penalty_weight": w}}
    held = mycelium.statistics(refs, preds, metrics="cleval_1d", params=params)
    saved = cleval_1d._fits
    cleval_1d._fits = lambda ws: False  # the sweeps over blocks
    try:
        swept = _blocked(refs, preds, 7, "cleval_1d", params)
    finally:
        cleval_1d._fits = saved
    ranged = _blocked(refs, preds, 7, "cleval_1d", params)
    for got in (held, ranged):
        for k, v in swept["cleval_1d"].items():
            assert np.asarray(got["cleval_1d"][k]).dtype == np.asarray(v).dtype, k
            assert np.asarray(got["cleval_1d"][k]).tolist() == np.asarray(v).tolist(), k
