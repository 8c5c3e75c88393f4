"""Slow, obviously-correct reference implementation of mycelium's six span metrics.

Written for clarity, not speed, and independently of the library: sets of character
indices for the character-level metrics, plain double loops for the instance-level
ones, and a literal transcription of the SPEC / notes pseudocode for ``deteval_1d``
and ``cleval_1d`` with every threshold decided in exact rational arithmetic.  The
aggregation (per example, macro, micro, ``zero_division``) follows SPEC.md sections
3-4.  Tests compare ``mycelium.statistics`` / ``mycelium.evaluate`` against it.

Character sets are `Chars`: the same set algebra (``|``, ``&``, ``-``, ``len``) on
sorted disjoint intervals, so the reference stays exact and cheap with offsets near
``2**62`` (Python integers never overflow).
"""

from __future__ import annotations

import math
from fractions import Fraction

METRICS = ("exact_span", "iou", "character", "deteval_1d", "cleval_1d", "span_coverage")

STAT_NAMES = {
    "exact_span": ("tp", "n_pred", "n_ref"),
    "iou": ("inter", "union"),
    "character": ("tp", "fp", "fn"),
    "span_coverage": ("n_pred_contained", "n_pred", "n_ref_covered", "n_ref"),
    "deteval_1d": (
        "n_ref", "n_pred", "n_one_to_one", "n_split_refs", "n_split_preds",
        "n_merge_refs", "n_merge_preds",
    ),
    "cleval_1d": (
        "recall_num", "gt_chars", "precision_num", "det_chars", "tp_chars",
        "n_gran_recall", "n_gran_precision", "matched_det_chars", "fp_chars",
        "n_split_refs", "n_merge_preds",
    ),
}

# Statistics the contract declares as float64 (everything else is an int64 count).
FLOAT_STATS = {("cleval_1d", "recall_num"), ("cleval_1d", "precision_num")}

MEASURES = {m: (("score",) if m == "iou" else ("precision", "recall", "f1")) for m in METRICS}

DEFAULT_PARAMS = {
    "deteval_1d": {
        "recall_threshold": 0.8,
        "precision_threshold": 0.4,
        "split_merge_credit": 0.8,
        "merge_credit": None,
    },
    "cleval_1d": {"area_precision_threshold": 0.3, "granularity_penalty_weight": 1.0},
}


def exact(x) -> Fraction:
    """The decimal a user meant by a float parameter: ``0.8`` is exactly 4/5."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    return Fraction(repr(float(x)))


def full_params(params=None) -> dict:
    """Defaults overlaid with the user's per-metric settings."""
    out = {m: dict(v) for m, v in DEFAULT_PARAMS.items()}
    for metric, values in (params or {}).items():
        out[metric].update(values)
    return out


# --------------------------------------------------------------------------------------
# Preprocessing (SPEC section 2)
# --------------------------------------------------------------------------------------


def clean(spans) -> list[tuple[int, int]]:
    """A side as the SPEC defines it: a set, zero-length spans dropped, sorted."""
    kept = set()
    for s, e in spans:
        s, e = int(s), int(e)
        assert 0 <= s <= e, (s, e)
        if s < e:
            kept.add((s, e))
    return sorted(kept)


class Chars:
    """A set of character indices held as sorted, disjoint, non-touching intervals."""

    def __init__(self, intervals=()):
        merged: list[list[int]] = []
        for s, e in sorted((int(s), int(e)) for s, e in intervals if s < e):
            if merged and s <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        self.intervals = [tuple(x) for x in merged]

    def __len__(self) -> int:
        return sum(e - s for s, e in self.intervals)

    def __or__(self, other: "Chars") -> "Chars":
        return Chars(self.intervals + other.intervals)

    def __and__(self, other: "Chars") -> "Chars":
        return Chars((max(a, c), min(b, d)) for a, b in self.intervals
                     for c, d in other.intervals if max(a, c) < min(b, d))

    def __sub__(self, other: "Chars") -> "Chars":
        return Chars(p for iv in self.intervals for p in _minus(iv, other.intervals))

    def __eq__(self, other) -> bool:
        return isinstance(other, Chars) and self.intervals == other.intervals


