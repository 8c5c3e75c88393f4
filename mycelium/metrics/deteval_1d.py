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
    that reproduce the sequential order exactly (see `_group_pass`). `_sequential` is
    the literal transcription, used only for pathological chains of competing spans.

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

from . import _intervals as iv
from ._base import Metric, Pairs, Param, Workspace, prf_ratios, unit, unit_open

#: Rounds of the vectorised split/merge passes before the sequential fallback.
MAX_ROUNDS = 32

STATS = ("n_ref", "n_pred", "n_one_to_one", "n_split_refs", "n_split_preds",
         "n_merge_refs", "n_merge_preds")


def statistics(ws: Workspace, params) -> dict[str, np.ndarray]:
    tr, tp = params["recall_threshold"], params["precision_threshold"]
    refs, preds, pairs = ws.refs, ws.preds, ws.pairs
    len_g = refs.lengths[pairs.ref]
    len_d = preds.lengths[pairs.pred]
    r_ok = iv.passes(pairs.overlap, len_g, tr)
    p_ok = iv.passes(pairs.overlap, len_d, tp)
    cnt_g = iv.count(pairs.ref, refs.n_spans)
    cnt_d = iv.count(pairs.pred, preds.n_spans)
    m_g = np.zeros(refs.n_spans, dtype=bool)
    m_d = np.zeros(preds.n_spans, dtype=bool)
    conflict = np.zeros(ws.n, dtype=bool)
    out = {name: np.zeros(ws.n, dtype=np.int64) for name in STATS}
    out["n_ref"], out["n_pred"] = refs.counts.copy(), preds.counts.copy()

    # Pass 1: one-to-one between spans that overlap nothing else.
    one = (cnt_g[pairs.ref] == 1) & (cnt_d[pairs.pred] == 1) & r_ok & p_ok
    m_g[pairs.ref[one]] = True
    m_d[pairs.pred[one]] = True
    oo = iv.count(pairs.example[one], ws.n)

    # Pass 2: one reference split into several predictions.
    cand = (cnt_g[pairs.ref] >= 2) & ~m_g[pairs.ref] & p_ok & ~m_d[pairs.pred]
    res = _group_pass(pairs, cand, by=pairs.ref, other=pairs.pred,
                      by_examples=refs.example_ids, n_other=preds.n_spans,
                      single_ok=r_ok, length=refs.lengths, threshold=tr, n=ws.n)
    conflict |= res["conflict"]
    m_g |= res["matched_by"]
    m_d |= res["matched_other"]
    oo += res["one"]
    out["n_split_refs"], out["n_split_preds"] = res["groups"], res["members"]

    # Pass 3: several references merged into one prediction.
    cand = (cnt_d[pairs.pred] >= 2) & ~m_d[pairs.pred] & r_ok & ~m_g[pairs.ref]
    res = _group_pass(pairs, cand, by=pairs.pred, other=pairs.ref,
                      by_examples=preds.example_ids, n_other=refs.n_spans,
                      single_ok=p_ok, length=preds.lengths, threshold=tp, n=ws.n)
    conflict |= res["conflict"]
    oo += res["one"]
    out["n_merge_preds"], out["n_merge_refs"] = res["groups"], res["members"]
    out["n_one_to_one"] = oo

    if conflict.any():
        _rescore_sequentially(ws, pairs, conflict, out, tr, tp)
    return out


def _group_pass(pairs: Pairs, cand, *, by, other, by_examples, n_other, single_ok,
                length, threshold, n):
    """Pass 2 (``by`` = references) or pass 3 (``by`` = predictions), vectorised.

    The sequential pass visits ``by`` spans in canonical order and each claims its
    candidates. A span's decision depends only on earlier spans that share one of its
    candidates, so the pass runs in rounds: every undecided span that no earlier
    undecided span competes with is decided at once, its claims are applied, and the
    rest wait for the next round. This is the sequential result exactly; chains longer
    than `MAX_ROUNDS` (adversarial nesting) fall back to `_sequential`.
    """
    n_by = by_examples.size
    out = {"conflict": np.zeros(n, dtype=bool),
           "matched_by": np.zeros(n_by, dtype=bool),
           "matched_other": np.zeros(n_other, dtype=bool),
           "one": np.zeros(n, dtype=np.int64),
           "groups": np.zeros(n, dtype=np.int64),
           "members": np.zeros(n, dtype=np.int64)}
    idx = np.flatnonzero(cand)
    for _ in range(MAX_ROUNDS):
        if idx.size == 0:
            return out
        b, o = by[idx], other[idx]
        first = np.full(n_other, n_by, dtype=np.int64)
        np.minimum.at(first, o, b)
        waiting = np.zeros(n_by, dtype=bool)
        waiting[b[first[o] != b]] = True
        ready = ~waiting[b]
        _decide(pairs, idx[ready], by, other, by_examples, single_ok, length,
                threshold, n, out)
        idx = idx[~ready]
        idx = idx[~out["matched_other"][other[idx]]]
    out["conflict"][pairs.example[idx]] = True
    return out


