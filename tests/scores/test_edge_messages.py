"""Smaller edges of the score path: a threshold without scores says that (not "got
both"), and logits far apart (±1e308) give the scores the formula gives, not NaN."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import mycelium
from mycelium.scores.baselines import token_logit_scores


@pytest.mark.parametrize("predictions", [[[0, 3]], None])
def test_a_threshold_without_scores_asks_for_scores(predictions):
    args = ([[0, 3]],) if predictions is None else ([[0, 3]], predictions)
    with pytest.raises(ValueError) as info:
        mycelium.evaluate(*args, text="abcdef", threshold=0.5)
    message = str(info.value)
    assert message.startswith("Expected scores with threshold=, got none, at "
                              "threshold=0.5; fix by passing soft_predictions=... or "
                              "token_offsets=... with token_scores=...")
    assert "got both" not in message
    assert ("drop threshold=" in message) == (predictions is not None)


def test_predictions_with_scores_and_a_threshold_are_still_both():
    with pytest.raises(ValueError, match="Expected predictions or threshold, got both"):
        mycelium.evaluate([[0, 3]], [[0, 3]], text="abcdef", threshold=0.5,
                          token_offsets=[(0, 3)], token_scores=[0.9])


def _exact(logits):
    """``(max - l) / (max - min)`` in exact rational arithmetic (the float formula rounds
    the two differences and the quotient, so it agrees to within a few ulps)."""
    x = [Fraction(v) for v in logits]
    hi, lo = max(x), min(x)
    return [float((hi - v) / (hi - lo)) for v in x]


@pytest.mark.parametrize("logits", [
    [1e308, -1e308, 0.0],
    [1.7976931348623157e308, -1.7976931348623157e308, 5e307, -3.3e307],
    [1e308, -1e308, 1e-300, 2.5],
    [-1e308, -1.7e308, 9e307],
])
def test_logits_far_apart_score_as_the_formula_says(logits):
    record = {"id": "r", "model_output_text": " ".join("abcd"[:len(logits)]),
              "model_output_tokens": ["a", "Ġb", "Ġc", "Ġd"][:len(logits)],
              "model_output_logits": logits}
    scores = token_logit_scores(record)[1]
    assert np.isfinite(scores).all()
    assert scores.tolist() == pytest.approx(_exact(logits), rel=4e-16, abs=4e-16)
    assert min(scores) == 0.0 and max(scores) == 1.0
    # The same as the float formula on the logits halved (where it does not overflow).
    half = np.asarray(logits) / 2
    assert scores.tolist() == ((half.max() - half) / (half.max() - half.min())).tolist()


def test_ordinary_logits_keep_their_scores_bit_for_bit():
    rng = np.random.default_rng(0)
    logits = rng.normal(0, 30, 200).tolist()
    record = {"id": "r", "model_output_text": "x" * 200, "model_output_tokens": ["x"] * 200,
              "model_output_logits": logits}
    v = np.asarray(logits)
    assert token_logit_scores(record)[1].tolist() == \
        ((v.max() - v) / (v.max() - v.min())).tolist()
    assert not math.isnan(token_logit_scores(record)[1].sum())
