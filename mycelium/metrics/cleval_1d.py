"""``cleval_1d``: CLEval (character-level evaluation) adapted to half-open character intervals.

Every character position i of a reference is one pseudo-character (centre i + 0.5), so
``c[g,d]`` — g's characters inside d — is the overlap length. ``ap[g,d] = c / len(d)``
(area precision) and ``A[g,d] = c > 0 and ap >= a``. Matching is the *union* of three
independent passes (nothing is marked between them, unlike DetEval):

- M1 one-to-one: ``A[g,d]`` is the only true entry of its row and of its column;
- M2 split: for each g with two or more A-true predictions, all of them;
- M3 merge: for each d overlapping two or more references with ``Σ ap >= a``, all of them.

Parameters
    ``area_precision_threshold`` a = 0.3, ``granularity_penalty_weight`` w = 1.0.

Statistics (per example)
    ``tp_chars``           Σ over references of the characters of g covered by the
                           predictions matched to g (each character once)
    ``n_gran_recall``      Σ_g max(0, m_g − 1), m_g = predictions matched to g
    ``n_gran_precision``   Σ_d max(0, n_d − 1), n_d = references matched to d
    ``gt_chars``           Σ len(g)
    ``matched_det_chars``  Σ over matched pairs of c[g,d] (characters of a matched
                           prediction outside every reference do not count)
    ``fp_chars``           Σ len(d) over unmatched predictions
    ``det_chars``          matched_det_chars + fp_chars
    ``recall_num``         max(0, tp_chars − w·n_gran_recall)     (integers when w is a
    ``precision_num``      max(0, tp_chars − w·n_gran_precision)   whole number, else float)

    Character counts are exact integers: int64, or Python ints (an object array) when
    overlapping spans of one example add up beyond int64 (lengths near 2**62).
    ``n_split_refs``       references with m_g ≥ 2 (diagnostic)
    ``n_merge_preds``      predictions with n_d ≥ 2 (diagnostic)

Measures
    recall = recall_num / gt_chars, precision = precision_num / det_chars, F1 their
    harmonic mean. Micro sums the per-example clipped numerators (CLEval 2020's
    aggregation; the 2023 release clips the summed numerator once, which differs only
    when an example has ``tp_chars`` below its penalty — keep the diagnostics to
    compute it).

Edge cases
    No reference → recall 0/0; no prediction → precision 0/0: decided by
    ``zero_division``. A matched prediction much longer than its reference is only
    guarded by the ``ap`` threshold (``[0, 10)`` vs ``[5, 20)`` gives precision 1.0).
    The 2D original estimates false-positive characters from box shape; in 1D the
    length of the span is exact and is used.

Examples
--------
Rows of the SPEC section 4 worked table: a split costs one granularity penalty
character on the recall side (9 / 10); a merge of two references costs one on the
precision side:

>>> import mycelium
>>> mycelium.evaluate([[0, 10]], [[0, 5], [5, 10]], metrics="cleval_1d")["cleval_1d"]
{'precision': 1.0, 'recall': 0.9, 'f1': 0.9473684210526315}
>>> mycelium.evaluate([[0, 4], [4, 12]], [[2, 12]], metrics="cleval_1d")["cleval_1d"]
{'precision': 0.9, 'recall': 0.8333333333333334, 'f1': 0.8653846153846154}
>>> st = mycelium.statistics([[0, 4], [4, 12]], [[2, 12]], metrics="cleval_1d")["cleval_1d"]
>>> [int(st[k][0]) for k in ("tp_chars", "n_gran_precision", "precision_num", "det_chars")]
[10, 1, 9, 10]
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from . import intervals as iv
from ._blocks import _covered as _blocks_covered
from .base import Metric, Pairs, Param, Workspace, non_negative, prf_ratios, unit_open

STATS = ("recall_num", "gt_chars", "precision_num", "det_chars", "tp_chars",
         "n_gran_recall", "n_gran_precision", "matched_det_chars", "fp_chars",
         "n_split_refs", "n_merge_preds")


def statistics(ws: Workspace, params) -> dict[str, np.ndarray]:
    a = params["area_precision_threshold"]
    w = params["granularity_penalty_weight"]
    refs, preds, n = ws.refs, ws.preds, ws.n
    if ws.dense and _fits(ws):
        return _statistics_from_ranges(ws, a, w)
    blocks = ws.pair_blocks("ref")  # each block holds every pair of its references
    # Sweep 1: Σ c over the references overlapping each prediction.
    sum_c = np.zeros(preds.n_spans, dtype=np.int64)
    for pr in blocks:
        sum_c = iv.exact_add(sum_c, iv.group_sum(pr.pred, pr.overlap, preds.n_spans))
    merge_d, single = _merged_and_single(ws, sum_c, a)
    # Sweep 2: the matched pairs, reduced per span and per example.
    m_g = np.zeros(refs.n_spans, dtype=np.int64)
    n_d = np.zeros(preds.n_spans, dtype=np.int64)
    matched_det = np.zeros(n, dtype=np.int64)
    tp_chars = np.zeros(n, dtype=np.int64)
    for pr in blocks:
        m = pr.select(_match(pr, preds.lengths, merge_d, single, a))
        block_m_g = iv.count(m.ref, refs.n_spans)  # complete: the block has all of g's pairs
        m_g += block_m_g
        n_d += iv.count(m.pred, preds.n_spans)
        matched_det = iv.exact_add(matched_det, iv.group_sum(m.example, m.overlap, n))
        tp_chars = iv.exact_add(tp_chars, _covered_chars(ws, m, block_m_g))
    return _finish(ws, w, m_g, n_d, matched_det, tp_chars)


def _finish(ws: Workspace, w: float, m_g, n_d, matched_det, tp_chars) -> dict[str, np.ndarray]:
    """The statistics from the matched pairs' counts per span and sums per example."""
    refs, preds = ws.refs, ws.preds
    gran_r = iv.segment_sum(np.maximum(m_g - 1, 0), refs.offsets)
    gran_p = iv.segment_sum(np.maximum(n_d - 1, 0), preds.offsets)
    fp = iv.segment_sum(np.where(n_d == 0, preds.lengths, 0), preds.offsets)
    return {
        "recall_num": _numerator(tp_chars, gran_r, w),
        "gt_chars": iv.segment_sum(refs.lengths, refs.offsets),
        "precision_num": _numerator(tp_chars, gran_p, w),
        "det_chars": iv.exact_add(matched_det, fp),
        "tp_chars": tp_chars,
        "n_gran_recall": gran_r,
        "n_gran_precision": gran_p,
        "matched_det_chars": matched_det,
        "fp_chars": fp,
        "n_split_refs": iv.segment_count(m_g >= 2, refs.offsets),
        "n_merge_preds": iv.segment_count(n_d >= 2, preds.offsets),
    }


