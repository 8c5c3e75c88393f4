"""Detector scores over characters: the two score forms, validated, as runs of equal score.

SPEC section 9. A batch's scores become `ScoreRuns`: per example, maximal pieces of the
text on which both the character score and the reference label are constant, each with
its length in characters. Nothing is ever expanded per character: every example's text
is laid end to end on one global axis (example k owns ``[base[k], base[k] + len(text_k))``),
the piece boundaries are the sorted distinct endpoints of the examples, the scored
intervals and the reference spans, and each scored interval is attributed to the pieces
between its endpoints. Cost is O((spans + tokens + pieces) log), whatever the text length.

Score forms
    ``soft``  ``[{start, end, prob}]`` per example: zeros overwritten span by span in
              list order (last writer wins, the official Mu-SHROOM rule).
    ``token`` ``token_offsets`` ``[(s, e)]`` + ``token_scores``: a character takes the
              highest score of the non-empty tokens covering it; zero-length tokens are
              ignored; uncovered characters score 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import SpanValidationError
from .spans import SpanBatch
from .token_input import arrow_column, token_arrays
from .token_points import token_points

__all__ = ["ScoreInput", "ScoreRuns", "score_input", "score_runs", "score_run_blocks",
           "reversed_runs",
           "concat_runs", "spans_at_threshold",
           "score_pieces", "SCORE_FORMS"]

SCORE_FORMS = ("soft", "token")


@dataclass(frozen=True, eq=False)
class ScoreInput:
    """Validated scored intervals of a batch, flat, in each example's list order.

    ``example``, ``starts``, ``ends`` (int64, local code-point offsets) and ``scores``
    (float64) hold every *non-empty* interval (soft span or token) of every example.
    ``blank`` holds the zero-length tokens of the token form as ``(example, position,
    score)`` arrays: no character takes their score and no span is built from them, but
    the token level (``token_level``) counts them as tokens.
    """

    form: str
    n: int
    example: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    scores: np.ndarray
    single: bool
    blank: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def take(self, rows: np.ndarray) -> "ScoreInput":
        """The examples ``rows`` (a boolean mask over examples), renumbered."""
        new = np.cumsum(rows) - 1
        keep = rows[self.example]
        blank = None
        if self.blank is not None:
            bx, bp, bs = self.blank
            k = rows[bx]
            blank = (new[bx[k]], bp[k], bs[k])
        return ScoreInput(self.form, int(rows.sum()), new[self.example[keep]],
                          self.starts[keep], self.ends[keep], self.scores[keep], False,
                          blank)


@dataclass(frozen=True, eq=False)
class ScoreRuns:
    """Pieces of constant score and label: the weighted points of the score metrics.

    ``example`` (int64), ``score`` (float64), ``length`` (int64 > 0) and ``positive``
    (bool: inside a reference span) per piece, in no guaranteed order (pieces of equal
    score and label may be grouped differently by the two ways of reading them); ``max_score`` (0.0 for an
    empty text) and ``gold`` (the example has a reference character) per example.
    """

    n: int
    example: np.ndarray
    score: np.ndarray
    length: np.ndarray
    positive: np.ndarray
    max_score: np.ndarray
    gold: np.ndarray

    @property
    def pos(self) -> np.ndarray:
        """Positive characters per piece."""
        return np.where(self.positive, self.length, 0)

    @property
    def neg(self) -> np.ndarray:
        """Negative characters per piece."""
        return np.where(self.positive, 0, self.length)


def _where(side: str, k: int, j: int | None = None) -> str:
    # Soft labels are spans (Mu-SHROOM's {start, end, prob}); the token form has tokens.
    item = "span" if side.startswith("soft") else "token"
    return f"{side} example {k}" + ("" if j is None else f", {item} {j}")


def _plain(v):
    """A numpy scalar as the Python value it holds, so messages show ``nan``, not
    ``np.float64(nan)``."""
    return v.item() if isinstance(v, np.generic) else v


def _bad(side, k, j, problem, fix) -> SpanValidationError:
    where = _where(side, k, j)
    return SpanValidationError(f"{where}: {problem}; fix by {fix}.", side=side, example=k,
                               span=j, problem=f"{problem}; fix by {fix}.")


def _check_score(side, k, j, p) -> float:
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, float, np.integer,
                                                              np.floating)):
        raise _bad(side, k, j, f"Expected a score in [0, 1], got {_plain(p)!r}",
                   "passing a finite number in [0, 1]")
    x = float(p)
    if not (math.isfinite(x) and 0.0 <= x <= 1.0):
        raise _bad(side, k, j, f"Expected a finite score in [0, 1], got {_plain(p)!r}",
                   "rescaling the detector's scores into [0, 1] (e.g. a sigmoid)")
    return x


def _check_offset(side, k, j, s, e, n) -> tuple[int, int]:
    for v in (s, e):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer, float,
                                                                  np.floating)) \
                or (isinstance(v, (float, np.floating)) and not float(v).is_integer()):
            raise _bad(side, k, j, "Expected integer offsets, got "
                       f"({_plain(s)!r}, {_plain(e)!r})",
                       "passing code-point offsets as integers")
    s, e = int(s), int(e)
    if not 0 <= s <= e <= n:
        raise _bad(side, k, j, f"Expected 0 <= start <= end <= len(text) = {n}, got "
                   f"[{s}, {e}), outside the text",
                   "passing offsets into this example's text (code points, not bytes)")
    return s, e


def _per_example(obj, name: str, single: bool, n: int) -> list:
    if single:
        obj = [obj]
    arr = arrow_column(obj)
    if arr is not None:
        obj = arr.to_pylist()
    elif hasattr(obj, "to_pylist"):
        obj = obj.to_pylist()
    elif hasattr(obj, "tolist") and not isinstance(obj, (list, tuple)):
        obj = obj.tolist()
    if isinstance(obj, (str, bytes, Mapping)) or not isinstance(obj, Sequence):
        raise TypeError(f"Expected {name} as one list per example, got "
                        f"{type(obj).__name__}; fix by passing a list of lists.")
    if len(obj) != n:
        raise ValueError(f"Expected {n} entries in {name} (one per example), got "
                         f"{len(obj)}; fix by passing one list per example.")
    return list(obj)


def _values(row, side: str, k: int, what: str) -> list:
    """One example's row as a list; a scalar row (a score where a list of them belongs)
    is told as such, not as a Python iteration error."""
    if isinstance(row, np.ndarray) and row.ndim:
        return row.tolist()
    try:
        return list(row)
    except TypeError:
        value = row.item() if isinstance(row, (np.generic, np.ndarray)) else row
        raise _bad(side, k, None, f"Expected a list of {what} for the example, got "
                   f"{type(row).__name__} {value!r}", f"passing one list of {what} per "
                   "example (a batch is a list of such lists)") from None


def score_input(lengths: np.ndarray, *, single: bool, soft_predictions=None,
                token_offsets=None, token_scores=None, token_overlap: str = "max"
                ) -> ScoreInput:
    """Validate one score form against the text lengths (SPEC section 9).

    ``token_overlap="last"`` (`mycelium.core.score_rules.TOKEN_OVERLAPS`) reads the
    tokens as soft spans: each token's value written over its characters in token order,
    the spans at a threshold being runs of positive characters.
    """
    si = _score_input(lengths, single, soft_predictions, token_offsets, token_scores)
    if token_overlap == "last" and si.form == "token":
        return ScoreInput("soft", si.n, si.example, si.starts, si.ends, si.scores,
                          si.single, si.blank)
    return si


def _score_input(lengths, single, soft_predictions, token_offsets, token_scores
                 ) -> ScoreInput:
    has_soft = soft_predictions is not None
    has_tok = token_offsets is not None or token_scores is not None
    if has_soft and has_tok:
        raise ValueError("Expected one score form, got both soft_predictions and token_"
                         "offsets/token_scores; fix by passing one of them.")
    if token_offsets is None and token_scores is not None or \
            token_scores is None and token_offsets is not None:
        raise ValueError("Expected token_offsets and token_scores together, got only "
                         + ("token_scores" if token_offsets is None else "token_offsets")
                         + "; fix by passing both (one score per token).")
    if not has_soft and not has_tok:
        raise ValueError("Expected scores, got none; fix by passing soft_predictions or "
                         "token_offsets with token_scores.")
    n = int(lengths.size)
    kept: list[tuple[int, int, int, float]] = []  # (example, start, end, score)
    blank: list[tuple[int, int, float]] = []  # zero-length tokens: (example, at, score)
    if has_soft:
        rows = _per_example(soft_predictions, "soft_predictions", single, n)
        for k, spans in enumerate(rows):
            if spans is None:
                raise _bad("soft_predictions", k, None, "Expected a list of {start, end, "
                           "prob}, got None", "passing [] for an example without scores")
            for j, span in enumerate(_values(spans, "soft_predictions", k,
                                             "{start, end, prob} dicts")):
                if not isinstance(span, Mapping) or not {"start", "end", "prob"} <= set(span):
                    raise _bad("soft_predictions", k, j, f"Expected {{start, end, prob}}, "
                               f"got {span!r}", "passing Mu-SHROOM soft_labels dicts")
                s, e = _check_offset("soft_predictions", k, j, span["start"], span["end"],
                                     int(lengths[k]))
                p = _check_score("soft_predictions", k, j, span["prob"])
                if e > s:
                    kept.append((k, s, e, p))
    else:
        fast = token_arrays(token_offsets, token_scores, lengths, single, blank=True)
        if fast is not None:
            f_ex, f_st, f_en, f_sc = fast
            keep = f_en > f_st
            zero = (f_ex[~keep], f_st[~keep], f_sc[~keep])
            if not keep.all():
                f_ex, f_st, f_en, f_sc = f_ex[keep], f_st[keep], f_en[keep], f_sc[keep]
            return ScoreInput("token", n, f_ex, f_st, f_en, f_sc, single, zero)
        # The checked path: every token in turn, the first bad one named.
        offs = _per_example(token_offsets, "token_offsets", single, n)
        scs = _per_example(token_scores, "token_scores", single, n)
        for k, (o, s_) in enumerate(zip(offs, scs)):
            if o is None or s_ is None:
                raise _bad("token_offsets", k, None, "Expected token offsets and scores, "
                           "got None", "passing [] for an example without tokens")
            # numpy rows as Python values: messages read as they do for lists.
            o = _values(o, "token_offsets", k, "(start, end) pairs")
            s_ = _values(s_, "token_scores", k, "token scores")
            if len(o) != len(s_):
                raise _bad("token_scores", k, None, f"Expected one score per token "
                           f"({len(o)} tokens), got {len(s_)} scores",
                           "passing token_scores aligned with token_offsets")
            for j, (pair, p) in enumerate(zip(o, s_)):
                if isinstance(pair, Mapping):
                    pair = (pair.get("start"), pair.get("end"))
                if not isinstance(pair, (Sequence, np.ndarray)) or len(pair) != 2:
                    raise _bad("token_offsets", k, j, f"Expected a (start, end) pair, got "
                               f"{pair!r}", "passing the tokenizer's offset mapping")
                s, e = _check_offset("token_offsets", k, j, pair[0], pair[1],
                                     int(lengths[k]))
                x = _check_score("token_scores", k, j, p)
                if e > s:
                    kept.append((k, s, e, x))
                else:
                    blank.append((k, s, x))
    cols = list(zip(*kept)) if kept else [(), (), (), ()]
    i64 = np.int64
    empty = list(zip(*blank)) if blank else [(), (), ()]
    blanks = None if has_soft else (np.array(empty[0], dtype=i64),
                                    np.array(empty[1], dtype=i64),
                                    np.array(empty[2], dtype=np.float64))
    return ScoreInput("soft" if has_soft else "token", n, np.array(cols[0], dtype=i64),
                      np.array(cols[1], dtype=i64), np.array(cols[2], dtype=i64),
                      np.array(cols[3], dtype=np.float64), single, blanks)


def _ragged(first: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(owner, value) of ``first[i] + 0..count[i]-1`` for every i, without a loop."""
    owner = np.repeat(np.arange(count.size), count)
    shift = first - (np.cumsum(count) - count)  # value minus position, per interval
    return owner, shift[owner] + np.arange(owner.size)


