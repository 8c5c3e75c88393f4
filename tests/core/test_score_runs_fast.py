"""The linear paths of the score metrics give exactly what the general paths give.

Tokens in order without overlap (a tokenizer's output) take a merge instead of a sort
(`mycelium.core.scores._boundaries`); the positive pieces and their examples come from
difference arrays over the pieces; grouped rankings are radix-sorted by group
(`mycelium.metrics.ranking._by_group`). Each is checked against the general
computation and against the per-character expansion, so the values stay bit-identical.
"""

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from _score_data import in_order_tokens
from mycelium.core import pipeline
from mycelium.core.score_metrics import score_values
from mycelium.core.scores import _boundaries, _cut_runs, score_input, score_runs
from mycelium.metrics.ranking import rank


def tokenized():
    """A batch of texts with tokens in order (gaps allowed), scores with ties, refs."""
    return in_order_tokens(examples=6, length=25, refs=3, gap=2, size=4,
                           scores=(0.0, 0.2, 0.5, 0.5, 1.0))


def _expanded(text, refs, offs, scores):
    label = [np.zeros(len(t), bool) for t in text]
    score = [np.zeros(len(t)) for t in text]
    for k in range(len(text)):
        for a, b in refs[k]:
            label[k][a:b] = True
        for (a, b), p in zip(offs[k], scores[k]):
            score[k][a:b] = np.maximum(score[k][a:b], p)
    return label, score


def _runs(text, refs, offs, scores):
    lengths = np.array([len(t) for t in text], dtype=np.int64)
    si = score_input(lengths, single=False, token_offsets=offs, token_scores=scores)
    prepared = pipeline.prepare(refs, refs, text=text)
    return si, lengths, prepared, score_runs(si, lengths, prepared.refs)


@settings(max_examples=300, deadline=None)
@given(tokenized())
def test_merged_boundaries_equal_the_sorted_ones(batch):
    si, lengths, prepared, _ = _runs(*batch)
    base = np.concatenate([[0], np.cumsum(lengths)])
    gs, ge = base[si.example] + si.starts, base[si.example] + si.ends
    rs = base[prepared.refs.example_ids] + prepared.refs.starts
    re_ = base[prepared.refs.example_ids] + prepared.refs.ends
    bp, i0, i1 = _boundaries(base, gs, ge, rs, re_)
    want = np.unique(np.concatenate([base, gs, ge, rs, re_]))
    assert bp.tolist() == want.tolist()
    assert i0.tolist() == np.searchsorted(want, gs).tolist()
    assert i1.tolist() == np.searchsorted(want, ge).tolist()


@settings(max_examples=300, deadline=None)
@given(tokenized())
def test_cut_pieces_tile_the_per_character_arrays(batch):
    # The general path cuts each text into pieces in text order (`score_pieces` relies on
    # it); the runs of in-order tokens hold the same characters, grouped by score and label.
    text = batch[0]
    si, lengths, prepared, runs = _runs(*batch)
    base = np.concatenate([[0], np.cumsum(lengths)])
    cut = _cut_runs(si, prepared.refs, base)
    label, score = _expanded(*batch)
    for k in range(len(text)):
        mine = cut.example == k
        assert np.repeat(cut.score[mine], cut.length[mine]).tolist() == score[k].tolist()
        assert np.repeat(cut.positive[mine], cut.length[mine]).tolist() == \
            label[k].tolist()
        want = Counter(zip(score[k].tolist(), label[k].tolist()))
        for r in (cut, runs):
            got: Counter = Counter()
            for sc, pos, n in zip(r.score[r.example == k].tolist(),
                                  r.positive[r.example == k].tolist(),
                                  r.length[r.example == k].tolist()):
                got[(sc, pos)] += n
            assert got == want
            assert r.gold[k] == bool(label[k].any())
            assert r.max_score[k] == (score[k].max() if len(text[k]) else 0.0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 0.1, 0.5, 1.0]), st.integers(0, 5)),
                max_size=60), st.sampled_from([6, 70_000, 5_000_000_000]))
def test_grouped_ranking_equals_lexsort(points, spread):
    score = np.array([p[0] for p in points], dtype=np.float64)
    group = np.array([p[1] for p in points], dtype=np.int64) * (spread // 6)
    r = rank(score, group, int(group.max(initial=0)) + 1)
    want = np.lexsort((-score, group))
    assert score[r.order].tolist() == score[want].tolist()
    assert group[r.order].tolist() == group[want].tolist()


def test_values_of_in_order_tokens_equal_the_general_path():
    # The same pieces reached by the general path (one token out of order per example
    # forces the sort) give bit-identical AUROC and AP, macro and micro.
    rng = np.random.default_rng(5)
    text, refs, offs, scores = [], [], [], []
    for _ in range(200):
        length = int(rng.integers(5, 80))
        text.append("x" * length)
        a = int(rng.integers(0, length))
        refs.append([[a, min(length, a + int(rng.integers(1, 20)))]])
        cuts = np.unique(rng.integers(0, length + 1, size=12))
        offs.append([[int(x), int(y)] for x, y in zip(cuts[:-1], cuts[1:])])
        scores.append(np.round(rng.random(len(offs[-1])), 2).tolist())
    swapped = [o[::-1] for o in offs]
    swapped_scores = [s[::-1] for s in scores]
    for average in ("macro", "micro"):
        a = score_values(_runs(text, refs, offs, scores)[3], ["char_auroc", "char_ap"],
                         average=average)
        b = score_values(_runs(text, refs, swapped, swapped_scores)[3],
                         ["char_auroc", "char_ap"], average=average)
        for m in a:
            assert a[m].tobytes() == b[m].tobytes(), (average, m)


@settings(max_examples=150, deadline=None)
@given(tokenized(), st.sampled_from(["macro", "micro"]))
def test_in_order_tokens_equal_sklearn(batch, average):
    import math

    import pytest

    skm = pytest.importorskip("sklearn.metrics")
    _, _, _, runs = _runs(*batch)
    got = score_values(runs, ["char_auroc", "char_ap"], average=average)
    label, score = _expanded(*batch)
    if average == "micro":
        pairs = [(np.concatenate(label), np.concatenate(score))]
    else:
        pairs = list(zip(label, score))
    auc = [float(skm.roc_auc_score(a, b)) for a, b in pairs if 0 < a.sum() < a.size]
    ap = [float(skm.average_precision_score(a, b)) for a, b in pairs if a.any()]
    for name, want in (("char_auroc", auc), ("char_ap", ap)):
        value = float(got[name][0, 0])
        if not want:
            assert math.isnan(value)
        else:
            assert abs(value - float(np.mean(want))) <= 1e-12, (name, value, want)