def _minus(interval, cuts):
    pieces = [interval]
    for c, d in cuts:
        pieces = [p for a, b in pieces for p in ((a, min(b, c)), (max(a, d), b)) if p[0] < p[1]]
    return pieces


def chars(spans) -> Chars:
    """The merged character mask of a side, as a set of character indices."""
    return Chars(spans)


def length(span) -> int:
    return span[1] - span[0]


def overlap(a, b) -> int:
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))


# --------------------------------------------------------------------------------------
# Per-example statistics
# --------------------------------------------------------------------------------------


def exact_span_stats(refs, preds, params=None) -> dict:
    G, D = clean(refs), clean(preds)
    tp = 0
    for g in G:
        for d in D:
            if g == d:
                tp += 1
    return {"tp": tp, "n_pred": len(D), "n_ref": len(G)}


def iou_stats(refs, preds, params=None) -> dict:
    g, d = chars(clean(refs)), chars(clean(preds))
    return {"inter": len(g & d), "union": len(g | d)}


def character_stats(refs, preds, params=None) -> dict:
    g, d = chars(clean(refs)), chars(clean(preds))
    return {"tp": len(g & d), "fp": len(d - g), "fn": len(g - d)}


def span_coverage_stats(refs, preds, params=None) -> dict:
    G, D = clean(refs), clean(preds)

    def contains(g, p):
        return g[0] <= p[0] and p[1] <= g[1]

    n_pred_contained = 0
    for p in D:
        if any(contains(g, p) for g in G):
            n_pred_contained += 1
    n_ref_covered = 0
    for g in G:
        if any(contains(g, p) for p in D):
            n_ref_covered += 1
    return {
        "n_pred_contained": n_pred_contained,
        "n_pred": len(D),
        "n_ref_covered": n_ref_covered,
        "n_ref": len(G),
    }


def deteval_1d_stats(refs, preds, params=None) -> dict:
    """Literal transcription of notes/deteval_cleval.md section 4.2."""
    p = full_params(params)["deteval_1d"]
    tr, tp = exact(p["recall_threshold"]), exact(p["precision_threshold"])
    G, D = clean(refs), clean(preds)
    nG, nD = len(G), len(D)
    ov = [[overlap(G[i], D[j]) for j in range(nD)] for i in range(nG)]
    R = [[Fraction(ov[i][j], length(G[i])) for j in range(nD)] for i in range(nG)]
    P = [[Fraction(ov[i][j], length(D[j])) for j in range(nD)] for i in range(nG)]
    cntG = [sum(1 for j in range(nD) if ov[i][j] > 0) for i in range(nG)]
    cntD = [sum(1 for i in range(nG) if ov[i][j] > 0) for j in range(nD)]
    matchedG = [False] * nG
    matchedD = [False] * nD
    oo = split_refs = split_preds = merge_refs = merge_preds = 0

    # pass 1: one-to-one
    for i in range(nG):
        for j in range(nD):
            if cntG[i] == 1 and cntD[j] == 1 and R[i][j] >= tr and P[i][j] >= tp:
                matchedG[i] = matchedD[j] = True
                oo += 1

    # pass 2: one ref -> many preds (split)
    for i in range(nG):
        if matchedG[i] or cntG[i] < 2:
            continue
        C = [j for j in range(nD) if not matchedD[j] and P[i][j] >= tp]
        if len(C) == 1:
            if R[i][C[0]] >= tr:
                matchedG[i] = matchedD[C[0]] = True
                oo += 1
        elif len(C) >= 2 and sum(R[i][j] for j in C) >= tr:
            matchedG[i] = True
            for j in C:
                matchedD[j] = True
            split_refs += 1
            split_preds += len(C)

    # pass 3: many refs -> one pred (merge)
    for j in range(nD):
        if matchedD[j] or cntD[j] < 2:
            continue
        C = [i for i in range(nG) if not matchedG[i] and R[i][j] >= tr]
        if len(C) == 1:
            if P[C[0]][j] >= tp:
                matchedG[C[0]] = matchedD[j] = True
                oo += 1
        elif len(C) >= 2 and sum(P[i][j] for i in C) >= tp:
            matchedD[j] = True
            for i in C:
                matchedG[i] = True
            merge_refs += len(C)
            merge_preds += 1

    return {
        "n_ref": nG,
        "n_pred": nD,
        "n_one_to_one": oo,
        "n_split_refs": split_refs,
        "n_split_preds": split_preds,
        "n_merge_refs": merge_refs,
        "n_merge_preds": merge_preds,
    }