def _boundaries(base, gs, ge, rs, re_):
    """The sorted distinct piece boundaries ``bp`` and the positions in ``bp`` of the
    intervals' starts and ends. Tokens in order without overlap (a tokenizer's output)
    are already sorted on the global axis: their endpoints merge with the few other
    boundaries in one linear pass of a stable (run-detecting) sort, and their positions
    come from that permutation, with no binary search."""
    m = gs.size
    tok = np.empty(2 * m, dtype=np.int64)
    tok[0::2], tok[1::2] = gs, ge
    if m and (tok[1:] >= tok[:-1]).all():
        other = np.sort(np.concatenate([base, rs, re_]))
        # Merge: each other boundary goes before the token endpoints not below it.
        ins = np.searchsorted(tok, other)
        at_tok = np.arange(2 * m) + np.cumsum(np.bincount(ins, minlength=2 * m + 1))[:-1]
        merged = np.empty(2 * m + other.size, dtype=np.int64)
        merged[at_tok] = tok
        merged[ins + np.arange(other.size)] = other
        new = np.ones(merged.size, dtype=bool)
        new[1:] = merged[1:] != merged[:-1]
        where = (np.cumsum(new) - 1)[at_tok]
        return merged[new], where[0::2], where[1::2]
    bp = np.sort(np.concatenate([base, gs, ge, rs, re_]))
    bp = bp[np.concatenate([[True], bp[1:] != bp[:-1]])]
    return bp, np.searchsorted(bp, gs), np.searchsorted(bp, ge)


