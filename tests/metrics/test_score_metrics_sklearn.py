"""char_auroc / char_ap / response_auroc equal scikit-learn on the expanded arrays, ties included.

scikit-learn is a test-only cross-check (the ``test`` extra); the tests skip without it.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mycelium.core import pipeline
from mycelium.core.score_metrics import score_values
from mycelium.core.scores import score_input, score_runs

skm = pytest.importorskip("sklearn.metrics", reason="scikit-learn (test extra) is not "
                          "installed: the cross-check against roc_auc_score needs it")

SCORES = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.5, 0.9, 1.0])  # many ties on purpose


@st.composite
def example(draw):
    n = draw(st.integers(0, 30))
    def span():
        s = draw(st.integers(0, n))
        return [s, draw(st.integers(s, n))]
    refs = [span() for _ in range(draw(st.integers(0, 3)))]
    if draw(st.booleans()):
        soft = [{"start": a, "end": b, "prob": draw(SCORES)}
                for a, b in (span() for _ in range(draw(st.integers(0, 4))))]
        return n, refs, {"soft": soft}
    toks = [span() for _ in range(draw(st.integers(0, 6)))]
    return n, refs, {"offsets": toks, "scores": [draw(SCORES) for _ in toks]}


def _arrays(n, refs, sc):
    label = np.zeros(n, dtype=bool)
    for a, b in refs:
        label[a:b] = True
    score = np.zeros(n)
    if "soft" in sc:
        for d in sc["soft"]:
            score[d["start"]:d["end"]] = d["prob"]
    else:
        for (a, b), p in zip(sc["offsets"], sc["scores"]):
            score[a:b] = np.maximum(score[a:b], p)
    return label, score


def _sk(fn, label, score, need_neg):
    if label.sum() == 0 or (need_neg and label.all()):
        return math.nan
    return float(fn(label, score))


def _same(a, b):
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-12


@settings(max_examples=200, deadline=None)
@given(st.lists(example(), min_size=1, max_size=5), st.booleans())
def test_equal_to_sklearn_on_expanded_arrays(batch, soft):
    # One score form per batch: convert the examples of the other form.
    text = ["x" * n for n, _, _ in batch]
    refs = [r for _, r, _ in batch]
    forms = []
    for n, r, sc in batch:
        if soft and "soft" not in sc:
            sc = {"soft": [{"start": a, "end": b, "prob": p}
                           for (a, b), p in zip(sc["offsets"], sc["scores"])]}
        if not soft and "soft" in sc:
            sc = {"offsets": [[d["start"], d["end"]] for d in sc["soft"]],
                  "scores": [d["prob"] for d in sc["soft"]]}
        forms.append(sc)
    kw = ({"soft_predictions": [f["soft"] for f in forms]} if soft else
          {"token_offsets": [f["offsets"] for f in forms],
           "token_scores": [f["scores"] for f in forms]})
    prep = pipeline.prepare(refs, refs, text=text)
    runs = score_runs(score_input(prep.text_lengths, single=False, **kw),
                      prep.text_lengths, prep.refs)
    arrays = [_arrays(n, r, f) for (n, r, _), f in zip(batch, forms)]
    per = [(_sk(skm.roc_auc_score, la, s, True), _sk(skm.average_precision_score, la, s,
                                                      False)) for la, s in arrays]
    label = np.concatenate([a[0] for a in arrays])
    score = np.concatenate([a[1] for a in arrays])
    micro = score_values(runs, ["char_auroc", "char_ap"], average="micro")
    macro = score_values(runs, ["char_auroc", "char_ap"], average="macro")
    assert _same(micro["char_auroc"][0, 0], _sk(skm.roc_auc_score, label, score, True))
    assert _same(micro["char_ap"][0, 0], _sk(skm.average_precision_score, label, score, False))
    for i, name in enumerate(["char_auroc", "char_ap"]):
        defined = [p[i] for p in per if not math.isnan(p[i])]
        expected = float(np.mean(defined)) if defined else math.nan
        assert _same(macro[name][0, 0], expected)
    gold = np.array([la.any() for la, _ in arrays])
    top = np.array([s.max() if s.size else 0.0 for _, s in arrays])
    r = score_values(runs, ["response_auroc"], average="macro")["response_auroc"][0, 0]
    expected = float(skm.roc_auc_score(gold, top)) if 0 < gold.sum() < gold.size else math.nan
    assert _same(r, expected)
