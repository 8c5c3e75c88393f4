"""``character`` with ``overlaps="pairwise"`` (LettuceDetect's arithmetic) against a slow,
obvious transcription: every listed pair of spans, duplicates and overlaps included, on
random overlapping spans, in held and in tiny blocks of pairs, and near 2**62."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from mycelium.metrics import _blocks

PAIRWISE = {"character": {"overlaps": "pairwise"}}

span = st.tuples(st.integers(0, 20), st.integers(0, 9)).map(lambda t: [t[0], t[0] + t[1]])
# Few distinct positions, so overlaps, nesting and exact duplicates are frequent.
side = st.lists(span, max_size=8)
batch = st.lists(st.tuples(side, side), min_size=1, max_size=6)


def slow(refs, preds):
    """(Σ|g|, Σ|p|, Σ_p Σ_g overlap) of one example, as LettuceDetect's loop adds them."""
    gold = sum(e - s for s, e in refs)
    pred = sum(e - s for s, e in preds)
    overlap = 0
    for ps, pe in preds:
        for gs, ge in refs:
            lo, hi = max(ps, gs), min(pe, ge)
            if hi > lo:
                overlap += hi - lo
    return gold, pred, overlap


def _stats(refs, preds):
    st_ = mycelium.statistics(refs, preds, metrics=["character"], params=PAIRWISE)["character"]
    return [tuple(int(st_[k][i]) for k in ("tp", "fp", "fn")) for i in range(len(refs))]


def _expected(examples):
    out = []
    for r, p in examples:
        gold, pred, overlap = slow(r, p)
        out.append((overlap, pred - overlap, gold - overlap))
    return out


@settings(max_examples=200, deadline=None)
@given(batch)
def test_pairwise_statistics_equal_the_slow_reference(examples):
    refs, preds = [r for r, _ in examples], [p for _, p in examples]
    assert _stats(refs, preds) == _expected(examples)


@settings(max_examples=100, deadline=None)
@given(batch, st.sampled_from([1, 2, 7]))
def test_pairwise_in_tiny_blocks_of_pairs_equals_held_pairs(examples, block):
    refs, preds = [r for r, _ in examples], [p for _, p in examples]
    saved = _blocks.MATERIALIZE, _blocks.BLOCK
    _blocks.MATERIALIZE, _blocks.BLOCK = 0, block  # every batch is read in blocks
    try:
        got = _stats(refs, preds)
    finally:
        _blocks.MATERIALIZE, _blocks.BLOCK = saved
    assert got == _expected(examples)


@settings(max_examples=150, deadline=None)
@given(batch)
def test_micro_and_macro_measures_equal_the_reference_ratios(examples):
    refs, preds = [r for r, _ in examples], [p for _, p in examples]
    sums = [sum(x) for x in zip(*(slow(r, p) for r, p in examples))]
    gold, pred, overlap = sums
    micro = mycelium.evaluate(refs, preds, metrics="character", average="micro",
                              params=PAIRWISE)["character"]
    assert micro["precision"] == (overlap / pred if pred else 0.0)
    assert micro["recall"] == (overlap / gold if gold else 0.0)
    want_f1 = Fraction(2 * overlap, pred + gold) if pred and gold and overlap else 0
    assert micro["f1"] == float(want_f1)
    macro = mycelium.evaluate(refs, preds, metrics="character", include_per_example=True,
                              params=PAIRWISE)
    for (r, p), row in zip(examples, macro["per_example"]):
        g, q, o = slow(r, p)
        assert row["character"]["precision"] == (o / q if q else 0.0)
        assert row["character"]["recall"] == (o / g if g else 0.0)


@settings(max_examples=60, deadline=None)
@given(batch, st.integers(2**40, 2**58))
def test_wide_spans_leave_int64_exactly(examples, scale):
    big = [([[s * scale, e * scale] for s, e in r], [[s * scale, e * scale] for s, e in p])
           for r, p in examples]
    refs, preds = [r for r, _ in big], [p for _, p in big]
    assert _stats(refs, preds) == _expected(big)


@settings(max_examples=100, deadline=None)
@given(batch, st.randoms(use_true_random=False))
def test_order_of_spans_and_disjoint_sides(examples, rnd: random.Random):
    """Spans in any order give the same counts; with pairwise disjoint sides the rule is
    the merged-mask rule."""
    refs, preds = [r for r, _ in examples], [p for _, p in examples]
    shuffled = [rnd.sample(x, len(x)) for x in refs], [rnd.sample(x, len(x)) for x in preds]
    assert _stats(*shuffled) == _stats(refs, preds)

    def disjoint(spans):
        out, end = [], -1
        for s, e in sorted(map(tuple, spans)):
            if s >= end and e > s:
                out.append([s, e])
                end = e
        return out
    dr, dp = [disjoint(r) for r in refs], [disjoint(p) for p in preds]
    merged = mycelium.statistics(dr, dp, metrics=["character"])["character"]
    assert _stats(dr, dp) == [tuple(int(merged[k][i]) for k in ("tp", "fp", "fn"))
                              for i in range(len(dr))]


def test_duplicate_reference_counts_twice():
    r = mycelium.evaluate([[4, 9], [4, 9]], [[4, 9]], metrics="character", params=PAIRWISE)
    assert r["character"] == {"precision": 2.0, "recall": 1.0, "f1": 4 / 3}
    assert r["meta"]["params"] == {"character": {"overlaps": "pairwise"}}
    assert "character.overlaps:pairwise" in r["meta"]["signature"]


def test_the_default_rule_stays_out_of_the_signature():
    r = mycelium.evaluate([[4, 9], [4, 9]], [[4, 9]], metrics="character")
    assert r["character"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    assert r["meta"]["params"] == {"character": {}}
    assert "overlaps" not in r["meta"]["signature"]
    parsed = mycelium.parse_signature(mycelium.evaluate(
        [[0, 3]], [[0, 3]], metrics="character", params=PAIRWISE)["meta"]["signature"])
    assert parsed["params"] == {"character": {"overlaps": "pairwise"}}


def test_unknown_rule_is_refused_by_name():
    with pytest.raises(ValueError, match=r"Expected an overlap rule 'merge' or 'pairwise', "
                                         r"got 'union', at "
                                         r"params\['character'\]\['overlaps'\]; fix by"):
        mycelium.evaluate([[0, 3]], [[0, 3]], metrics="character",
                          params={"character": {"overlaps": "union"}})
    with pytest.raises(ValueError, match="got 1"):
        mycelium.evaluate([[0, 3]], [[0, 3]], metrics="character",
                          params={"character": {"overlaps": 1}})


def test_statistics_are_int64_or_exact_python_ints():
    st_ = mycelium.statistics([[[0, 2**62], [0, 2**62]]], [[[0, 2**62], [0, 2**62]]],
                              metrics=["character"], params=PAIRWISE)["character"]
    assert int(st_["tp"][0]) == 4 * 2**62 and int(st_["fp"][0]) == -2 * 2**62
    assert np.asarray(st_["fp"]).dtype == object
