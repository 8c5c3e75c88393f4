"""Tokens in text order are read as points (`mycelium.core.token_points`): the score
metrics then equal, bit for bit, those of the pieces cut at every boundary
(`mycelium.core.scores._cut_runs`), with and without bootstrap weights, macro and micro,
per group; tokens out of order, overlapping tokens and the soft form keep the cut path."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _score_data import in_order_tokens
from mycelium.core import pipeline
from mycelium.core.score_metrics import score_values
from mycelium.core.scores import ScoreRuns, _cut_runs, score_input, score_runs
from mycelium.core.token_points import token_points

NAMES = ["char_auroc", "char_ap", "response_auroc"]


def batches():
    """Texts with in-order tokens (gaps, adjacent tokens, tokens across reference edges),
    overlapping or adjacent reference spans, and scores with ties."""
    return in_order_tokens(examples=7, length=30, refs=4, gap=3, size=6,
                           scores=(0.0, 0.25, 0.5, 0.5, 1.0))


def _both(text, refs, offs, scores):
    lengths = np.array([len(t) for t in text], dtype=np.int64)
    si = score_input(lengths, single=False, token_offsets=offs, token_scores=scores)
    refs_b = pipeline.prepare(refs, refs, text=text).refs
    base = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    points = token_points(si, lengths, refs_b, base)
    assert points is not None  # tokens in order: the fast case applies
    return ScoreRuns(si.n, *points), _cut_runs(si, refs_b, base)


@settings(max_examples=300, deadline=None)
@given(batches(), st.sampled_from(["macro", "micro"]), st.integers(0, 2**31))
def test_points_give_the_values_of_the_cut_pieces(batch, average, seed):
    points, cut = _both(*batch)
    n = points.n
    groups = np.random.default_rng(seed).integers(0, 3, size=n)
    w = np.random.default_rng(seed + 1).poisson(1.0, size=(4, n)).astype(np.float64)
    for kw in ({}, {"weights": w}, {"groups": groups, "n_groups": 3},
               {"groups": groups, "n_groups": 3, "weights": w}):
        a = score_values(points, NAMES, average=average, **kw)
        b = score_values(cut, NAMES, average=average, **kw)
        for m in NAMES:
            assert a[m].tobytes() == b[m].tobytes(), (m, kw.keys())
    assert points.max_score.tobytes() == cut.max_score.tobytes()
    assert points.gold.tolist() == cut.gold.tolist()
    # the same characters: totals per example, score and label
    for r in (points, cut):
        assert (r.length > 0).all()
    key = lambda r: sorted(zip(r.example.tolist(), r.score.tolist(), r.positive.tolist()))
    assert {k for k in key(points)} == {k for k in key(cut)}


def test_out_of_order_overlapping_and_soft_keep_the_cut_path():
    lengths = np.array([10], dtype=np.int64)
    base = np.array([0, 10], dtype=np.int64)
    refs = pipeline.prepare([[[2, 6]]], [[[2, 6]]], text=["x" * 10]).refs
    for offs in ([[(5, 8), (0, 3)]], [[(0, 5), (3, 8)]]):
        si = score_input(lengths, single=False, token_offsets=offs, token_scores=[[0.1, 0.9]])
        assert token_points(si, lengths, refs, base) is None
    si = score_input(lengths, single=False,
                     soft_predictions=[[{"start": 0, "end": 4, "prob": 0.5}]])
    assert token_points(si, lengths, refs, base) is None


def test_a_token_across_a_reference_edge_is_split_into_two_points():
    text, refs = ["abcdefghij"], [[[3, 6]]]
    lengths = np.array([10], dtype=np.int64)
    si = score_input(lengths, single=False, token_offsets=[[(0, 4), (4, 10)]],
                     token_scores=[[0.75, 0.25]])
    runs = score_runs(si, lengths, pipeline.prepare(refs, refs, text=text).refs)
    got = sorted(zip(runs.score.tolist(), runs.positive.tolist(), runs.length.tolist()))
    # (0, 4) holds 1 positive (3) and 3 negatives; (4, 10) 2 positives (4, 5) and 4 negatives
    assert got == [(0.25, False, 4), (0.25, True, 2), (0.75, False, 3), (0.75, True, 1)]
    assert runs.max_score.tolist() == [0.75] and runs.gold.tolist() == [True]
    auroc = score_values(runs, ["char_auroc"], average="micro")["char_auroc"][0, 0]
    # positives scored 0.75 x1, 0.25 x2; negatives 0.75 x3, 0.25 x4:
    # 3 x 7 pairs: 1*4 won, 1*3 + 2*4 tied (half each), the rest lost
    assert auroc == pytest.approx((4 + 11 / 2) / 21, abs=1e-15)


def test_a_token_over_two_reference_spans_counts_both():
    text, refs = ["abcdefghijkl"], [[[2, 4], [6, 9]]]
    lengths = np.array([12], dtype=np.int64)
    si = score_input(lengths, single=False, token_offsets=[[(0, 10), (10, 12)]],
                     token_scores=[[0.5, 0.125]])
    runs = score_runs(si, lengths, pipeline.prepare(refs, refs, text=text).refs)
    got = sorted(zip(runs.score.tolist(), runs.positive.tolist(), runs.length.tolist()))
    assert got == [(0.125, False, 2), (0.5, False, 5), (0.5, True, 5)]
