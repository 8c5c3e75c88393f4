"""Score inputs (SPEC section 9): both forms become runs of (score, length, label), validated.

Runs, never per-character arrays: a 10,000,000-character text with a handful of spans is
a handful of runs.
"""

import numpy as np
import pytest

from mycelium import SpanValidationError
from mycelium.core import pipeline
from mycelium.core.scores import score_input, score_runs, spans_at_threshold


def _runs(text, refs, **scores):
    prep = pipeline.prepare(refs, refs, text=text)
    si = score_input(prep.text_lengths, single=False, **scores)
    return si, score_runs(si, prep.text_lengths, prep.refs)


def _expand(runs):
    score = np.repeat(runs.score, runs.length)
    label = np.repeat(runs.positive, runs.length)
    return score.tolist(), label.tolist()


def test_soft_form_last_writer_wins():
    si, runs = _runs(["abcdefgh"], [[[2, 4]]],
                     soft_predictions=[[{"start": 1, "end": 5, "prob": 0.5},
                                        {"start": 3, "end": 6, "prob": 0.2}]])
    score, label = _expand(runs)
    assert score == [0, 0.5, 0.5, 0.2, 0.2, 0.2, 0, 0]
    assert label == [False, False, True, True, False, False, False, False]
    assert runs.max_score.tolist() == [0.5] and runs.gold.tolist() == [True]


def test_token_form_highest_score_and_zero_length_tokens_ignored():
    si, runs = _runs(["abcdef"], [[]], token_offsets=[[(0, 2), (1, 3), (3, 3), (4, 6)]],
                     token_scores=[[0.3, 0.7, 1.0, 0.1]])
    score, label = _expand(runs)
    assert score == [0.3, 0.7, 0.7, 0.0, 0.1, 0.1]
    assert runs.max_score.tolist() == [0.7]  # the zero-length token's 1.0 covers nothing
    assert runs.gold.tolist() == [False]


def test_ten_million_characters_are_a_handful_of_runs():
    n = 10_000_000
    si, runs = _runs(["x" * n], [[[100, 200], [5_000_000, 5_000_010]]],
                     soft_predictions=[[{"start": 150, "end": 9_000_000, "prob": 0.4},
                                        {"start": 0, "end": 10, "prob": 0.9}]])
    assert runs.length.size <= 10 and int(runs.length.sum()) == n
    spans = spans_at_threshold(si, np.array([n]), 0.3)
    assert list(zip(spans.starts.tolist(), spans.ends.tolist())) == [(0, 10), (150, 9_000_000)]


def test_token_spans_join_consecutive_tokens_across_gaps():
    si, _ = _runs(["ab cd ef gh"], [[]], token_offsets=[[(0, 2), (3, 5), (5, 5), (6, 8),
                                                          (9, 11)]],
                  token_scores=[[0.9, 0.6, 0.0, 0.7, 0.2]])
    spans = spans_at_threshold(si, np.array([11]), 0.5)
    assert list(zip(spans.starts.tolist(), spans.ends.tolist())) == [(0, 8)]


@pytest.mark.parametrize("scores, match", [
    ({"soft_predictions": [[{"start": 0, "end": 2, "prob": 1.5}]]},
     r"soft_predictions example 0, span 0: Expected a finite score in \[0, 1\], got 1.5"),
    ({"soft_predictions": [[{"start": 0, "end": 2, "prob": float("nan")}]]},
     r"soft_predictions example 0, span 0: Expected a finite score"),
    ({"token_offsets": [[(0, 1), (1, 9)]], "token_scores": [[0.1, 0.2]]},
     r"token_offsets example 0, token 1: Expected 0 <= start <= end <= len\(text\) = 4, "
     r"got \[1, 9\)"),
    ({"token_offsets": [[(0, 1), (1, 2)]], "token_scores": [[0.1]]},
     r"token_scores example 0: Expected one score per token \(2 tokens\), got 1 scores"),
    ({"token_offsets": [[(0, 1)]], "token_scores": [[float("inf")]]},
     r"token_scores example 0, token 0: Expected a finite score in \[0, 1\], got inf"),
])
def test_bad_scores_name_example_and_token(scores, match):
    with pytest.raises(SpanValidationError, match=match):
        _runs(["abcd"], [[]], **scores)


def test_one_form_only():
    with pytest.raises(ValueError, match="Expected one score form, got both"):
        _runs(["ab"], [[]], soft_predictions=[[]], token_offsets=[[]], token_scores=[[]])
    with pytest.raises(ValueError, match="Expected token_offsets and token_scores together"):
        _runs(["ab"], [[]], token_scores=[[]])


def test_bulk_and_per_token_paths_agree():
    # Integral floats take the per-token path; plain ints the bulk path.
    text, refs = ["abcdefgh"], [[[2, 5]]]
    a = _runs(text, refs, token_offsets=[[(0, 3), (3, 8)]], token_scores=[[0.4, 0.7]])[1]
    b = _runs(text, refs, token_offsets=[[(0.0, 3.0), (3, 8.0)]], token_scores=[[0.4, 0.7]])[1]
    assert _expand(a) == _expand(b)
    with pytest.raises(SpanValidationError, match="token 1: Expected integer offsets"):
        _runs(text, refs, token_offsets=[[(0, 3), (3, 7.5)]], token_scores=[[0.4, 0.7]])


@pytest.mark.parametrize("offsets, scores", [
    ([("0", "3")], [0.5]), (["03"], [0.5]), ([(0, 3)], ["0.5"]), ([(0, 3)], [None]),
])
def test_strings_never_pass_as_numbers(offsets, scores):
    with pytest.raises(SpanValidationError, match="token_(offsets|scores) example 0, token 0"):
        _runs(["abcd"], [[]], token_offsets=[offsets], token_scores=[scores])
