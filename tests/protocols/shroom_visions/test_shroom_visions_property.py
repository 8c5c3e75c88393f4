"""The vectorised typed soft-label scorer against a slow, obvious per-character
reference (SPEC section 10.1, written out loop by loop; Spearman from scipy)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings, strategies as st
from scipy.stats import spearmanr

from mycelium.metrics.typed_soft import typed_soft_scores

PROBS = [0.0, 1e-9, 0.1, 0.2, 0.3, 0.25, 0.5, 0.3333333333, 0.6666666667, 1.0]


def slow_cor(n, gold, pred, label=None):
    a, b = [0.0] * n, [0.0] * n
    for s, e, p, lab in gold:
        if label is None or lab == label:
            for i in range(s, e):
                a[i] += p  # gold spans add
    for s, e, p, lab in pred:
        if label is None or lab == label:
            for i in range(s, e):
                b[i] = p  # predicted spans overwrite
    ra, rb = {round(x, 8) for x in a}, {round(x, 8) for x in b}
    if len(ra) == 1 or len(rb) == 1:
        if len(ra) != len(rb):
            return 0.0
        return float(rb == {0.0}) if ra == {0.0} else float(rb != {0.0})
    if n == 0:
        return math.nan
    return float(spearmanr(a, b).correlation)


def slow_iou(gold, pred):
    g = {i for s, e, _, _ in gold for i in range(s, e)}
    p = {i for s, e, _, _ in pred for i in range(s, e)}
    return 1.0 if not g and not p else len(g & p) / len(g | p)


def slow_cor_lbl(n, gold, pred):
    labels = sorted({x[3] for x in gold + pred})
    if not labels:
        return 1.0
    return sum(slow_cor(n, gold, pred, lab) for lab in labels) / len(labels)


@st.composite
def items(draw):
    n = draw(st.integers(0, 25))
    def spans():
        out = []
        for _ in range(draw(st.integers(0, 5))):
            s = draw(st.integers(0, n))
            e = draw(st.integers(max(s - 2, 0), n))
            out.append((s, e, draw(st.sampled_from(PROBS)), draw(st.integers(0, 2))))
        return out
    return n, spans(), spans()


def _flat(sides):
    offsets = np.concatenate(([0], np.cumsum([len(x) for x in sides])))
    cols = list(zip(*[sp for side in sides for sp in side])) or [(), (), (), ()]
    return (offsets,) + tuple(np.array(c) for c in cols)


@settings(max_examples=300, deadline=None)
@given(st.lists(items(), min_size=1, max_size=8))
def test_equals_the_slow_reference(batch):
    lengths = np.array([n for n, _, _ in batch])
    got = typed_soft_scores(lengths, _flat([g for _, g, _ in batch]),
                            _flat([p for _, _, p in batch]), 3)
    for k, (n, gold, pred) in enumerate(batch):
        want = slow_cor(n, gold, pred)
        assert (math.isnan(want) and math.isnan(got.cor[k])) or got.cor[k] == want
        assert got.iou[k] == slow_iou(gold, pred)
        lbl = slow_cor_lbl(n, gold, pred)
        assert (math.isnan(lbl) and math.isnan(got.cor_lbl[k])) or got.cor_lbl[k] == lbl


@settings(max_examples=100, deadline=None)
@given(st.lists(items(), min_size=2, max_size=8))
def test_split_invariance(batch):
    def run(part):
        return typed_soft_scores(np.array([n for n, _, _ in part]),
                                 _flat([g for _, g, _ in part]),
                                 _flat([p for _, _, p in part]), 3)
    whole = run(batch)
    half = len(batch) // 2
    a, b = run(batch[:half]), run(batch[half:])
    np.testing.assert_array_equal(whole.cor, np.concatenate([a.cor, b.cor]))
    np.testing.assert_array_equal(whole.cor_lbl, np.concatenate([a.cor_lbl, b.cor_lbl]))
    np.testing.assert_array_equal(whole.iou, np.concatenate([a.iou, b.iou]))


def test_gold_labels_outside_the_five_stay_distinct():
    # The kit takes the union of label strings (scorer.py 82-86): two gold labels outside
    # the five are two labels, scored as any two distinct labels are.
    from mycelium.protocols.shroom_visions import score_records

    def gold(a, b):
        return [{"id": "x", "response": "abcdefghij", "labels": [
            {"start": 0, "end": 4, "prob": 1.0, "label": a},
            {"start": 2, "end": 8, "prob": 0.5, "label": b}]}]

    pred = [{"id": "x", "labels": [{"start": 1, "end": 5, "prob": 0.7, "label": "OCR"}]}]
    odd = score_records(gold("zeta", "alpha"), pred)
    known = score_records(gold("invention", "other"), pred)
    assert odd.cor_lbl.tolist() == known.cor_lbl.tolist()
    assert odd.label_names[5:] == ("zeta", "alpha")