def cleval_1d_stats(refs, preds, params=None) -> dict:
    """Literal transcription of notes/deteval_cleval.md section 4.3 (length mode)."""
    p = full_params(params)["cleval_1d"]
    a, w = exact(p["area_precision_threshold"]), exact(p["granularity_penalty_weight"])
    G, D = clean(refs), clean(preds)
    nG, nD = len(G), len(D)
    c = [[overlap(G[i], D[j]) for j in range(nD)] for i in range(nG)]
    ap = [[Fraction(c[i][j], length(D[j])) for j in range(nD)] for i in range(nG)]
    A = [[c[i][j] > 0 and ap[i][j] >= a for j in range(nD)] for i in range(nG)]

    def rowcount(i):
        return sum(1 for j in range(nD) if A[i][j])

    def colcount(j):
        return sum(1 for i in range(nG) if A[i][j])

    M: set[tuple[int, int]] = set()
    # M1: one-to-one
    for i in range(nG):
        for j in range(nD):
            if A[i][j] and rowcount(i) == 1 and colcount(j) == 1:
                M.add((i, j))
    # M2: one ref, several A-true preds
    for i in range(nG):
        Dg = [j for j in range(nD) if A[i][j]]
        if len(Dg) >= 2:
            M.update((i, j) for j in Dg)
    # M3: one pred over several refs
    for j in range(nD):
        Gd = [i for i in range(nG) if c[i][j] > 0]
        if len(Gd) >= 2 and sum(ap[i][j] for i in Gd) >= a:
            M.update((i, j) for i in Gd)

    m = [sum(1 for j in range(nD) if (i, j) in M) for i in range(nG)]
    n = [sum(1 for i in range(nG) if (i, j) in M) for j in range(nD)]
    tp_chars = 0
    for i in range(nG):
        covered = Chars()
        for j in range(nD):
            if (i, j) in M:
                covered |= chars([G[i]]) & chars([D[j]])
        tp_chars += len(covered)
    n_gran_recall = sum(max(0, mi - 1) for mi in m)
    n_gran_precision = sum(max(0, nj - 1) for nj in n)
    gt_chars = sum(length(g) for g in G)
    matched_det_chars = sum(c[i][j] for (i, j) in M)
    fp_chars = sum(length(D[j]) for j in range(nD) if n[j] == 0)
    return {
        "recall_num": max(Fraction(0), tp_chars - w * n_gran_recall),
        "gt_chars": gt_chars,
        "precision_num": max(Fraction(0), tp_chars - w * n_gran_precision),
        "det_chars": matched_det_chars + fp_chars,
        "tp_chars": tp_chars,
        "n_gran_recall": n_gran_recall,
        "n_gran_precision": n_gran_precision,
        "matched_det_chars": matched_det_chars,
        "fp_chars": fp_chars,
        "n_split_refs": sum(1 for mi in m if mi >= 2),
        "n_merge_preds": sum(1 for nj in n if nj >= 2),
    }


STATISTICS = {
    "exact_span": exact_span_stats,
    "iou": iou_stats,
    "character": character_stats,
    "deteval_1d": deteval_1d_stats,
    "cleval_1d": cleval_1d_stats,
    "span_coverage": span_coverage_stats,
}


def example_statistics(refs, preds, params=None, metrics=METRICS) -> dict:
    """{metric: {stat: value}} for one example (values are ints or Fractions)."""
    return {m: STATISTICS[m](refs, preds, params) for m in metrics}


def batch_statistics(references, predictions, params=None, metrics=METRICS) -> dict:
    """{metric: {stat: [value per example]}} for a batch."""
    assert len(references) == len(predictions)
    per = [example_statistics(r, p, params, metrics) for r, p in zip(references, predictions)]
    return {m: {s: [e[m][s] for e in per] for s in STAT_NAMES[m]} for m in metrics}


