"""``token_level``: precision, recall and F1 of the hallucinated class over tokens (the token
level of LettuceDetect's evaluator). Tokens as items, pooled over the batch.

Needs token scores at a threshold (``token_offsets``, ``token_scores`` and ``threshold``
in `mycelium.evaluate`): the tokens given are the items — the answer's tokens, special
(zero-length) ones included, as LettuceDetect scores every token that has a label (its
context tokens and padding, labelled ``-100``, are not the answer's and are not given).

Statistics (per example, counts of tokens)
    ``tp``, ``fp``, ``fn``, ``tn``: gold label (the token overlaps a listed reference span,
    `mycelium.metrics.tokens`) against predicted label (its score passes the threshold).

Measures
    precision = Σtp / (Σtp + Σfp), recall = Σtp / (Σtp + Σfn), F1 from them with one
    rounding: the class-1 ("hallucinated") row of scikit-learn's
    ``precision_recall_fscore_support(labels=[0, 1], average=None)`` over every token of the
    batch, as LettuceDetect's ``evaluate_model`` (KRLabsOrg/LettuceDetect@102f7f2:
    lettucedetect/models/evaluator.py) reports it. Always pooled over the tokens of all
    examples, whatever ``average`` says (``meta["token_level_average"]``); undefined
    values take ``zero_division`` (scikit-learn's default there is 0.0, with a warning).
"""

from __future__ import annotations

import numpy as np

from .base import Metric, Workspace
from .response_level import ratios  # the same P / R of tp, fp, fn counts


def statistics(ws: Workspace, params) -> dict[str, np.ndarray]:
    tokens = ws.tokens
    if tokens is None:
        raise ValueError("Expected token scores at a threshold for token_level, got none; "
                         "fix by passing token_offsets=..., token_scores=... and "
                         "threshold=... (the tokens are its items).")
    return tokens.counts()


METRIC = Metric(
    name="token_level",
    statistics=("tp", "fp", "fn", "tn"),
    measures=("precision", "recall", "f1"),
    compute=statistics,
    ratios=ratios,
    summary="Token-level detection (tokens as items, pooled)",
    counts=("tp", "fp", "fn", "tn"),
)