def _decide(pairs, sel, by, other, by_examples, single_ok, length, threshold, n, out):
    """Decide the ``by`` spans owning the candidate pairs ``sel`` (none compete)."""
    b = by[sel]
    n_cand = iv.count(b, by_examples.size)
    sum_ov = iv.group_sum(b, pairs.overlap[sel], by_examples.size)
    single = (n_cand[b] == 1) & single_ok[sel]
    multi_by = (n_cand >= 2) & iv.passes(sum_ov, np.maximum(length, 1), threshold)
    multi = multi_by[b]
    claim = sel[single | multi]
    out["matched_by"][by[claim]] = True
    out["matched_other"][other[claim]] = True
    out["one"] += iv.count(pairs.example[sel[single]], n)
    out["groups"] += iv.count(by_examples[multi_by], n)
    out["members"] += iv.count(pairs.example[sel[multi]], n)


def _rescore_sequentially(ws, pairs, conflict, out, tr, tp) -> None:
    """Replace the statistics of ``conflict`` examples by the exact sequential passes."""
    sel = conflict[pairs.example]
    sub = pairs.select(sel)
    sub = sub.select(iv.pair_order(sub.ref, sub.pred, ws.preds.n_spans))
    ref_lengths = ws.refs.lengths
    pred_lengths = ws.preds.lengths
    bounds = np.searchsorted(sub.example, np.flatnonzero(conflict), side="left")
    ends = np.searchsorted(sub.example, np.flatnonzero(conflict), side="right")
    for k, a, b in zip(np.flatnonzero(conflict).tolist(), bounds.tolist(), ends.tolist()):
        g0, d0 = int(ws.refs.offsets[k]), int(ws.preds.offsets[k])
        triples = [(int(g) - g0, int(d) - d0, int(o)) for g, d, o in
                   zip(sub.ref[a:b], sub.pred[a:b], sub.overlap[a:b])]
        stats = _sequential(triples, ref_lengths[g0:ws.refs.offsets[k + 1]].tolist(),
                            pred_lengths[d0:ws.preds.offsets[k + 1]].tolist(), tr, tp)
        for name, value in stats.items():
            out[name][k] = value


def _sequential(triples, len_g, len_d, tr, tp) -> dict[str, int]:
    """The three DetEval passes on one example, literally, in canonical order.

    ``triples`` are the overlapping ``(g, d, overlap)`` pairs sorted by (g, d).
    """
    (pr, qr), (pp, qp) = iv.threshold_ratio(tr), iv.threshold_ratio(tp)
    ov = {(g, d): o for g, d, o in triples}
    by_g: dict[int, list[int]] = {}
    by_d: dict[int, list[int]] = {}
    for g, d, _ in triples:
        by_g.setdefault(g, []).append(d)
        by_d.setdefault(d, []).append(g)
    R = lambda g, d: ov[g, d] * qr >= pr * len_g[g]  # noqa: E731
    P = lambda g, d: ov[g, d] * qp >= pp * len_d[d]  # noqa: E731
    mg, md = set(), set()
    s = dict.fromkeys(STATS[2:], 0)
    for g, d, _ in triples:
        if len(by_g[g]) == 1 and len(by_d[d]) == 1 and R(g, d) and P(g, d):
            mg.add(g)
            md.add(d)
            s["n_one_to_one"] += 1
    for g in sorted(by_g):
        if g in mg or len(by_g[g]) < 2:
            continue
        cand = [d for d in by_g[g] if d not in md and P(g, d)]
        if len(cand) == 1 and R(g, cand[0]):
            mg.add(g)
            md.add(cand[0])
            s["n_one_to_one"] += 1
        elif len(cand) >= 2 and sum(ov[g, d] for d in cand) * qr >= pr * len_g[g]:
            mg.add(g)
            md.update(cand)
            s["n_split_refs"] += 1
            s["n_split_preds"] += len(cand)
    for d in sorted(by_d):
        if d in md or len(by_d[d]) < 2:
            continue
        cand = [g for g in by_d[d] if g not in mg and R(g, d)]
        if len(cand) == 1 and P(cand[0], d):
            mg.add(cand[0])
            md.add(d)
            s["n_one_to_one"] += 1
        elif len(cand) >= 2 and sum(ov[g, d] for g in cand) * qp >= pp * len_d[d]:
            md.add(d)
            mg.update(cand)
            s["n_merge_refs"] += len(cand)
            s["n_merge_preds"] += 1
    return s


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
