"""``deteval_1d``'s greedy passes on many mutually overlapping spans: the same statistics
as the literal transcription in ``tests/reference.py``, whichever way a block is decided
(vectorised rounds, span by span, held pairs or pairs read in blocks), and work that grows
with the overlapping pairs, not with pairs times claims.

Work is counted, not timed (benchmarks/bench_deteval.py times it): the total size of the
arrays the interval kernels (`count`, `group_sum`, `passes`) are handed during one call.
Before the passes read each pair a bounded number of times, a chain of spans that each
wait for the one before took one round, over every live pair, per claim (4,000 x 4,000
spans: 130 s).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from mycelium.metrics import _blocks
from mycelium.metrics import intervals as iv

import reference

span = st.tuples(st.integers(0, 30), st.integers(1, 25)).map(lambda t: [t[0], t[0] + t[1]])
example = st.tuples(st.lists(span, max_size=14), st.lists(span, max_size=14))
THRESHOLDS = st.sampled_from([(0.8, 0.4), (0.5, 0.2), (0.3, 0.3), (1.0, 0.1), (0.1, 1.0)])
MODES = st.sampled_from(["default", "in order", "rounds"])


def _statistics(refs, preds, *, mode="default", block=None, params=None):
    """``statistics`` with the pairs read in blocks of ``block`` (held when None) and each
    block decided as ``mode`` says: "rounds" only, "in order" (span by span after the
    first round) or the default mix."""
    saved = _blocks.MATERIALIZE, _blocks.BLOCK
    if block is not None:
        _blocks.MATERIALIZE, _blocks.BLOCK = 0, block
    if mode != "default":
        from mycelium.metrics import _claims

        ratio, _claims.PAIRS_PER_DECISION = (_claims.PAIRS_PER_DECISION,
                                             0 if mode == "in order" else 10**18)
    try:
        return mycelium.statistics(refs, preds, metrics="deteval_1d",
                                   params=params)["deteval_1d"]
    finally:
        _blocks.MATERIALIZE, _blocks.BLOCK = saved
        if mode != "default":
            _claims.PAIRS_PER_DECISION = ratio


def _per_example(got, k):
    return {name: int(v[k]) for name, v in got.items()}


def _params(tr, tp):
    return {"deteval_1d": {"recall_threshold": tr, "precision_threshold": tp}}


@settings(max_examples=200, deadline=None)
@given(st.lists(example, min_size=1, max_size=4), THRESHOLDS, MODES,
       st.sampled_from([None, 1, 7, 64]))
def test_every_way_of_deciding_equals_the_reference(examples, thresholds, mode, block):
    refs, preds = [r for r, _ in examples], [p for _, p in examples]
    params = _params(*thresholds)
    got = _statistics(refs, preds, mode=mode, block=block, params=params)
    for k, (r, p) in enumerate(examples):
        assert _per_example(got, k) == reference.deteval_1d_stats(r, p, params)


def _chain(n):
    """n x n mutually overlapping spans, each reference claiming a share of the
    predictions that the next one also wants: n / 5 claims in a chain."""
    return [[i, i + n] for i in range(n)], [[i, i + n] for i in range(n)]


def _merge_chain(n):
    """Short references under long predictions: no split candidate, so pass 3 decides."""
    return ([[2 * i, 2 * i + 10] for i in range(n)],
            [[5 * j, 5 * j + 120 + 3 * (j % 7)] for j in range(n)])


def _nested(n):
    return [[i, 3 * n - i] for i in range(n)], [[2 * i, 3 * n - i] for i in range(n)]


def _random_dense(n, seed=0):
    rng = np.random.default_rng(seed)
    side = lambda: [[int(s), int(s + w)] for s, w in  # noqa: E731
                    zip(rng.integers(0, n, n), rng.integers(n // 2, 2 * n, n))]
    return side(), side()


def _inside(n):
    """One-character predictions inside every long reference: every pair overlaps, and
    no span can claim (pass 2: a reference's overlaps add up to a tenth of it; pass 3: no
    reference is short enough to be a one-character prediction's candidate)."""
    return [[i, i + 10 * n] for i in range(n)], [[5 * n + i, 5 * n + i + 1] for i in range(n)]


CASES = {"chain": _chain, "merge chain": _merge_chain, "nested": _nested,
         "random dense": _random_dense, "inside": _inside}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("thresholds", [(0.8, 0.4), (0.5, 0.5), (0.2, 0.9)])
def test_dense_cases_equal_the_reference_held_and_in_blocks(name, thresholds):
    refs, preds = CASES[name](120)
    params = _params(*thresholds)
    want = reference.deteval_1d_stats(refs, preds, params)
    for mode in ("default", "in order", "rounds"):
        for block in (None, 500):
            got = _statistics([refs], [preds], mode=mode, block=block, params=params)
            assert _per_example(got, 0) == want, (mode, block)


def test_the_chain_makes_many_claims():
    """The case the work test measures is a real chain: 60 split claims in a row."""
    refs, preds = _chain(300)
    got = _per_example(_statistics([refs], [preds]), 0)
    assert got == {"n_ref": 300, "n_pred": 300, "n_one_to_one": 1, "n_split_refs": 60,
                   "n_split_preds": 299, "n_merge_refs": 0, "n_merge_preds": 0}


class _Work:
    """Counts the values the interval kernels are handed."""

    def __init__(self, monkeypatch):
        self.values = 0
        for name in ("count", "group_sum", "passes"):
            monkeypatch.setattr(iv, name, self._counted(getattr(iv, name)))

    def _counted(self, fn):
        def counted(first, *args, **kwargs):
            self.values += int(np.asarray(first).size)
            return fn(first, *args, **kwargs)
        return counted


def _values_per_pair(monkeypatch, name, n, block):
    refs, preds = CASES[name](n)
    work = _Work(monkeypatch)
    _statistics([refs], [preds], block=block)
    return work.values / (_n_pairs(refs, preds) + len(refs) + len(preds))


@pytest.mark.parametrize("name", ["chain", "merge chain"])
@pytest.mark.parametrize("block", [None, 5000])
def test_work_grows_with_the_pairs_not_with_the_claims(monkeypatch, name, block):
    """300 x 300 spans (up to 90,000 pairs): at most 12 values per pair (or span), and
    no more per pair at 600 x 600. One round per claim handed the kernels 26 to 47
    values per pair at 300 x 300, and twice as many at 600 x 600."""
    small = _values_per_pair(monkeypatch, name, 300, block)
    assert small <= 12
    assert _values_per_pair(monkeypatch, name, 600, block) <= max(1.25 * small, 1.0)


def _n_pairs(refs, preds) -> int:
    r = np.array(sorted(set(map(tuple, refs))))
    p = np.array(sorted(set(map(tuple, preds))))
    return int(((r[:, None, 0] < p[None, :, 1]) & (p[None, :, 0] < r[:, None, 1])).sum())


def test_spans_that_cannot_claim_read_none_of_their_pairs(monkeypatch):
    """300 x 300 spans, 90,000 overlapping pairs read in blocks, none of which can make a
    match: the per-span bounds decide every span, and the kernels are handed a few
    values per span, not per pair (before the bounds: every pair, twice)."""
    refs, preds = _inside(300)
    work = _Work(monkeypatch)
    got = _per_example(_statistics([refs], [preds], block=5000), 0)
    assert _n_pairs(refs, preds) == 90_000
    assert work.values <= 10 * (len(refs) + len(preds))
    assert got == reference.deteval_1d_stats(refs, preds, _params(0.8, 0.4))
    assert got == {"n_ref": 300, "n_pred": 300, "n_one_to_one": 0, "n_split_refs": 0,
                   "n_split_preds": 0, "n_merge_refs": 0, "n_merge_preds": 0}