def _fits(ws: Workspace) -> bool:
    """True when every character sum of the batch stays below 2**61 (`Workspace.sums_fit`:
    then int64 arithmetic is exact, and every statistic is int64 on either path)."""
    return ws.sums_fit


def _statistics_from_ranges(ws: Workspace, a: float, w: float) -> dict[str, np.ndarray]:
    """The same statistics as the pair sweeps, without enumerating the pairs.

    What makes it possible: a prediction d with two or more partners either passes M3
    (then every pair of d matches) or has ``Σ_g c[g,d] < a·len(d)``, so that no single
    ``c[g,d]`` reaches ``a·len(d)``: none of its pairs is A-true, none matches. A
    prediction with one partner g matches it exactly when the pair is A-true (then
    ``col[d] = 1`` and ``row[g] >= 1``: M1 or M2 holds). So the matched predictions M are
    whole predictions, each matched to every reference it overlaps, and

    - ``Σ_g c[g,d]`` is an integral of the references' coverage (prefix sums of starts
      and ends), ``m_g`` and ``n_d`` are counts over the pair ranges, and
    - g's covered characters are ``|g ∩ ∪M|``, read off the merged runs of M.

    Costs O(spans · log spans) where the sweeps cost O(pairs). Requires `_fits`: int64
    arithmetic below wraps modulo 2**64 in intermediate products, and every final value
    is below 2**61, so each is exact.
    """
    refs, preds, n = ws.refs, ws.preds, ws.n
    rs, re_, ps, pe = ws.keys
    pc_d = ws.pair_counts[1]
    sum_c = ws.overlap_sums[1]  # Σ_g c[g,d]
    merge_d, one = _merged_and_single(ws, sum_c, a)
    # A prediction with one partner: that partner is the reference of largest end among
    # those starting before the prediction ends (the only one reaching past its start).
    single = np.flatnonzero(one)
    reach = iv.running_max(re_) if re_.size else re_
    holder = iv.running_max(np.where(re_ == reach, np.arange(re_.size), 0))
    g1 = holder[np.searchsorted(rs, pe[single], side="left") - 1]
    c1 = (np.minimum(refs.ends[g1], preds.ends[single])
          - np.maximum(refs.starts[g1], preds.starts[single]))
    if (c1 <= 0).any():
        raise RuntimeError("internal: a one-partner prediction without its partner")
    hit = iv.passes(c1, preds.lengths[single], a)
    g1, d1, c1 = g1[hit], single[hit], c1[hit]
    # Counts of matched pairs per span: ranges of M3 predictions, plus the single pairs.
    pr = ws.pair_ranges
    merged_before = np.zeros(preds.n_spans + 1, dtype=np.int64)
    np.cumsum(merge_d, out=merged_before[1:])
    m_g = (merged_before[pr.hi1] - merged_before[pr.lo1]
           + _blocks_covered(pr.lo2[merge_d], pr.hi2[merge_d], refs.n_spans)
           + iv.count(g1, refs.n_spans))
    n_d = np.where(merge_d, pc_d, 0)
    n_d[d1] = 1
    matched_det = iv.exact_add(iv.group_sum(preds.example_ids[merge_d], sum_c[merge_d], n),
                               iv.group_sum(preds.example_ids[d1], c1, n))
    # |g ∩ ∪M| = G(end g) − G(start g), G(x): M's merged characters before x.
    in_m = merge_d.copy()
    in_m[d1] = True
    m_idx = np.flatnonzero(in_m)
    new, m_reach = iv.merge_runs(ps[m_idx], pe[m_idx])
    runs = np.flatnonzero(new)
    run_start_key = ps[m_idx[runs]]
    run_end_key = np.empty_like(run_start_key)
    run_start = preds.starts[m_idx[runs]]
    if runs.size:
        run_end_key[:-1] = m_reach[runs[1:] - 1]
        run_end_key[-1] = m_reach[-1]
        run_len = np.maximum.reduceat(preds.ends[m_idx], runs) - run_start
    else:
        run_len = run_start
    before = np.zeros(runs.size + 1, dtype=np.int64)
    np.cumsum(run_len, out=before[1:])

    def G(keys: np.ndarray, offs: np.ndarray) -> np.ndarray:
        if not runs.size:
            return np.zeros_like(offs)
        k = np.searchsorted(run_start_key, keys, side="right") - 1
        kk = np.maximum(k, 0)
        inside = np.where(keys >= run_end_key[kk], run_len[kk], offs - run_start[kk])
        return np.where(k >= 0, before[kk] + inside, 0)

    covered = G(re_, refs.ends) - G(rs, refs.starts)
    tp_chars = iv.group_sum(refs.example_ids, covered, n)
    return _finish(ws, w, m_g, n_d, matched_det, tp_chars)


