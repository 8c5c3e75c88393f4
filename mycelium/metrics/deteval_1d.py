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
``intervals.passes``); sums of overlaps are exact integers even when they leave int64. The centre-distance test of the 2D original is
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
    Pass 1 is vectorised over the batch. The greedy passes 2 and 3 read the candidate
    pairs once, in blocks of whole spans in canonical order, each block decided exactly
    by vectorised rounds or, for chains of spans that wait on one another, span by span
    (`mycelium.metrics._claims`): no loop per pair, and a cost proportional to the
    overlapping pairs (thousands of mutually overlapping spans included;
    benchmarks/bench_deteval.py). When there are more pairs than are held at once,
    blocks are enumerated from the ranges (`mycelium.metrics._blocks`) and memory stays
    bounded.

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

from . import intervals as iv
from ._claims import Claims, claim_pass
from .base import Metric, Param, Workspace, prf_ratios, unit, unit_open

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
        held, (lg, ld) = ws.pairs, ws.pair_lengths
        ok_r, ok_p = iv.passes(held.overlap, lg, tr), iv.passes(held.overlap, ld, tp)
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

    def candidates(side, rows, taken, test, single_test):
        """Blocks of ``(by, other, overlap, single_ok)`` candidate pairs, in by order."""
        if not ws.dense:
            by, other = (held.ref, held.pred) if side == "ref" else (held.pred, held.ref)
            ok, single_ok = (ok_p, ok_r) if side == "ref" else (ok_r, ok_p)
            sel = np.flatnonzero(rows[by] & ~taken[other] & ok)
            return [(by[sel], other[sel], held.overlap[sel], single_ok[sel])]
        live = ((lambda g, d: rows[g] & ~taken[d]) if side == "ref" else  # noqa: E731
                (lambda g, d: rows[d] & ~taken[g]))
        return _tested_blocks(ws.pair_blocks(side, rows=rows, dead=taken, keep=live),
                              side, test, single_test)

    # Dense batches read the pairs of a pass's rows only: rows that cannot claim go first.
    hopeless = _hopeless(ws, tr, tp) if ws.dense and ws.sums_fit else None

    # Pass 2: one reference split into several predictions (claims mark m_d in place).
    rows = (cnt_g >= 2) & ~m_g
    if hopeless is not None:
        rows &= ~hopeless[0]
    res = claim_pass(candidates("ref", rows, m_d, p_ok, r_ok), rows=rows, taken=m_d,
                     length=refs.lengths, threshold=tr)
    m_g |= res.matched
    _credit(out, res, refs.offsets, "n_split_refs", "n_split_preds")

    # Pass 3: several references merged into one prediction.
    rows = (cnt_d >= 2) & ~m_d
    if hopeless is not None:
        rows &= ~hopeless[1]
    res = claim_pass(candidates("pred", rows, m_g, r_ok, p_ok), rows=rows, taken=m_g,
                     length=preds.lengths, threshold=tp)
    _credit(out, res, preds.offsets, "n_merge_preds", "n_merge_refs")
    return out


def _hopeless(ws: Workspace, tr: float, tp: float) -> tuple[np.ndarray, np.ndarray]:
    """The references that cannot claim in pass 2 and the predictions that cannot claim
    in pass 3, whatever the claims before them, from per-span bounds (no pair read).

    A span claims its candidates C when ``Σ_C overlap >= t·len`` (t: tr for a reference,
    tp for a prediction), or when ``|C| == 1`` and that one overlap alone meets it; both
    need ``Σ`` of its overlaps with *every* partner (`Workspace.overlap_sums`) to meet
    ``t·len``. And a candidate must pass the other side's test, ``c >= t'·len(other)``
    with ``c <= len``: none exists when ``len < t'·(the shortest span of the other side
    in the example)``. Such a span is decided (it claims nothing) before its pairs are
    enumerated: one reference inside many long predictions, or many short ones inside
    long references, costs no pair at all.
    """
    refs, preds = ws.refs, ws.preds
    cover_g, cover_d = ws.overlap_sums
    short_g, short_d = _shortest(refs), _shortest(preds)
    g = ~(iv.passes(cover_g, refs.lengths, tr)
          & iv.passes(refs.lengths, short_d[refs.example_ids], tp))
    d = ~(iv.passes(cover_d, preds.lengths, tp)
          & iv.passes(preds.lengths, short_g[preds.example_ids], tr))
    return g, d


def _shortest(side) -> np.ndarray:
    """The length of each example's shortest span (1 for an example without spans)."""
    out = np.ones(side.n_examples, dtype=np.int64)
    nonempty = side.counts > 0
    if nonempty.any():
        out[nonempty] = np.minimum.reduceat(side.lengths, side.offsets[:-1][nonempty])
    return out


def _tested_blocks(blocks, side: str, test, single_test):
    """Dense pair blocks as candidate columns: the pairs passing ``test``, with the
    single test of each (read lazily, so that each block sees the claims before it)."""
    for pr in blocks:
        pr = pr.select(test(pr))
        by, other = (pr.ref, pr.pred) if side == "ref" else (pr.pred, pr.ref)
        yield by, other, pr.overlap, single_test(pr)


def _credit(out, res: Claims, offsets, groups_name: str, members_name: str):
    """Add a claim pass's one-to-one matches, groups and group members per example
    (``offsets``: the examples' spans of the side the pass is by; a span's ``members``
    are 0 unless it claimed as a group)."""
    out["n_one_to_one"] += iv.segment_count(res.single, offsets)
    out[groups_name] = iv.segment_count(res.matched & ~res.single, offsets)
    out[members_name] = iv.segment_sum(res.members, offsets)


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