def score_runs(scores: ScoreInput, lengths: np.ndarray, refs: SpanBatch | None) -> ScoreRuns:
    """The pieces of constant score and label of every example (see the module docstring):
    read off the tokens when they are in text order without overlap
    (`mycelium.core.token_points`), cut at every boundary otherwise."""
    base = np.zeros(scores.n + 1, dtype=np.int64)
    np.cumsum(lengths, out=base[1:])
    points = token_points(scores, lengths, refs, base)
    return ScoreRuns(scores.n, *points) if points is not None else _cut_runs(scores, refs, base)


#: Scored intervals per block of `score_run_blocks`: arrays of about a million values stay
#: in cache, where the same numpy passes over ten million cost two to four times as much
#: per value.
BLOCK_POINTS = 1 << 20


def score_run_blocks(scores: ScoreInput, lengths: np.ndarray, refs: SpanBatch | None,
                     *, max_points: int | None = None) -> list[ScoreRuns]:
    """`score_runs` of consecutive blocks of whole examples, each of about ``max_points``
    (default `BLOCK_POINTS`) scored intervals: `mycelium.core.score_metrics.score_values`
    ranks block by block and merges the blocks' tie sums, which are the same integers as
    one ranking's."""
    max_points = BLOCK_POINTS if max_points is None else max_points
    ex = scores.example
    if ex.size <= max_points or (ex[1:] < ex[:-1]).any():
        return [score_runs(scores, lengths, refs)]
    per_example = np.cumsum(np.bincount(ex, minlength=scores.n))
    cuts = np.unique(np.searchsorted(per_example, np.arange(max_points, ex.size, max_points),
                                     side="left"))
    bounds = np.concatenate([[0], cuts[(cuts > 0) & (cuts < scores.n)], [scores.n]])
    out = []
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        lo, hi = int(per_example[a - 1]) if a else 0, int(per_example[b - 1])
        part = ScoreInput(scores.form, b - a, ex[lo:hi] - a, scores.starts[lo:hi],
                          scores.ends[lo:hi], scores.scores[lo:hi], False)
        out.append(score_runs(part, lengths[a:b], None if refs is None else refs.rows(a, b)))
    return out