def _merged_and_single(ws: Workspace, sum_c: np.ndarray, a: float):
    """The M3 predictions (``Σ_g ap[g,d] >= a`` over two or more references, as one
    exact ratio ``Σc / len(d)``) and the predictions with exactly one partner.

    These decide every match (`_match`): a prediction with two or more partners that is
    not M3 has ``Σ_g c[g,d] < a·len(d)``, so none of its pairs is A-true (M1 and M2 need
    A); a prediction with one partner g matches it exactly when the pair is A-true (then
    ``col[d] = 1`` and ``row[g] >= 1``, so M1 or M2 holds, whatever g's other pairs).
    """
    pc_d = ws.pair_counts[1]
    merge_d = (pc_d >= 2) & iv.passes(sum_c, np.maximum(ws.preds.lengths, 1), a)
    return merge_d, pc_d == 1


def _match(pairs: Pairs, lengths: np.ndarray, merge_d: np.ndarray, single: np.ndarray,
           a: float) -> np.ndarray:
    """Boolean per overlapping pair: in M1 ∪ M2 ∪ M3 (see `_merged_and_single`): every
    pair of an M3 prediction, and the A-true pair of each one-partner prediction."""
    matched = merge_d[pairs.pred]
    one = np.flatnonzero(single[pairs.pred])
    matched[one[iv.passes(pairs.overlap[one], lengths[pairs.pred[one]], a)]] = True
    return matched


