"""The values of a sweep at every cell — a group and one of its thresholds (`Grids`) —
each equal to `mycelium.evaluate` with ``threshold=t`` on that group's rows, bit for bit.

SPEC section 9. The spans of an example at t are decided by which of its scored intervals
pass t; over the sorted thresholds of its group an interval passes the first ``k`` of
them, its *level* (``> t``, or ``>= t`` under a profile's ``threshold_rule=">="``). So an
example's spans, and every statistic of it, are constant between consecutive distinct
levels of its intervals: its *segments*. Statistics are computed once per segment, not
once per threshold, and summed into the cells they cover through difference arrays of
exact integers (`mycelium.core.reduce`'s per-row columns: the statistics for micro,
integer limbs of the per-example values for macro), so a group's curve costs its
intervals, not its intervals times its thresholds.

The per-segment statistics of ``iou``, ``character`` and ``response_level`` come from one
pass over the scored runs (`mycelium.core.scores.score_runs` of the levels, in the token
form with each gap between consecutive tokens at the lower of their levels, so that the
characters passing t are exactly the spans at t); the other metrics, and tokens not in
text order, score the spans of every segment (`mycelium.core.scores.spans_at_threshold`
of the intervals that pass). In the soft form (and ``token_overlap="last"``) every
character starts at score 0 before the intervals overwrite it (the official rule): a
first interval ``[0, len)`` of score 0 stands for that, so a character no interval covers
passes t when 0 does; in the token form it never does (it is in no token).
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Callable, ContextManager

import numpy as np

from ..core.pipeline import compute_statistics
from ..core.progress import Bar
from ..core.groups import group_sums
from ..core.reduce import row_column_parts, values_from_sums
from ..core.score_metrics import pooled_values_of_sums
from ..core.scores import (ScoreInput, concat_runs, reversed_runs, score_run_blocks,
                           spans_at_threshold)
from ..core.score_rules import rules_of
from ..core.settings import Settings
from ..core.spans import SpanBatch, canonicalize
from ..metrics import METRICS, POOLED_METRICS, Workspace
from .grids import Grids

__all__ = ["curve_values"]

#: Metrics whose per-segment statistics come from the scored runs.
FAST = ("iou", "character", "response_level")
#: Scored intervals per batch of segments scored together (bounds the scratch memory).
_CHUNK = 1 << 20


def curve_values(si: ScoreInput, lengths: np.ndarray, refs: SpanBatch,
                 listed_refs: np.ndarray, codes: np.ndarray, grids: Grids,
                 names: list[str], settings: Settings, *,
                 listed_spans: SpanBatch | None = None,
                 progress: Callable[[int], ContextManager[Bar]] | None = None
                 ) -> dict[str, dict[str, np.ndarray]]:
    """``{metric: {measure: value per cell}}`` of the kept examples (``codes``: each one's
    group; ``refs`` canonical, ``listed_refs`` the number of reference spans each listed
    before zero-length ones and duplicates were dropped). ``listed_spans``, the reference
    spans as listed, asks for ``response_level`` with ``unit="tokens"`` (tokens as items,
    `_token_responses`). ``progress(steps)`` opens the bar that moves one step per
    segment re-scored and one per cell of the result. Scores pass a threshold as the
    settings' profile reads them (``> t``, or ``>= t``: `ScoreRules.inclusive`)."""
    inclusive = rules_of(settings.profile).inclusive
    if listed_spans is not None and "response_level" in names:
        rest = [m for m in names if m != "response_level"]
        values = curve_values(si, lengths, refs, listed_refs, codes, grids, rest or ["iou"],
                              settings, progress=progress)
        if not rest:
            values.pop("iou")
        values["response_level"] = _token_responses(si, listed_spans, codes, grids,
                                                     settings, inclusive=inclusive)
        return {m: values[m] for m in names}
    si = _with_background(_by_example(si), lengths)
    sizes = grids.sizes[codes]  # thresholds of each example's group
    level = _levels(si.scores, codes[si.example], grids, inclusive=inclusive)
    leveled = dataclasses.replace(si, scores=level.astype(np.float64))
    seg_ex, seg_lo, seg_hi = _segments(si.example, level, sizes)
    params = settings.params
    fast = [m for m in names if m in FAST and _fast_for(m, si, params)]
    slow = [m for m in names if m not in fast]
    n_cells = grids.values.size
    steps = (seg_ex.size if slow else 0) + n_cells
    with (progress(steps) if progress is not None else contextlib.nullcontext()) as bar:
        stats = _fast_statistics(leveled, lengths, refs, listed_refs, seg_ex, seg_lo, fast,
                                 params)
        if slow:
            slow_stats = _slow_statistics(leveled, lengths, refs, listed_refs, seg_ex,
                                          seg_lo, slow, params, bar)
            if isinstance(slow_stats, np.ndarray):  # segments with a reversed run
                cell = grids.offsets[codes[seg_ex[slow_stats]]] + seg_lo[slow_stats]
                lowest = float(grids.values[cell].min())
                spans_at_threshold(si, lengths, lowest, inclusive=inclusive)  # raises
                raise AssertionError("a reversed run at a threshold that has none")
            stats.update(slow_stats)
        first = grids.offsets[codes[seg_ex]]
        values = _cell_values(stats, first + seg_lo, first + seg_hi, n_cells, names,
                              settings)
        if bar is not None:
            bar.update(n_cells)
    return values


