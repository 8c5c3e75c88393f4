"""The weighted points of tokens in text order: `mycelium.core.scores.score_runs`' fast case.

A tokenizer's output is in text order and its tokens do not overlap, so every character
of a token takes that token's score and nothing needs merging: the points of the score
metrics can be read off the tokens directly instead of cutting the text into pieces at
every boundary (`mycelium.core.scores._boundaries`).

- Each token is one point of its score, positive or negative as a whole when it lies
  inside or outside the union of the reference spans; a token that straddles a reference
  boundary adds a second point of the same score for its other part.
- The characters no token covers score 0: per example, one positive and one negative
  point of score 0 (when non-empty).
- How many characters of a token are positive comes from the reference coverage on the
  global axis: the tokens overlapping a merged reference span are a range of the sorted
  tokens (two binary searches per span), so only the tokens that touch a reference are
  visited.

The points differ from the pieces of the general path only in how characters of equal
score and label are grouped, so every score metric gets the same tie blocks with the same
integer sums, and the same values bit for bit (`tests/core/test_token_points.py` compares
the two). Points are not in text order (a straddler's second point comes after every
token), which no consumer of the runs relies on; `score_pieces`, which needs the tiling,
takes the general path.
"""

from __future__ import annotations

import numpy as np

from ..metrics import intervals as iv
from .spans import SpanBatch

__all__ = ["token_points"]


def token_points(scores, lengths: np.ndarray, refs: SpanBatch | None, base: np.ndarray):
    """The fields of `mycelium.core.scores.ScoreRuns` after ``n`` (example, score, length,
    positive per point; max score and gold per example) for token-form scores whose tokens
    are in text order without overlap, or None when they are not (or the references are
    not canonical): the caller then cuts pieces. ``base``: each example's start on the
    global axis (``n + 1`` cumulative lengths).

    Only the tokens that touch a reference are visited past the first passes, and
    per-example sums are integer ``reduceat`` over each example's tokens, so a batch
    costs a few passes over its tokens."""
    if scores.form != "token" or (refs is not None and not refs.canonical):
        return None
    n, ex = scores.n, scores.example
    gs = base[ex]
    ge = gs + scores.ends
    gs += scores.starts
    m = gs.size
    if m > 1 and not (ge[:-1] <= gs[1:]).all():
        return None
    length = ge - gs  # every token is non-empty: no point is (only gaps can be empty)
    covered = np.zeros(n, dtype=np.int64)
    max_score = np.zeros(n, dtype=np.float64)
    if m:  # tokens are in example order: one reduceat per sum
        first = np.flatnonzero(np.concatenate([[True], ex[1:] != ex[:-1]]))
        covered[ex[first]] = np.add.reduceat(length, first)
        max_score[ex[first]] = np.maximum.reduceat(scores.scores, first)
    if refs is not None and refs.n_spans:
        tok, pos, ref_chars = _covered(gs, ge, refs, base, n)
    else:
        tok = pos = np.empty(0, dtype=np.int64)
        ref_chars = np.zeros(n, dtype=np.int64)
    # A touched token is positive for its ``pos`` characters; the rest of it (when any)
    # is a second, negative point of the same score.
    neg = length[tok] - pos
    mixed, mixed_neg = tok[neg > 0], neg[neg > 0]
    length[tok] = pos
    positive = np.zeros(m, dtype=bool)
    positive[tok] = True
    pos_ex = np.bincount(ex[tok], weights=pos, minlength=n).astype(np.int64)
    gap_pos = ref_chars - pos_ex
    gap_neg = lengths - covered - gap_pos
    gp, gn = np.flatnonzero(gap_pos), np.flatnonzero(gap_neg)
    example = np.concatenate([ex, ex[mixed], gp, gn])
    score = np.concatenate([scores.scores, scores.scores[mixed],
                            np.zeros(gp.size + gn.size)])
    length = np.concatenate([length, mixed_neg, gap_pos[gp], gap_neg[gn]])
    positive = np.concatenate([positive, np.zeros(mixed.size, dtype=bool),
                               np.ones(gp.size, dtype=bool), np.zeros(gn.size, dtype=bool)])
    return example, score, length, positive, max_score, ref_chars > 0


def _covered(gs, ge, refs: SpanBatch, base, n):
    """(the tokens that overlap a reference, ascending; their positive characters; the
    reference characters of each example)."""
    ref_ex = refs.example_ids
    rs, re_ = base[ref_ex] + refs.starts, base[ref_ex] + refs.ends
    # The union of each example's spans (sorted by start: canonical), as disjoint runs.
    reach = iv.running_max(re_)
    new = np.ones(rs.size, dtype=bool)
    new[1:] = (rs[1:] > reach[:-1]) | (ref_ex[1:] != ref_ex[:-1])
    first = np.flatnonzero(new)
    us, ue = rs[first], np.maximum.reduceat(re_, first)
    ref_chars = np.zeros(n, dtype=np.int64)
    np.add.at(ref_chars, ref_ex[first], ue - us)
    # The tokens overlapping each run are a range of the sorted tokens: two binary
    # searches per run, then only the overlapping (token, run) pairs are visited. The
    # runs are disjoint and sorted, so the pairs' tokens ascend (a token spanning a gap
    # between runs comes once per run, consecutively).
    lo = np.searchsorted(ge, us, side="right")
    count = np.maximum(np.searchsorted(gs, ue, side="left") - lo, 0)
    run = np.repeat(np.arange(us.size), count)
    tok = lo[run] + np.arange(run.size) - (np.cumsum(count) - count)[run]
    part = np.minimum(ge[tok], ue[run]) - np.maximum(gs[tok], us[run])
    if tok.size == 0:
        return tok, part, ref_chars
    once = np.flatnonzero(np.concatenate([[True], tok[1:] != tok[:-1]]))
    return tok[once], np.add.reduceat(part, once), ref_chars