# --------------------------------------------------------------------------------------
# Measures and aggregation (SPEC sections 3-4)
# --------------------------------------------------------------------------------------


def ratios(metric, st, params=None):
    """(numerator, denominator) pairs of a metric's measures, from its statistics."""
    if metric == "iou":
        return {"score": (st["inter"], st["union"])}
    if metric == "exact_span":
        prec, rec = (st["tp"], st["n_pred"]), (st["tp"], st["n_ref"])
    elif metric == "character":
        prec = (st["tp"], st["tp"] + st["fp"])
        rec = (st["tp"], st["tp"] + st["fn"])
    elif metric == "span_coverage":
        prec = (st["n_pred_contained"], st["n_pred"])
        rec = (st["n_ref_covered"], st["n_ref"])
    elif metric == "deteval_1d":
        p = full_params(params)["deteval_1d"]
        k = exact(p["split_merge_credit"])
        km = k if p.get("merge_credit") is None else exact(p["merge_credit"])
        oo = st["n_one_to_one"]
        prec = (oo + k * st["n_split_preds"] + km * st["n_merge_preds"], st["n_pred"])
        rec = (oo + k * st["n_split_refs"] + km * st["n_merge_refs"], st["n_ref"])
    elif metric == "cleval_1d":
        prec = (st["precision_num"], st["det_chars"])
        rec = (st["recall_num"], st["gt_chars"])
    else:
        raise KeyError(metric)
    return {"precision": prec, "recall": rec}


NAN = float("nan")


def _zd_value(zero_division):
    if zero_division == "nan":
        return None
    assert zero_division in (0.0, 1.0), zero_division
    return Fraction(int(zero_division))


def measures(metric, st, zero_division=0.0, params=None) -> dict:
    """Measures (Python floats, NaN for a left-out value) from (summed) statistics."""
    r = ratios(metric, st, params)
    if metric == "iou":
        inter, union = r["score"]
        # Official Mu-SHROOM: IoU is 1.0 when both sides are empty (union 0).
        return {"score": 1.0 if union == 0 else float(Fraction(inter) / Fraction(union))}
    values = {}
    for name in ("precision", "recall"):
        num, den = r[name]
        if den == 0:
            assert num == 0, (metric, name, num)
            values[name] = _zd_value(zero_division)  # None = NaN
        else:
            values[name] = Fraction(num) / Fraction(den)
    P, R = values["precision"], values["recall"]
    if P is None or R is None:
        f1 = NAN
    elif P + R == 0:
        f1 = 0.0
    else:
        f1 = float(2 * P * R / (P + R))  # = 2ac/(ad+bc), one rounding
    return {
        "precision": NAN if P is None else float(P),
        "recall": NAN if R is None else float(R),
        "f1": f1,
    }


def per_example(stats, zero_division=0.0, params=None) -> list[dict]:
    """One {metric: {measure: float}} dict per example of a batch_statistics result."""
    metrics = list(stats)
    n = len(next(iter(stats[metrics[0]].values())))
    out = []
    for k in range(n):
        out.append(
            {
                m: measures(m, {s: v[k] for s, v in stats[m].items()}, zero_division, params)
                for m in metrics
            }
        )
    return out


def aggregate(stats, average="macro", zero_division=0.0, params=None) -> dict:
    """Reference of ``mycelium.core.aggregate.aggregate``: macro or micro report numbers."""
    out = {}
    if average == "micro":
        for m, cols in stats.items():
            summed = {s: sum(v, Fraction(0)) for s, v in cols.items()}
            out[m] = measures(m, summed, zero_division, params)
        return out
    assert average == "macro", average
    rows = per_example(stats, zero_division, params)
    for m in stats:
        out[m] = {}
        for name in MEASURES[m]:
            vals = [row[m][name] for row in rows if not math.isnan(row[m][name])]
            out[m][name] = math.fsum(vals) / len(vals) if vals else NAN
    return out


def evaluate(references, predictions, *, average="macro", zero_division=0.0, params=None,
             metrics=METRICS) -> dict:
    """Reference of the metric part of ``mycelium.evaluate`` for a batch (no meta)."""
    stats = batch_statistics(references, predictions, params, metrics)
    return aggregate(stats, average=average, zero_division=zero_division, params=params)