# ------------------------------------------------------------------ levels, segments

def _by_example(si: ScoreInput) -> ScoreInput:
    """The intervals grouped by example, each example's in list order."""
    ex = si.example
    if ex.size < 2 or (ex[1:] >= ex[:-1]).all():
        return si
    order = np.argsort(ex, kind="stable")
    return ScoreInput(si.form, si.n, ex[order], si.starts[order], si.ends[order],
                      si.scores[order], si.single)


def _with_background(si: ScoreInput, lengths: np.ndarray) -> ScoreInput:
    """Soft form: each example's own intervals after a first one, ``[0, len)`` of score 0."""
    if si.form != "soft":
        return si
    bg = np.flatnonzero(lengths > 0)
    example = np.concatenate([bg, si.example])
    own = np.concatenate([np.zeros(bg.size, bool), np.ones(si.example.size, bool)])
    order = np.lexsort((own, example))  # the background first, the rest in list order
    starts = np.concatenate([np.zeros(bg.size, np.int64), si.starts])[order]
    ends = np.concatenate([lengths[bg].astype(np.int64), si.ends])[order]
    scores = np.concatenate([np.zeros(bg.size), si.scores])[order]
    return ScoreInput("soft", si.n, example[order], starts, ends, scores, si.single)


def _levels(scores: np.ndarray, group: np.ndarray, grids: Grids, *, inclusive: bool
            ) -> np.ndarray:
    """Per score, how many of its group's thresholds it passes (> t; >= t if inclusive).

    Thresholds and scores are ranked among the distinct thresholds (exact float
    comparisons), then searched as (group, rank) integer keys: the thresholds' keys are
    sorted already, as each group's thresholds are."""
    distinct = np.unique(grids.values)
    rank = np.searchsorted(distinct, grids.values)
    # a threshold passes when its rank is below the score's position among them
    below = np.searchsorted(distinct, scores, side="right" if inclusive else "left")
    base = distinct.size + 1
    keys = _pair_keys(grids.group, rank, base)
    return np.searchsorted(keys, _pair_keys(group, below, base)) - grids.offsets[group]


def _pair_keys(major: np.ndarray, minor: np.ndarray, base: int) -> np.ndarray:
    """``major * base + minor`` (int64; ``0 <= minor < base``): pairs sorted as integers.
    Both factors are bounded by what a batch holds (examples or groups, and thresholds
    per group), far below 2**62 together."""
    return major.astype(np.int64) * np.int64(base) + minor


def _segments(example: np.ndarray, level: np.ndarray, sizes: np.ndarray):
    """(example, first threshold, end threshold) of every segment: the stretches of an
    example's thresholds between consecutive distinct levels of its intervals, in
    (example, threshold) order."""
    n = sizes.size
    inner = (level > 0) & (level < sizes[example])
    base = int(sizes.max()) + 1 if n else 1
    keys = np.sort(np.concatenate([_pair_keys(np.arange(n), np.zeros(n, np.int64), base),
                                   _pair_keys(example[inner], level[inner], base)]))
    new = np.ones(keys.size, dtype=bool)
    new[1:] = keys[1:] != keys[:-1]
    keys = keys[new]
    ex, lo = np.divmod(keys, base)
    hi = np.empty_like(lo)
    last = np.ones(ex.size, dtype=bool)
    last[:-1] = ex[1:] != ex[:-1]
    hi[:-1] = lo[1:]
    hi[last] = sizes[ex[last]]
    return ex, lo, hi