def _covered_chars(ws: Workspace, m: Pairs, m_g: np.ndarray) -> np.ndarray:
    """Σ_g |∪_{d matched to g} (g ∩ d)| per example, each character counted once.

    A reference matched once covers its one overlap. For the others, each piece
    ``g ∩ d`` is read from g's start (offsets in ``[0, len g]``, so the (reference,
    offset) keys pack for long offsets too, with no per-group pass). The pieces of
    predictions starting before g cover a prefix ``[0, P)`` of g. The others start
    where d starts, and `mycelium.metrics._blocks` gives the pairs where d starts
    inside g in (g, d) order (checked), so they come in (g, start) order; clipped to
    start at ``P`` they stay in it, and each adds what it covers beyond the earlier ones
    (`iv.added_lengths`): g's covered characters are ``P`` plus those.
    """
    refs, preds = ws.refs, ws.preds
    once = m_g[m.ref] == 1
    at = np.flatnonzero(once)
    tp = iv.group_sum(m.example[at], m.overlap[at], ws.n)
    at = np.flatnonzero(~once)
    if at.size == 0:
        return tp
    g, d = m.ref[at], m.pred[at]
    g_start, d_start = refs.starts[g], preds.starts[d]
    hi = np.minimum(refs.ends[g], preds.ends[d])
    hi -= g_start
    before = np.flatnonzero(d_start < g_start)
    prefix = np.zeros(refs.n_spans, dtype=np.int64)
    np.maximum.at(prefix, g[before], hi[before])
    rest = np.flatnonzero(d_start >= g_start)
    g, ex, hi = g[rest], m.example[at[rest]], hi[rest]
    lo = np.maximum(d_start[rest] - g_start[rest], prefix[g])
    np.maximum(hi, lo, out=hi)
    (ks, ke), linear = iv.linear_order_keys([g, g], [lo, hi], refs.n_spans)
    if ks.size > 1 and not (ks[1:] >= ks[:-1]).all():
        raise RuntimeError("internal: pairs of a reference out of their predictions' order")
    added = iv.added_lengths(ks, ke, None if linear else (lo, hi))
    tp = iv.exact_add(tp, iv.segment_sum(prefix, refs.offsets))
    return iv.exact_add(tp, iv.group_sum(ex, added, ws.n))


def _numerator(tp: np.ndarray, gran: np.ndarray, w: float) -> np.ndarray:
    """``max(0, tp − w·gran)``: exact integers when ``w`` is a whole number (int64 unless a
    value leaves it), else float64, correctly rounded where ``tp`` is beyond 2**53."""
    if float(w).is_integer():  # integer numerators: exact sums in any engine, any order
        wi = int(w)
        if tp.dtype != object and wi * int(gran.max(initial=0)) <= iv.INT64_MAX:
            return np.maximum(tp - np.int64(wi) * gran, 0)
        values = [max(0, t - wi * g) for t, g in zip(tp.tolist(), gran.tolist())]
        return iv.narrow(np.array(values + [None], dtype=object)[:-1])
    tp_f = tp.astype(np.float64)
    out = np.maximum(0.0, tp_f - w * gran)
    big = np.flatnonzero(tp_f >= 2.0**53)
    if big.size:
        fw = Fraction(w)
        out[big] = [float(max(Fraction(0), t - fw * g))
                    for t, g in zip(tp[big].tolist(), gran[big].tolist())]
    return out


def ratios(st, params):
    return prf_ratios(st["precision_num"], st["det_chars"], st["recall_num"], st["gt_chars"])




METRIC = Metric(
    name="cleval_1d",
    statistics=STATS,
    counts=("n_gran_recall", "n_gran_precision", "n_split_refs", "n_merge_preds"),
    measures=("precision", "recall", "f1"),
    compute=statistics,
    ratios=ratios,
    params=(
        Param("area_precision_threshold", 0.3, unit_open, "a number in (0, 1]"),
        Param("granularity_penalty_weight", 1.0, non_negative, "a finite number >= 0"),
    ),
    summary="Character-coverage precision, recall and F1 with granularity penalties "
            "(CLEval in 1D)",
)