def concat_runs(runs: list[ScoreRuns]) -> ScoreRuns:
    """The pieces of consecutive blocks of examples as one `ScoreRuns`, renumbered after
    one another."""
    if len(runs) == 1:
        return runs[0]
    first = np.cumsum([0] + [r.n for r in runs[:-1]])
    return ScoreRuns(int(sum(r.n for r in runs)),
                     np.concatenate([r.example + f for r, f in zip(runs, first)]),
                     *(np.concatenate([getattr(r, a) for r in runs])
                       for a in ("score", "length", "positive", "max_score", "gold")))


def _cut_runs(scores: ScoreInput, refs: SpanBatch | None, base: np.ndarray) -> ScoreRuns:
    """The pieces between the sorted distinct boundaries, in text order (a tiling)."""
    n = scores.n
    gs, ge = base[scores.example] + scores.starts, base[scores.example] + scores.ends
    if refs is not None and refs.n_spans:
        rs = base[refs.example_ids] + refs.starts
        re_ = base[refs.example_ids] + refs.ends
    else:
        rs = re_ = np.empty(0, dtype=np.int64)
    bp, i0, i1 = _boundaries(base, gs, ge, rs, re_)
    seg_start, seg_len = bp[:-1], np.diff(bp)
    # Attribute each interval to the pieces between its endpoints, then keep one writer
    # per piece: the last in list order (soft) or the highest score (token).
    owner, seg = _ragged(i0, i1 - i0)
    seg_score = np.zeros(seg_start.size, dtype=np.float64)
    if seg.size < 2 or (seg[1:] > seg[:-1]).all():
        # Each piece has one writer (tokens in order, no overlap).
        seg_score[seg] = scores.scores[owner]
    else:
        if scores.form == "soft":
            order = np.argsort(seg, kind="stable")  # owners already ascend within a piece
        else:
            order = np.lexsort((scores.scores[owner], seg))
        seg_sorted = seg[order]
        last = np.ones(seg_sorted.size, dtype=bool)
        last[:-1] = seg_sorted[1:] != seg_sorted[:-1]
        seg_score[seg_sorted[last]] = scores.scores[owner[order][last]]
    # Reference spans and example ends are piece boundaries: a piece is positive when
    # more spans have opened than closed before it (a difference array over the pieces),
    # and belongs to the example whose boundaries enclose it.
    k = seg_start.size
    if rs.size:
        depth = np.zeros(k + 1, dtype=np.int64)  # few spans: scattered, not counted
        np.add.at(depth, np.searchsorted(bp, rs), 1)
        np.add.at(depth, np.searchsorted(bp, re_), -1)
        positive = np.cumsum(depth[:k]) > 0
    else:
        positive = np.zeros(k, dtype=bool)
    example = np.repeat(np.arange(n, dtype=np.int64), np.diff(np.searchsorted(bp, base)))
    max_score = np.zeros(n, dtype=np.float64)
    if example.size:  # pieces are in example order: one reduceat, not ufunc.at
        first = np.flatnonzero(np.concatenate([[True], example[1:] != example[:-1]]))
        max_score[example[first]] = np.maximum.reduceat(seg_score, first)
    gold = np.zeros(n, dtype=bool)
    if refs is not None:
        gold[example[positive]] = True
    return ScoreRuns(n, example.astype(np.int64), seg_score, seg_len, positive,
                     max_score, gold)