def _fast_for(metric: str, si: ScoreInput, params) -> bool:
    """Can the runs give ``metric``'s statistics? (tokens in text order; a response is
    predicted positive when it has a predicted character: ``positive_min_length <= 1``)."""
    if metric == "response_level" and params.get(metric, {}).get(
            "positive_min_length", 1) > 1:
        return False
    if metric == "character" and params.get(metric, {}).get("overlaps") == "pairwise":
        return False  # the runs count merged masks; the pairwise rule counts listed spans
    return si.form == "soft" or _in_order(si)


def _in_order(si: ScoreInput) -> bool:
    """Token offsets in order (starts and ends non-decreasing in each example)."""
    if si.example.size < 2:
        return True
    same = si.example[1:] == si.example[:-1]
    return bool(((si.starts[1:] >= si.starts[:-1]) & (si.ends[1:] >= si.ends[:-1]) | ~same)
                .all())


# ------------------------------------------------------------------ statistics

def _mask_input(si: ScoreInput) -> ScoreInput:
    """Token form: add each gap between consecutive tokens, scoring the lower of the two,
    so that characters scoring > t are exactly the spans at t (`spans_at`'s rule)."""
    if si.form == "soft" or si.example.size < 2:
        return si
    gap = (si.example[1:] == si.example[:-1]) & (si.starts[1:] > si.ends[:-1])
    i = np.flatnonzero(gap)
    # Each gap after its token, so that the examples stay in order (blocks of examples).
    at = np.arange(si.example.size) + np.cumsum(np.concatenate([[0], gap]))
    n = si.example.size + i.size
    example, starts, ends, scores = (np.empty(n, dtype=np.int64), np.empty(n, np.int64),
                                     np.empty(n, np.int64), np.empty(n))
    example[at], starts[at], ends[at], scores[at] = si.example, si.starts, si.ends, si.scores
    g = at[i] + 1
    example[g], starts[g], ends[g] = si.example[i], si.ends[i], si.starts[i + 1]
    scores[g] = np.minimum(si.scores[i], si.scores[i + 1])
    return ScoreInput("token", si.n, example, starts, ends, scores, si.single)


def _gold(refs: SpanBatch, listed_refs: np.ndarray, params) -> np.ndarray:
    """Gold positive examples, by ``response_level``'s own rule (its parameters)."""
    n = refs.n_examples
    ws = Workspace(refs, SpanBatch.empty(n), listed=(listed_refs, np.zeros(n, np.int64)))
    st = POOLED_METRICS["response_level"].compute(ws, params.get("response_level", {}))
    return (st["tp"] + st["fn"]) > 0


def _fast_statistics(leveled: ScoreInput, lengths, refs: SpanBatch, listed_refs, seg_ex,
                     seg_lo, names, params) -> dict[str, dict[str, np.ndarray]]:
    """Per segment: predicted and intersected characters from the runs of the levels (a
    run counts in the segments of its example that start below its level)."""
    if not names:
        return {}
    runs = concat_runs(score_run_blocks(_mask_input(leveled), lengths, refs))
    level = runs.score.astype(np.int64)
    length = runs.length.astype(np.int64)
    pos = np.where(runs.positive, length, 0)
    base = max(int(level.max()) if level.size else 0, int(seg_lo.max()) if seg_lo.size
               else 0) + 1
    seg_keys = _pair_keys(seg_ex, seg_lo, base)  # sorted: segments in (example, start) order
    first = np.searchsorted(seg_keys, _pair_keys(runs.example, np.zeros_like(level), base))
    end = np.searchsorted(seg_keys, _pair_keys(runs.example, level, base))
    pred = _spread(first, end, length, seg_ex.size)
    inter = _spread(first, end, pos, seg_ex.size)
    r = _example_sums(runs.example, pos, leveled.n)[seg_ex]
    out: dict[str, dict[str, np.ndarray]] = {}
    for m in names:
        if m == "iou":
            out[m] = {"inter": inter, "union": r + pred - inter}
        elif m == "character":
            out[m] = {"tp": inter, "fp": pred - inter, "fn": r - inter}
        else:
            g, h = _gold(refs, listed_refs, params)[seg_ex], pred > 0
            out[m] = {k: v.astype(np.int64) for k, v in (
                ("tp", g & h), ("fp", ~g & h), ("fn", g & ~h), ("tn", ~g & ~h))}
    return out


