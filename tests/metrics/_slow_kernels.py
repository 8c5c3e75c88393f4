"""Slow, obvious per-example implementations of the pair kernels, for property tests.

Each works on one example's canonical spans with Python integers (so spans of any
length, even beyond int64 sums, are exact) and loops over every pair.
"""

from __future__ import annotations

from fractions import Fraction

DETEVAL = ("n_one_to_one", "n_split_refs", "n_split_preds", "n_merge_refs", "n_merge_preds")


def canonical(spans):
    return sorted({(int(s), int(e)) for s, e in spans if e > s})


def overlapping(refs, preds):
    """``(g, d, overlap)`` for every overlapping pair, sorted by (g, d)."""
    return [(g, d, min(ge, de) - max(gs, ds))
            for g, (gs, ge) in enumerate(refs) for d, (ds, de) in enumerate(preds)
            if min(ge, de) > max(gs, ds)]


def deteval(refs, preds, tr=0.8, tp=0.4):
    refs, preds = canonical(refs), canonical(preds)
    s = _sequential(overlapping(refs, preds), [e - s for s, e in refs],
                    [e - s for s, e in preds], tr, tp)
    return {"n_ref": len(refs), "n_pred": len(preds), **s}


def _ratio(x):
    f = Fraction(repr(float(x)))
    return f.numerator, f.denominator


def _sequential(triples, len_g, len_d, tr, tp) -> dict[str, int]:
    """The three DetEval passes on one example, literally, in canonical order.

    ``triples`` are the overlapping ``(g, d, overlap)`` pairs sorted by (g, d).
    """
    (pr, qr), (pp, qp) = _ratio(tr), _ratio(tp)
    ov = {(g, d): o for g, d, o in triples}
    by_g: dict[int, list[int]] = {}
    by_d: dict[int, list[int]] = {}
    for g, d, _ in triples:
        by_g.setdefault(g, []).append(d)
        by_d.setdefault(d, []).append(g)
    R = lambda g, d: ov[g, d] * qr >= pr * len_g[g]  # noqa: E731
    P = lambda g, d: ov[g, d] * qp >= pp * len_d[d]  # noqa: E731
    mg, md = set(), set()
    s = dict.fromkeys(DETEVAL, 0)
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


def cleval(refs, preds, a=0.3, w=1):
    """CLEval's three passes and statistics on one example, pair by pair (integer ``w``)."""
    refs, preds = canonical(refs), canonical(preds)
    pairs = overlapping(refs, preds)
    p, q = _ratio(a)
    len_d = [e - s for s, e in preds]
    A = {(g, d) for g, d, o in pairs if o * q >= p * len_d[d]}
    row = {g: sum(1 for x, _ in A if x == g) for g in range(len(refs))}
    col = {d: sum(1 for _, y in A if y == d) for d in range(len(preds))}
    matched = set()
    for g, d, o in pairs:
        if (g, d) in A and row[g] == 1 and col[d] == 1:
            matched.add((g, d))
        if (g, d) in A and row[g] >= 2:
            matched.add((g, d))
    for d in range(len(preds)):
        over = [(g, o) for g, dd, o in pairs if dd == d]
        if len(over) >= 2 and sum(o for _, o in over) * q >= p * len_d[d]:
            matched.update((g, d) for g, _ in over)
    ov = {(g, d): o for g, d, o in pairs}
    m_g = [sum(1 for g, _ in matched if g == k) for k in range(len(refs))]
    n_d = [sum(1 for _, d in matched if d == k) for k in range(len(preds))]
    tp_chars = 0
    for k, (gs, ge) in enumerate(refs):
        pieces = sorted((max(gs, preds[d][0]), min(ge, preds[d][1]))
                        for g, d in matched if g == k)
        end = None
        for s, e in pieces:  # union length of the pieces
            if end is None or s > end:
                tp_chars += e - s
                end = e
            elif e > end:
                tp_chars += e - end
                end = e
    gran_r = sum(max(0, m - 1) for m in m_g)
    gran_p = sum(max(0, m - 1) for m in n_d)
    matched_det = sum(ov[x] for x in matched)
    fp = sum(len_d[d] for d in range(len(preds)) if n_d[d] == 0)
    return {"recall_num": max(0, tp_chars - w * gran_r), "gt_chars": sum(e - s for s, e in refs),
            "precision_num": max(0, tp_chars - w * gran_p), "det_chars": matched_det + fp,
            "tp_chars": tp_chars, "n_gran_recall": gran_r, "n_gran_precision": gran_p,
            "matched_det_chars": matched_det, "fp_chars": fp,
            "n_split_refs": sum(1 for m in m_g if m >= 2),
            "n_merge_preds": sum(1 for m in n_d if m >= 2)}