def _reversed_run(scores: ScoreInput, hot, first, last, bad) -> SpanValidationError:
    """The first run of tokens whose last token ends before its first token starts."""
    r = int(np.flatnonzero(bad)[0])
    idx = np.flatnonzero(hot)
    i, j = int(idx[first[r]]), int(idx[last[r]])
    k = int(scores.example[i])
    run = (f"the run of consecutive tokens scoring past the threshold from "
           f"({int(scores.starts[i])}, {int(scores.ends[i])}) to ({int(scores.starts[j])}, "
           f"{int(scores.ends[j])}), which ends before it starts")
    return _bad("token_offsets", k, None, "Expected each run of tokens to span from its "
                f"first token's start to its last token's end, got {run}",
                "passing the tokens in text order (a tokenizer's offset mapping)")


def score_pieces(scores: ScoreInput, lengths: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The character scores of every example as pieces of constant score: ``(example,
    start, end, score)`` arrays in text order, local code-point offsets, tiling each
    text (uncovered characters score 0). Either form, by `score_runs`' rule."""
    base = np.zeros(scores.n + 1, dtype=np.int64)
    np.cumsum(lengths, out=base[1:])
    runs = _cut_runs(scores, None, base)  # the tiling, in text order
    ex, s = runs.example, np.concatenate([[0], np.cumsum(runs.length)])[:-1]
    starts = s - base[ex]
    return ex, starts, starts + runs.length, runs.score


def _token_runs(scores: ScoreInput, threshold: float, inclusive: bool):
    """Token form: the tokens passing ``threshold`` (``hot``), and each run of consecutive
    ones (list order) as (first and last position among them, example, start, end): the
    first token's start and the last token's end (SPEC section 9; for offsets in text
    order, the run's extent)."""
    hot = scores.scores >= threshold if inclusive else scores.scores > threshold
    ex, starts, ends = scores.example[hot], scores.starts[hot], scores.ends[hot]
    pos = np.flatnonzero(hot)
    new = np.ones(ex.size, dtype=bool)
    new[1:] = (ex[1:] != ex[:-1]) | (pos[1:] != pos[:-1] + 1)
    first = np.flatnonzero(new)
    last = np.append(first[1:], ex.size)[:first.size] - 1
    return hot, first, last, ex[first], starts[first], ends[last]


def reversed_runs(scores: ScoreInput, threshold: float, *, inclusive: bool = False
                  ) -> np.ndarray:
    """Per example, whether one of its runs of tokens at ``threshold`` ends before it
    starts (`spans_at_threshold` refuses those); all False for the soft form."""
    bad = np.zeros(scores.n, dtype=bool)
    if scores.form == "token":
        _, _, _, ex_r, st_r, en_r = _token_runs(scores, threshold, inclusive)
        bad[ex_r[en_r < st_r]] = True
    return bad


def spans_at_threshold(scores: ScoreInput, lengths: np.ndarray, threshold: float,
                       *, inclusive: bool = False) -> SpanBatch:
    """Predicted spans at ``threshold`` (strict ``> t``; ``>= t`` when ``inclusive``), as a
    canonical `SpanBatch`.

    Soft form: maximal runs of characters scoring > t. Token form: runs of consecutive
    non-empty tokens (list order) scoring > t, each from its first token's start to its
    last token's end (LettuceDetect's rule: gaps between positive tokens are inside),
    whatever order the offsets are in; a run whose last token ends before its first
    token starts has no such span and is an error.
    """
    if scores.form == "soft":
        ex, starts, ends, score = score_pieces(scores, lengths)
        hot = score >= threshold if inclusive else score > threshold
        ex, starts, ends = ex[hot], starts[hot], ends[hot]
        # Pieces of one example are contiguous; join those that touch.
        new = np.ones(ex.size, dtype=bool)
        new[1:] = (ex[1:] != ex[:-1]) | (starts[1:] != ends[:-1])
        first = np.flatnonzero(new)
        ex_r = ex[first]
        if ex.size == 0:
            st_r, en_r = starts, ends
        else:  # pieces in text order: the run's extent
            st_r = np.minimum.reduceat(starts, first)
            en_r = np.maximum.reduceat(ends, first)
    else:
        hot, first, last, ex_r, st_r, en_r = _token_runs(scores, threshold, inclusive)
        if (en_r < st_r).any():
            raise _reversed_run(scores, hot, first, last, en_r < st_r)
    order = np.lexsort((en_r, st_r, ex_r))
    ex_r, st_r, en_r = ex_r[order], st_r[order], en_r[order]
    offsets = np.zeros(scores.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(ex_r, minlength=scores.n), out=offsets[1:])
    return SpanBatch(offsets, st_r.astype(np.int64), en_r.astype(np.int64), False)