def _spread(first: np.ndarray, end: np.ndarray, weights: np.ndarray, size: int
            ) -> np.ndarray:
    """``out[i]`` = the sum of ``weights[r]`` over every r with ``first[r] <= i < end[r]``
    (a difference array; exact integers)."""
    d = _example_sums(first, weights, size + 1) - _example_sums(end, weights, size + 1)
    return np.cumsum(d[:-1])


def _example_sums(index: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Exact int64 sums of ``values`` by ``index`` (0..n-1)."""
    values = np.asarray(values, dtype=np.int64)
    if values.size and float(np.abs(values).max()) * values.size < 2**53:
        return np.bincount(index, weights=values, minlength=n).astype(np.int64)
    out = np.zeros(n, dtype=np.int64)
    np.add.at(out, index, values)
    return out


def _ragged(first: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(owner, value) of ``first[i] + 0..count[i]-1`` for every i."""
    owner = np.repeat(np.arange(count.size), count)
    shift = first - (np.cumsum(count) - count)
    return owner, shift[owner] + np.arange(owner.size)


def _repeat(batch: SpanBatch, rows: np.ndarray) -> SpanBatch:
    """The examples ``rows`` (positions, repeats allowed) of a batch, in that order."""
    counts = batch.counts[rows]
    offsets = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    _, idx = _ragged(batch.offsets[:-1][rows], counts)
    mult = None if batch.multiplicity is None else batch.multiplicity[idx]
    return SpanBatch(offsets, batch.starts[idx], batch.ends[idx], batch.canonical, mult)


def _slow_statistics(leveled: ScoreInput, lengths, refs: SpanBatch, listed_refs, seg_ex,
                     seg_lo, names, params, bar: Bar | None = None
                     ) -> dict[str, dict[str, np.ndarray]] | np.ndarray:
    """Per segment: the statistics of the spans of the intervals passing its thresholds,
    scored in batches of about `_CHUNK` intervals — or, when a run of tokens out of text
    order ends before it starts in some segments, those segments' indices (the caller
    refuses the lowest such threshold as `mycelium.evaluate` does at it)."""
    span_names = [m for m in names if m in METRICS]
    pooled = [m for m in names if m in POOLED_METRICS]
    first = np.zeros(leveled.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(leveled.example, minlength=leveled.n), out=first[1:])
    count = np.diff(first)[seg_ex]
    cuts = np.searchsorted(np.cumsum(count), np.arange(_CHUNK, count.sum(), _CHUNK))
    bounds = np.unique(np.concatenate([[0], cuts, [seg_ex.size]]))
    if bounds.size == 1:  # no segments (no example kept): the statistics' empty columns
        bounds = np.array([0, 0])
    parts: list[dict] = []
    reversed_at: list[np.ndarray] = []
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        ex, lo = seg_ex[a:b], seg_lo[a:b]
        owner, idx = _ragged(first[:-1][ex], count[a:b])
        hot = (leveled.scores[idx] > lo[owner]).astype(np.float64)  # level > first
        part = ScoreInput(leveled.form, b - a, owner.astype(np.int64), leveled.starts[idx],
                          leveled.ends[idx], hot, False)
        bad = reversed_runs(part, 0.5)
        if bad.any() or reversed_at:  # no statistics any more: find every such segment
            reversed_at.append(a + np.flatnonzero(bad))
            continue
        raw = spans_at_threshold(part, lengths[ex], 0.5)
        preds = canonicalize(raw)
        sub = _repeat(refs, ex)
        st = compute_statistics(sub, preds, span_names, params) if span_names else {}
        if pooled:
            # the spans as listed: a run of tokens out of text order can be zero-length
            # (its first token starts where its last ends), listed though it has no
            # characters, and response_level's listed rule counts it as evaluate does
            ws = Workspace(sub, preds, listed=(listed_refs[ex], raw.counts))
            for m in pooled:
                st[m] = POOLED_METRICS[m].compute(ws, params.get(m, {}))
        parts.append(st)
        if bar is not None:
            bar.update(b - a)
    if reversed_at:
        return np.concatenate(reversed_at)
    return {m: {k: np.concatenate([p[m][k] for p in parts]) for k in parts[0][m]}
            for m in names}


def _token_responses(si: ScoreInput, listed_spans: SpanBatch, codes: np.ndarray,
                     grids: Grids, settings: Settings, *, inclusive: bool
                     ) -> dict[str, np.ndarray]:
    """``response_level`` with ``unit="tokens"`` at every cell: an example is gold-positive
    when one of its tokens overlaps a listed reference span (`mycelium.metrics.tokens`),
    and predicted positive at a threshold its highest token score passes, zero-length
    tokens included (a response without tokens is negative on both sides) — what
    `mycelium.evaluate` computes with ``threshold=t``. The thresholds stay those of the
    non-empty tokens."""
    from ..metrics.tokens import label_tokens

    n = si.n
    bx, bp, bs = si.blank if si.blank is not None else (np.empty(0, np.int64),) * 3
    example = np.concatenate([si.example, bx]).astype(np.int64)
    starts = np.concatenate([si.starts, bp]).astype(np.int64)
    ends = np.concatenate([si.ends, bp]).astype(np.int64)
    scores = np.concatenate([si.scores, np.asarray(bs, dtype=np.float64)])
    labels = label_tokens(n, (listed_spans.example_ids, listed_spans.starts,
                              listed_spans.ends), (example, starts, ends), scores, 1.0,
                          inclusive=inclusive)
    gold = labels.any_positive()[0]
    top = np.full(n, -np.inf)
    np.maximum.at(top, example, scores)
    has = np.bincount(example, minlength=n) > 0
    level = np.zeros(n, dtype=np.int64)
    ex = np.flatnonzero(has)
    level[ex] = _levels(top[ex], codes[ex], grids, inclusive=inclusive)
    first = grids.offsets[codes]
    split, end = first + level, first + grids.sizes[codes]
    ones = np.ones(n, dtype=np.int64)
    n_cells = grids.values.size
    sums = {"tp": _spread(first[gold], split[gold], ones[gold], n_cells),
            "fp": _spread(first[~gold], split[~gold], ones[~gold], n_cells),
            "fn": _spread(split[gold], end[gold], ones[gold], n_cells),
            "tn": _spread(split[~gold], end[~gold], ones[~gold], n_cells)}
    return pooled_values_of_sums(sums, "response_level", zero_division=settings.zero_division)


# ------------------------------------------------------------------ cells

def _cell_values(stats, c0: np.ndarray, c1: np.ndarray, n_cells: int, names,
                 settings: Settings) -> dict[str, dict[str, np.ndarray]]:
    """Every measure at every cell, from the per-segment statistics (segment i covers the
    cells ``c0[i]`` to ``c1[i] - 1``), through exact per-cell sums."""
    out: dict[str, dict[str, np.ndarray]] = {}
    span_names = tuple(m for m in names if m in METRICS)
    if span_names:
        span = dataclasses.replace(settings, metrics=span_names)
        sums: dict[str, np.ndarray] = {}
        for part in row_column_parts({m: stats[m] for m in span_names}, span):
            sums.update({k: _cell_sums(k, v, c0, c1, n_cells) for k, v in part.items()})
        # a cell's examples: one segment of each example covers it
        examples = _cell_sums("examples", np.ones(c0.size, np.int64), c0, c1, n_cells)
        out.update(values_from_sums(sums, span, examples=examples))
    for m in names:
        if m in POOLED_METRICS:
            sums = {k: _cell_sums(k, v, c0, c1, n_cells) for k, v in stats[m].items()}
            out[m] = pooled_values_of_sums(sums, m, zero_division=settings.zero_division)
    return out


def _cell_sums(name: str, col: np.ndarray, c0: np.ndarray, c1: np.ndarray, n_cells: int
               ) -> np.ndarray:
    """Exact per-cell sums of a per-segment column: a difference array of integers, or,
    for float columns (residual limbs, fractional CLEval numerators) and sums beyond
    int64, the per-cell sums of `mycelium.core.groups.group_sums` over the cells each
    segment covers."""
    col = np.asarray(col)
    if not col.any():  # e.g. residual limbs: almost always zero
        return np.zeros(n_cells, np.float64 if name.endswith("|residual") else np.int64)
    integral = col.dtype.kind in "iub" or (col.dtype.kind == "f"
                                           and bool(np.array_equal(col, np.trunc(col))))
    peak = float(np.abs(col).max()) if col.size else 0.0
    if integral and not name.endswith("|residual") and peak * 2 * col.size < 2**62:
        return _spread(c0, c1, col.astype(np.int64), n_cells)
    owner, cell = _ragged(c0, c1 - c0)
    return group_sums({name: col[owner]}, cell, n_cells)[name]
