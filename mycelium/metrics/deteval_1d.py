"""``deteval_1d``: Wolf & Jolion's DetEval adapted to half-open character intervals.

DetEval gives detection-style credit when one reference is split into several
predictions or several references are merged into one prediction. For reference g and
prediction d with overlap ``ov``: ``R[g,d] = ov / len(g)``, ``P[g,d] = ov / len(d)``;
``cntG[g]`` / ``cntD[d]`` count the spans of the other side that overlap. Spans are taken
in canonical order (sorted by ``(start, end)``, duplicates collapsed, zero-length
dropped), so the result does not depend on the order spans arrive in; matched spans are
never reused. Three passes:

1. one-to-one: ``cntG[g] == 1``, ``cntD[d] == 1``, ``R >= tr`` and ``P >= tp``;
2. split, for each unmatched g with ``cntG >= 2``: C = unmatched d with ``P[g,d] >= tp``;
   ``|C| == 1`` and ``R >= tr`` → one-to-one; ``|C| >= 2`` and ``Σ R[g,C] >= tr`` → split;
3. merge, for each unmatched d with ``cntD >= 2``: C = unmatched g with ``R[g,d] >= tr``;
   ``|C| == 1`` and ``P >= tp`` → one-to-one; ``|C| >= 2`` and ``Σ P[C,d] >= tp`` → merge.

Threshold tests are ``>=`` decided in exact arithmetic, the threshold read as the
decimal it is written as (ties pass: ``1/10 + 7/10`` meets 0.8; see
``_intervals.passes``); sums of overlaps are exact integers even when they leave int64. The centre-distance test of the 2D original is
vacuous in 1D (it holds for every overlapping pair) and is omitted.

Parameters
    ``recall_threshold`` tr = 0.8, ``precision_threshold`` tp = 0.4,
    ``split_merge_credit`` k = 0.8, ``merge_credit`` (None → k; 1.0 reproduces the
    ICDAR Robust Reading script, which gives merges full credit).

Statistics (per example; all integers)
    ``n_ref``, ``n_pred``, ``n_one_to_one``, ``n_split_refs``, ``n_split_preds``,
    ``n_merge_refs``, ``n_merge_preds``. Matching depends on tr and tp only, never on
    the credits.

Measures
    recall = (n_one_to_one + k·n_split_refs + k_m·n_merge_refs) / n_ref,
    precision = (n_one_to_one + k·n_split_preds + k_m·n_merge_preds) / n_pred,
    F1 their harmonic mean. Micro applies this to the batch sums (DetEval's own dataset
    aggregation).

Edge cases
    No reference → recall 0/0, no prediction → precision 0/0: decided by
    ``zero_division``. (The original DetEval gives R = 1 without references and P = 1
    only when both sides are empty; ``zero_division=1.0`` reproduces it except for P of
    an example with references and no predictions, where F1 is 0 either way.)

Implementation
    Passes 1-3 are vectorised over the batch; the greedy passes 2 and 3 run in rounds
    that reproduce the sequential order exactly (see `_group_pass`), with no loop per
    span or per pair. When there are more overlapping pairs than are held at once
    (thousands of mutually overlapping spans), every pass reads them in blocks
    (`mycelium.metrics._blocks`): memory stays bounded, cost proportional to the pairs.

Examples
--------
Rows of the SPEC section 4 worked table: a split earns ``k = 0.8`` on both sides
(full credit with ``split_merge_credit=1.0``); ``[0, 10)`` against ``[2, 8)`` fails
the recall threshold:

>>> import mycelium
>>> mycelium.evaluate([[0, 10]], [[0, 5], [5, 10]], metrics="deteval_1d")["deteval_1d"]
{'precision': 0.8, 'recall': 0.8, 'f1': 0.8}
>>> mycelium.evaluate([[0, 10]], [[0, 5], [5, 10]], metrics="deteval_1d",
...                   params={"deteval_1d": {"split_merge_credit": 1.0}})["deteval_1d"]
{'precision': 1.0, 'recall': 1.0, 'f1': 1.0}
>>> mycelium.evaluate([[0, 10]], [[2, 8]], metrics="deteval_1d")["deteval_1d"]
{'precision': 0.0, 'recall': 0.0, 'f1': 0.0}
>>> st = mycelium.statistics([[0, 4], [4, 12]], [[2, 12]], metrics="deteval_1d")
>>> int(st["deteval_1d"]["n_one_to_one"][0]), int(st["deteval_1d"]["n_ref"][0])
(1, 2)
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from . import _blocks
from . import _intervals as iv
from ._base import Metric, Pairs, Param, Workspace, prf_ratios, unit, unit_open

STATS = ("n_ref", "n_pred", "n_one_to_one", "n_split_refs", "n_split_preds",
         "n_merge_refs", "n_merge_preds")


def statistics(ws: Workspace, params) -> dict[str, np.ndarray]:
    tr, tp = params["recall_threshold"], params["precision_threshold"]
    refs, preds = ws.refs, ws.preds
    cnt_g, cnt_d = ws.pair_counts
    m_g = np.zeros(refs.n_spans, dtype=bool)
    m_d = np.zeros(preds.n_spans, dtype=bool)
    out = {name: np.zeros(ws.n, dtype=np.int64) for name in STATS}
    out["n_ref"], out["n_pred"] = refs.counts.copy(), preds.counts.copy()
    r_ok = lambda pr: iv.passes(pr.overlap, refs.lengths[pr.ref], tr)  # noqa: E731
    p_ok = lambda pr: iv.passes(pr.overlap, preds.lengths[pr.pred], tp)  # noqa: E731

    # Pass 1: one-to-one between spans that overlap nothing else.
    alone = lambda g, d: (cnt_g[g] == 1) & (cnt_d[d] == 1)  # noqa: E731
    oo = out["n_one_to_one"]
    if not ws.dense:  # pairs held: each threshold test once for all three passes
        held, ok_r, ok_p = ws.pairs, r_ok(ws.pairs), p_ok(ws.pairs)
        one = held.select(alone(held.ref, held.pred) & ok_r & ok_p)
        m_g[one.ref] = True
        m_d[one.pred] = True
        oo += iv.count(one.example, ws.n)
    for pr in ([] if not ws.dense else
               ws.pair_blocks("ref", rows=cnt_g == 1, keep=alone)):
        pr = pr.select(r_ok(pr) & p_ok(pr))
        m_g[pr.ref] = True
        m_d[pr.pred] = True
        oo += iv.count(pr.example, ws.n)

    def held_candidates(by, other, rows, taken, test_ok, single_ok):
        if ws.dense:
            return None
        sel = np.flatnonzero(rows[by] & ~taken[other] & test_ok)
        # (by, other, overlap, single test) columns of the live candidate pairs
        return by[sel], other[sel], held.overlap[sel], single_ok[sel]

    # Pass 2: one reference split into several predictions.
    def split(pr):
        pr = pr.select(p_ok(pr))
        return pr, r_ok(pr)

    rows = (cnt_g >= 2) & ~m_g
    res = _group_pass(ws, split, side="ref", rows=rows, taken=m_d, length=refs.lengths,
                      threshold=tr, held=not ws.dense and held_candidates(
                          held.ref, held.pred, rows, m_d, ok_p, ok_r))
    m_g |= res["matched_by"]
    m_d |= res["matched_other"]
    oo += res["one"]
    out["n_split_refs"], out["n_split_preds"] = res["groups"], res["members"]

    # Pass 3: several references merged into one prediction.
    def merge(pr):
        pr = pr.select(r_ok(pr))
        return pr, p_ok(pr)

    rows = (cnt_d >= 2) & ~m_d
    res = _group_pass(ws, merge, side="pred", rows=rows, taken=m_g, length=preds.lengths,
                      threshold=tp, held=not ws.dense and held_candidates(
                          held.pred, held.ref, rows, m_g, ok_r, ok_p))
    oo += res["one"]
    out["n_merge_preds"], out["n_merge_refs"] = res["groups"], res["members"]
    return out


def _group_pass(ws: Workspace, test, *, side: str, rows, taken, length, threshold,
                held=None):
    """Pass 2 (``side="ref"``: references claim predictions) or pass 3 (``"pred"``).

    ``held``: the live candidate pairs (``rows`` spans, other spans not ``taken``) as
    ``(by, other, overlap, single_ok)`` columns, or None to enumerate them.

    The sequential pass visits the ``by`` spans (``rows``: the unmatched ones with two or
    more overlaps) in canonical order; each claims its candidates C (the unclaimed
    ``other`` spans that pass the pass's ``test``) when ``|C| == 1`` and the single test
    holds, or ``|C| >= 2`` and ``Σ overlap`` meets the threshold. Two facts give the
    sequential result exactly, in vectorised rounds:

    - a span that would not claim with its current candidates never claims later
      (claims only remove candidates, and a subset of a failing C fails: its sum is
      smaller, and one candidate passing the single test alone would make Σ pass), so
      every such span is decided in the round that sees it fail;
    - a span that would claim and that no earlier such span competes with (none shares
      a candidate) claims now. The first one always does, so each round decides at
      least one span; claims apply after the round.

    One round is one sweep over the candidate pairs in ``by`` order (a block holds whole
    ``by`` spans), so dense workspaces read in blocks keep memory bounded. Held pairs are
    renumbered once to the spans that have a candidate, and each round keeps only the
    pairs still live for the next, so later rounds cost what is left undecided.
    """
    by_batch, other_batch = (ws.refs, ws.preds) if side == "ref" else (ws.preds, ws.refs)
    n_by, n_other, n = by_batch.n_spans, other_batch.n_spans, ws.n
    by_name, other_name = ("ref", "pred") if side == "ref" else ("pred", "ref")
    cols = lambda pr, ok: (getattr(pr, by_name), getattr(pr, other_name),  # noqa: E731
                           pr.overlap, ok)
    undecided, dead = rows.copy(), taken.copy()  # dead: claimed before the pass or in it

    def live(g, d):
        b, o = (g, d) if side == "ref" else (d, g)
        return undecided[b] & ~dead[o]

    held = held or None  # the live candidate pairs' columns, when the caller holds them
    if held is None and not ws.dense:
        held = [cols(*test(pr.select(live(pr.ref, pr.pred)))) for pr in ws.pair_blocks(side)]
        held = tuple(np.concatenate(c) for c in zip(*held))
    by_ids = other_ids = None  # local index -> span, when the state is compacted
    if held is not None:
        # Only the spans that have a candidate take part: number them once (in order, so
        # "earlier" is unchanged) and size every round's arrays to them, not to the batch.
        b, o, ov, ok = held
        by_ids, b = _compact(b, n_by)
        other_ids, o = _compact(o, n_other)
        held = [(b, o, ov, ok)]
        undecided = np.ones(by_ids.size, dtype=bool)
        dead = np.zeros(other_ids.size, dtype=bool)
        length, ex = length[by_ids], by_batch.example_ids[by_ids]
    else:
        ex = by_batch.example_ids
    m_by, m_other = undecided.size, dead.size
    matched = np.zeros(m_by, dtype=bool)
    claimed = np.zeros(m_other, dtype=bool)
    members = np.zeros(m_by, dtype=np.int64)  # candidates claimed; 0 unless a group
    single_claim = np.zeros(m_by, dtype=bool)
    while undecided.any():
        source = held if held is not None else (
            cols(*test(pr)) for pr in ws.pair_blocks(side, rows=undecided, dead=dead,
                                                     keep=live))
        seen = np.zeros(m_other, dtype=bool)  # wanted by an earlier span that would claim
        claims = np.zeros(m_other, dtype=bool)
        visited = np.zeros(m_by, dtype=bool)
        kept, kept_size, holding = [], 0, held is not None
        for b, o, ov, single_ok in source:
            alive = undecided[b] & ~dead[o]
            if not alive.all():
                b, o, ov, single_ok = b[alive], o[alive], ov[alive], single_ok[alive]
            visited[b] = True
            if holding or kept_size <= _blocks.BLOCK:
                kept.append((b, o, ov, single_ok))
                kept_size += b.size
            n_cand = iv.count(b, m_by)
            n_single = iv.count(b[single_ok], m_by)
            sum_ov = iv.group_sum(b, ov, m_by)
            would = ((n_cand == 1) & (n_single == 1)) | (
                (n_cand >= 2) & iv.passes(sum_ov, np.maximum(length, 1), threshold))
            want = would[b]
            bw, ow = b[want], o[want]
            first = np.full(m_other, m_by, dtype=np.int64)
            np.minimum.at(first, ow, bw)
            waiting = np.zeros(m_by, dtype=bool)
            waiting[bw[seen[ow] | (first[ow] != bw)]] = True
            seen[ow] = True
            ready = would & ~waiting
            claims[ow[ready[bw]]] = True
            matched |= ready
            single_claim |= ready & (n_cand == 1)
            multi = ready & (n_cand >= 2)
            members[multi] = n_cand[multi]
            # Spans seen in this block are decided unless they would claim and wait.
            undecided[b] = would[b] & waiting[b]
        if holding or kept_size <= _blocks.BLOCK:  # the live pairs alone, for the next round
            held = kept
        # Spans with no live candidate left were in no block: they cannot claim.
        undecided &= visited
        dead |= claims
        claimed |= claims
    groups = matched & ~single_claim
    out = {"one": iv.count(ex[single_claim], n), "groups": iv.count(ex[groups], n),
           "members": iv.group_sum(ex[groups], members[groups], n),
           "matched_by": _expand(matched, by_ids, n_by),
           "matched_other": _expand(claimed, other_ids, n_other)}
    return out


def _compact(idx: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``idx`` (indices below ``size``) in increasing order, and
    ``idx`` renumbered as positions among them (order preserving, no sort)."""
    used = np.zeros(size, dtype=bool)
    used[idx] = True
    ids = np.flatnonzero(used)
    local = np.cumsum(used) - 1
    return ids, local[idx]


def _expand(mask: np.ndarray, ids: np.ndarray | None, size: int) -> np.ndarray:
    """A mask over local indices as a mask over all ``size`` spans."""
    if ids is None:
        return mask
    out = np.zeros(size, dtype=bool)
    out[ids[mask]] = True
    return out


def ratios(st, params):
    """Credits as exact ratios: a credit k is read as the decimal it is written as
    (0.8 = 4/5), so precision, recall and F1 are each rounded once (P = R = 0.8 gives
    F1 = 0.8 exactly, not 0.8000000000000002)."""
    k = _decimal(params["split_merge_credit"])
    km = k if params["merge_credit"] is None else _decimal(params["merge_credit"])
    q = math.lcm(k.denominator, km.denominator)
    kq, kmq = k.numerator * (q // k.denominator), km.numerator * (q // km.denominator)
    if q > 2**20:  # unusual credits with long decimals: exact Python integers
        st = {name: np.asarray(v).astype(object) for name, v in st.items()}
    oo = st["n_one_to_one"] * q
    recall_credit = oo + kq * st["n_split_refs"] + kmq * st["n_merge_refs"]
    precision_credit = oo + kq * st["n_split_preds"] + kmq * st["n_merge_preds"]
    return prf_ratios(precision_credit, st["n_pred"] * q, recall_credit, st["n_ref"] * q)


def _decimal(x: float) -> Fraction:
    return Fraction(repr(float(x)))




METRIC = Metric(
    name="deteval_1d",
    statistics=STATS,
    counts=STATS,
    measures=("precision", "recall", "f1"),
    compute=statistics,
    ratios=ratios,
    params=(
        Param("recall_threshold", 0.8, unit_open, "a number in (0, 1]"),
        Param("precision_threshold", 0.4, unit_open, "a number in (0, 1]"),
        Param("split_merge_credit", 0.8, unit, "a number in [0, 1]"),
        Param("merge_credit", None, unit, "None or a number in [0, 1]", allow_none=True),
    ),
    summary="Split/merge-aware detection precision, recall and F1 (DetEval in 1D)",
)
