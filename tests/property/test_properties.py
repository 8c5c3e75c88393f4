"""Property tests for every metric: agreement with the slow reference implementation,
split / order / duplicate-dataset invariance, identity, range, symmetry, merge
invariance of the character metrics, and huge offsets (interval arithmetic)."""

from __future__ import annotations

import json
import math
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import reference as ref  # noqa: E402

import mycelium  # noqa: E402
from mycelium.core.aggregate import aggregate as core_aggregate  # noqa: E402
from mycelium.core.aggregate import per_example as core_per_example  # noqa: E402

METRICS = list(ref.METRICS)
AVERAGES = ("macro", "micro")
ZERO_DIVISIONS = (0.0, 1.0, "nan")
TOL = 1e-12
HI = 40  # largest offset of the generated spans

SETTINGS = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

# --------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------


def _clamp(x):
    return max(0, min(HI, x))


@st.composite
def span_sets(draw, max_spans=5):
    """0-5 spans in [0, 40], with duplicates, zero-length, adjacent, nested, overlapping."""
    n = draw(st.integers(0, max_spans))
    spans: list[list[int]] = []
    for _ in range(n):
        kind = draw(st.sampled_from(
            ["random", "random", "zero", "duplicate", "adjacent", "nested", "overlap"]))
        if not spans or kind in ("random", "zero"):
            s = draw(st.integers(0, HI))
            e = s if kind == "zero" else draw(st.integers(s, HI))
        else:
            ps, pe = draw(st.sampled_from(spans))
            if kind == "duplicate":
                s, e = ps, pe
            elif kind == "adjacent":
                if draw(st.booleans()):
                    s, e = pe, _clamp(pe + draw(st.integers(0, 10)))
                else:
                    s, e = _clamp(ps - draw(st.integers(0, 10))), ps
            elif kind == "nested":
                s = draw(st.integers(ps, pe))
                e = draw(st.integers(s, pe))
            else:  # overlap, sticking out on one side
                s = _clamp(ps + draw(st.integers(-6, 6)))
                e = _clamp(pe + draw(st.integers(-6, 6)))
                s, e = min(s, e), max(s, e)
        spans.append([s, e])
    return spans


@st.composite
def derived_predictions(draw, refs):
    """Predictions made from the references: shifted, split, merged, dropped, duplicated."""
    out: list[list[int]] = []
    for s, e in refs:
        op = draw(st.sampled_from(["keep", "shift", "split", "drop", "dup"]))
        if op == "keep":
            out.append([s, e])
        elif op == "shift":
            a = _clamp(s + draw(st.integers(-3, 3)))
            b = _clamp(e + draw(st.integers(-3, 3)))
            out.append([min(a, b), max(a, b)])
        elif op == "split":
            cut = draw(st.integers(s, e))
            gap = draw(st.integers(0, 1))
            out += [[s, cut], [min(cut + gap, e), e]]
        elif op == "dup":
            out += [[s, e], [s, e]]
    if len(refs) >= 2 and draw(st.booleans()):
        i = draw(st.integers(0, len(refs) - 2))
        out.append([min(refs[i][0], refs[i + 1][0]), max(refs[i][1], refs[i + 1][1])])
    out += draw(span_sets(max_spans=2))
    return out[:8]


@st.composite
def tilings(draw):
    """Refs cut from a tiling of [0, 40]; preds covering runs of pieces (merges) or
    cutting pieces further (splits), with small boundary jitter."""
    cuts = sorted(set(draw(st.lists(st.integers(0, HI), min_size=2, max_size=6))))
    pieces = [[a, b] for a, b in zip(cuts, cuts[1:])]
    refs = [p for p in pieces if draw(st.integers(0, 4))]  # mostly kept, with gaps
    preds: list[list[int]] = []
    i = 0
    while i < len(pieces):
        run = draw(st.integers(1, 3))
        s, e = pieces[i][0], pieces[min(i + run, len(pieces)) - 1][1]
        if draw(st.booleans()):
            s, e = _clamp(s + draw(st.integers(-1, 1))), _clamp(e + draw(st.integers(-1, 1)))
        if draw(st.integers(0, 3)) == 0 and e - s >= 2:
            cut = draw(st.integers(s + 1, e - 1))
            preds += [[s, cut], [cut, e]]
        elif s <= e:
            preds.append([s, e])
        i += run
    return refs, preds


@st.composite
def examples(draw):
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(tilings())
    refs = draw(span_sets())
    if kind == 1:
        preds = draw(derived_predictions(refs))
    else:
        preds = draw(span_sets())
    if draw(st.booleans()):
        refs, preds = preds, refs
    return refs, preds


@st.composite
def batches(draw, min_size=1, max_size=6):
    """(references, predictions, texts or None) of a batch of 1-6 examples."""
    exs = draw(st.lists(examples(), min_size=min_size, max_size=max_size))
    refs = [r for r, _ in exs]
    preds = [p for _, p in exs]
    texts = None
    if draw(st.booleans()):
        texts = []
        for r, p in exs:
            need = max([e for _, e in r + p], default=0)
            texts.append("x" * (need + draw(st.integers(0, 3))))
    return refs, preds, texts


params_strategy = st.fixed_dictionaries({
    "deteval_1d": st.fixed_dictionaries({
        "recall_threshold": st.sampled_from([0.5, 0.8, 1.0]),
        "precision_threshold": st.sampled_from([0.25, 0.4, 1.0]),
        "split_merge_credit": st.sampled_from([0.0, 0.5, 0.8, 1.0]),
        "merge_credit": st.sampled_from([None, 0.5, 1.0]),
    }),
    "cleval_1d": st.fixed_dictionaries({
        "area_precision_threshold": st.sampled_from([0.25, 0.3, 0.5, 1.0]),
        "granularity_penalty_weight": st.sampled_from([0.0, 0.5, 1.0, 2.0]),
    }),
})

# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def core_stats(refs, preds, **kw):
    return mycelium.statistics(refs, preds, metrics=METRICS, **kw)


def report_measures(report):
    return {m: report[m] for m in METRICS}


def close(a, b, tol=TOL):
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    if isinstance(b, float) and math.isnan(b):
        return False
    return abs(a - b) <= tol


def same(a, b):
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b


def assert_measures(got, expected, *, tol=TOL, where=""):
    assert set(got) == set(expected), where
    for m, values in expected.items():
        assert set(got[m]) == set(values), (where, m)
        for k, v in values.items():
            ok = same(got[m][k], v) if tol == 0 else close(got[m][k], v, tol)
            assert ok, f"{where} {m}.{k}: got {got[m][k]!r}, expected {v!r}"


def assert_stats_match_reference(core, expected, n):
    assert set(core) == set(expected)
    for m, cols in expected.items():
        assert set(core[m]) == set(ref.STAT_NAMES[m]), m
        for s, values in cols.items():
            arr = core[m][s]
            assert isinstance(arr, np.ndarray) and arr.shape == (n,), (m, s)
            if (m, s) in ref.FLOAT_STATS:
                # int64 when the penalty weight is a whole number (exact engine sums),
                # float64 otherwise
                assert arr.dtype in (np.float64, np.int64), (m, s, arr.dtype)
                if arr.dtype == np.int64:
                    assert all(float(e).is_integer() for e in values), (m, s)
                for k, (g, e) in enumerate(zip(arr.tolist(), values)):
                    assert close(g, float(e)), f"{m}.{s}[{k}]: got {g}, expected {e}"
            else:
                assert arr.dtype == np.int64, (m, s, arr.dtype)
                assert arr.tolist() == [int(v) for v in values], (m, s)


def assert_stats_identical(a, b):
    assert set(a) == set(b)
    for m in a:
        assert set(a[m]) == set(b[m]), m
        for s in a[m]:
            assert a[m][s].dtype == b[m][s].dtype, (m, s)
            assert np.array_equal(a[m][s], b[m][s]), (m, s, a[m][s], b[m][s])


def concat_stats(*parts):
    return {m: {s: np.concatenate([p[m][s] for p in parts]) for s in parts[0][m]}
            for m in parts[0]}


def take_stats(stats, order):
    return {m: {s: v[np.asarray(order, dtype=np.int64)] for s, v in cols.items()}
            for m, cols in stats.items()}


def all_measures(report):
    for m in METRICS:
        for k, v in report[m].items():
            yield m, k, v


# --------------------------------------------------------------------------------------
# (a) agreement with the reference implementation
# --------------------------------------------------------------------------------------


@SETTINGS
@given(batches())
def test_statistics_match_reference(batch):
    refs, preds, texts = batch
    got = core_stats(refs, preds, text=texts)
    assert_stats_match_reference(got, ref.batch_statistics(refs, preds), len(refs))


@SETTINGS
@given(batches(), params_strategy)
def test_statistics_match_reference_with_params(batch, params):
    refs, preds, _ = batch
    got = core_stats(refs, preds, params=params)
    assert_stats_match_reference(got, ref.batch_statistics(refs, preds, params), len(refs))
    for avg in AVERAGES:
        report = mycelium.evaluate(refs, preds, metrics=METRICS, params=params, average=avg)
        expected = ref.evaluate(refs, preds, average=avg, params=params)
        assert_measures(report_measures(report), expected, where=avg)


@SETTINGS
@given(batches())
def test_evaluate_matches_reference(batch):
    refs, preds, texts = batch
    stats = ref.batch_statistics(refs, preds)
    core = core_stats(refs, preds, text=texts)
    for zd in ZERO_DIVISIONS:
        # mycelium.core.aggregate.per_example: {metric: {measure: array}}
        columns = core_per_example(core, zero_division=zd)
        for k, exp in enumerate(ref.per_example(stats, zero_division=zd)):
            row = {m: {q: float(v[k]) for q, v in cols.items()} for m, cols in columns.items()}
            assert_measures(row, exp, where=f"per_example zero_division={zd} example {k}")
        for avg in AVERAGES:
            report = mycelium.evaluate(refs, preds, text=texts, metrics=METRICS, average=avg,
                                       zero_division=zd, include_per_example=True)
            where = f"average={avg} zero_division={zd}"
            assert_measures(report_measures(report),
                            ref.aggregate(stats, average=avg, zero_division=zd), where=where)
            expected_rows = ref.per_example(stats, zero_division=zd)
            assert len(report["per_example"]) == len(refs)
            for k, (row, exp) in enumerate(zip(report["per_example"], expected_rows)):
                assert_measures(row, exp, where=f"{where} example {k}")
            assert report["meta"]["examples"] == len(refs)
            assert report["meta"]["average"] == avg
            json.dumps(report)


# --------------------------------------------------------------------------------------
# (b) split invariance
# --------------------------------------------------------------------------------------


@SETTINGS
@given(batches(), batches())
def test_split_invariance(a, b):
    ra, pa, _ = a
    rb, pb, _ = b
    whole = core_stats(ra + rb, pa + pb)
    parts = concat_stats(core_stats(ra, pa), core_stats(rb, pb))
    assert_stats_identical(whole, parts)
    for zd in ZERO_DIVISIONS:
        for avg in AVERAGES:
            report = mycelium.evaluate(ra + rb, pa + pb, metrics=METRICS, average=avg,
                                       zero_division=zd)
            combined = core_aggregate(parts, average=avg, zero_division=zd)
            assert_measures(combined, report_measures(report), tol=0,
                            where=f"average={avg} zero_division={zd}")


# --------------------------------------------------------------------------------------
# (c) order invariance: spans within a side, and examples
# --------------------------------------------------------------------------------------


@st.composite
def permuted_batches(draw):
    refs, preds, _ = draw(batches())
    order = draw(st.permutations(range(len(refs))))
    new_refs = [draw(st.permutations(refs[k])) for k in order]
    new_preds = [draw(st.permutations(preds[k])) for k in order]
    return (refs, preds), (new_refs, new_preds), order


@SETTINGS
@given(permuted_batches())
def test_order_invariance(case):
    (refs, preds), (prefs, ppreds), order = case
    base = core_stats(refs, preds)
    perm = core_stats(prefs, ppreds)
    assert_stats_identical(perm, take_stats(base, order))
    for zd in ZERO_DIVISIONS:
        for avg in AVERAGES:
            kw = dict(metrics=METRICS, average=avg, zero_division=zd)
            a = report_measures(mycelium.evaluate(refs, preds, **kw))
            b = report_measures(mycelium.evaluate(prefs, ppreds, **kw))
            # macro: the summation order of the mean changes; micro sums integers.
            assert_measures(b, a, tol=TOL if avg == "macro" else 0,
                            where=f"average={avg} zero_division={zd}")


# --------------------------------------------------------------------------------------
# (d) scoring a dataset twice
# --------------------------------------------------------------------------------------


@SETTINGS
@given(batches())
def test_duplicate_dataset_invariance(batch):
    refs, preds, texts = batch
    texts2 = None if texts is None else texts + texts
    for zd in ZERO_DIVISIONS:
        for avg in AVERAGES:
            kw = dict(metrics=METRICS, average=avg, zero_division=zd)
            once = mycelium.evaluate(refs, preds, text=texts, **kw)
            twice = mycelium.evaluate(refs + refs, preds + preds, text=texts2, **kw)
            assert twice["meta"]["examples"] == 2 * once["meta"]["examples"]
            assert_measures(report_measures(twice), report_measures(once),
                            tol=TOL if avg == "macro" else 0,
                            where=f"average={avg} zero_division={zd}")


# --------------------------------------------------------------------------------------
# (e) identity
# --------------------------------------------------------------------------------------


def _pairwise_disjoint(spans):
    clean = ref.clean(spans)
    return all(a[1] <= b[0] for a, b in zip(clean, clean[1:]))


@SETTINGS
@given(st.lists(span_sets(), min_size=1, max_size=6))
def test_identity(refs):
    for zd in ZERO_DIVISIONS:
        report = mycelium.evaluate(refs, refs, metrics=METRICS, zero_division=zd,
                                   include_per_example=True)
        for k, (spans, row) in enumerate(zip(refs, report["per_example"])):
            assert row["iou"] == {"score": 1.0}, k
            if not ref.clean(spans):
                continue
            perfect = ["exact_span", "character", "span_coverage"]
            # Overlapping spans within a side are separate instances for the
            # detection metrics (SPEC section 2), so x against x is only perfect
            # there when the spans of x are pairwise disjoint.
            if _pairwise_disjoint(spans):
                perfect += ["deteval_1d", "cleval_1d"]
            for m in perfect:
                assert row[m] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}, (k, m)
        for avg in AVERAGES:
            rep = mycelium.evaluate(refs, refs, metrics=METRICS, zero_division=1.0,
                                    average=avg)
            assert rep["iou"]["score"] == 1.0
            for m in ("exact_span", "character", "span_coverage"):
                assert rep[m] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}, (avg, m)


# --------------------------------------------------------------------------------------
# (f) range
# --------------------------------------------------------------------------------------


@SETTINGS
@given(batches(), params_strategy)
def test_measures_in_unit_interval(batch, params):
    refs, preds, _ = batch
    for zd in ZERO_DIVISIONS:
        for avg in AVERAGES:
            report = mycelium.evaluate(refs, preds, metrics=METRICS, average=avg,
                                       zero_division=zd, params=params,
                                       include_per_example=True)
            rows = [report] + report["per_example"]
            for row in rows:
                for m, k, v in all_measures(row):
                    assert type(v) is float, (m, k, v)
                    if math.isnan(v):
                        assert zd == "nan" and m != "iou", (m, k, avg, zd)
                    else:
                        assert 0.0 <= v <= 1.0, (m, k, v, avg, zd)


# --------------------------------------------------------------------------------------
# (g) symmetry
# --------------------------------------------------------------------------------------


@SETTINGS
@given(batches())
def test_symmetry(batch):
    refs, preds, _ = batch
    fwd = core_stats(refs, preds)
    bwd = core_stats(preds, refs)
    for s in ("inter", "union"):
        assert np.array_equal(fwd["iou"][s], bwd["iou"][s])
    assert np.array_equal(fwd["character"]["tp"], bwd["character"]["tp"])
    assert np.array_equal(fwd["character"]["fp"], bwd["character"]["fn"])
    assert np.array_equal(fwd["character"]["fn"], bwd["character"]["fp"])
    assert np.array_equal(fwd["exact_span"]["tp"], bwd["exact_span"]["tp"])
    for zd in ZERO_DIVISIONS:
        for avg in AVERAGES:
            kw = dict(metrics=["iou", "character", "exact_span"], average=avg,
                      zero_division=zd)
            a = mycelium.evaluate(refs, preds, **kw)
            b = mycelium.evaluate(preds, refs, **kw)
            assert same(a["iou"]["score"], b["iou"]["score"])
            for m in ("character", "exact_span"):
                assert same(a[m]["precision"], b[m]["recall"]), (m, avg, zd)
                assert same(a[m]["recall"], b[m]["precision"]), (m, avg, zd)
                # F1 = 2ac/(ad+bc) is symmetric with a single rounding.
                assert same(a[m]["f1"], b[m]["f1"]), (m, avg, zd)


# --------------------------------------------------------------------------------------
# (h) character metrics ignore how a side's mask is cut into spans
# --------------------------------------------------------------------------------------


def merge_spans(spans):
    """Union of overlapping or adjacent spans (zero-length ones dropped)."""
    out: list[list[int]] = []
    for s, e in ref.clean(spans):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


@SETTINGS
@given(batches())
def test_character_metrics_invariant_under_merging(batch):
    refs, preds, _ = batch
    mrefs = [merge_spans(r) for r in refs]
    mpreds = [merge_spans(p) for p in preds]
    a = mycelium.statistics(refs, preds, metrics=["iou", "character"])
    for r2, p2 in ((mrefs, preds), (refs, mpreds), (mrefs, mpreds)):
        b = mycelium.statistics(r2, p2, metrics=["iou", "character"])
        assert_stats_identical(a, b)
    for avg in AVERAGES:
        kw = dict(metrics=["iou", "character"], average=avg)
        assert mycelium.evaluate(refs, preds, **kw) == {
            **mycelium.evaluate(mrefs, mpreds, **kw),
            "meta": mycelium.evaluate(refs, preds, **kw)["meta"],
        }


# --------------------------------------------------------------------------------------
# Huge offsets: cost depends on the number of spans, never their lengths
# --------------------------------------------------------------------------------------

_HUGE_SCRIPT = """
import json, mycelium
r = mycelium.evaluate([[0, 2**62]], [[0, 2**61]])
s = mycelium.statistics([[0, 2**62]], [[0, 2**61]], metrics=["iou", "character"])
print(json.dumps({"report": r, "inter": int(s["iou"]["inter"][0]),
                  "union": int(s["iou"]["union"][0]), "fn": int(s["character"]["fn"][0])}))
"""


def test_huge_span_is_scored_quickly_and_exactly():
    # Run in a child process: a per-character implementation would hang or exhaust
    # memory; the timeout turns that into a failure instead of a stuck test run.
    proc = subprocess.run([sys.executable, "-c", _HUGE_SCRIPT], capture_output=True,
                          text=True, timeout=120, cwd=str(pathlib.Path(__file__).parents[2]))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["inter"] == 2**61 and out["union"] == 2**62 and out["fn"] == 2**61
    r = out["report"]
    assert r["iou"] == {"score": 0.5}
    assert r["character"] == {"precision": 1.0, "recall": 0.5, "f1": 2 / 3}
    assert r["exact_span"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert r["span_coverage"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    assert r["deteval_1d"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}  # R = 0.5
    assert r["cleval_1d"] == {"precision": 1.0, "recall": 0.5, "f1": 2 / 3}


def _merged(spans):
    return [(s, e) for s, e in merge_spans(spans)]


def interval_char_stats(refs, preds):
    """iou / character statistics by interval arithmetic (no character sets)."""
    g, d = _merged(refs), _merged(preds)
    size_g = sum(e - s for s, e in g)
    size_d = sum(e - s for s, e in d)
    # merged intervals are disjoint within a side, so pairwise overlaps add up
    inter = sum(ref.overlap(a, b) for a in g for b in d)
    return {
        "iou": {"inter": inter, "union": size_g + size_d - inter},
        "character": {"tp": inter, "fp": size_d - inter, "fn": size_g - inter},
    }


def test_interval_check_agrees_with_reference_on_small_spans():
    refs = [[0, 5], [3, 9], [9, 12], [20, 20], [30, 35]]
    preds = [[1, 4], [4, 4], [8, 25], [8, 25], [34, 40]]
    got = interval_char_stats(refs, preds)
    assert got["iou"] == ref.iou_stats(refs, preds)
    assert got["character"] == ref.character_stats(refs, preds)


BIG = 2**62


@st.composite
def huge_examples(draw):
    """Examples whose spans sit near 2**62, or span most of [0, 2**62 + 40]."""
    base = draw(st.sampled_from([BIG - HI, BIG, BIG + 1]))
    refs = [[s + base, e + base] for s, e in draw(span_sets())]
    preds = [[s + base, e + base] for s, e in draw(span_sets())]
    giant = draw(st.sampled_from(["none", "refs", "preds", "both"]))
    if giant in ("refs", "both"):
        refs.append([draw(st.integers(0, 5)), base + draw(st.integers(0, HI))])
    if giant in ("preds", "both"):
        preds.append([draw(st.integers(0, 5)), base + draw(st.integers(0, HI))])
    return refs, preds, base, giant == "none"


@settings(max_examples=40, deadline=None)
@given(st.lists(huge_examples(), min_size=1, max_size=4))
def test_huge_offsets_against_interval_arithmetic(exs):
    refs = [r for r, _, _, _ in exs]
    preds = [p for _, p, _, _ in exs]
    got = core_stats(refs, preds)
    for k, (r, p, base, local) in enumerate(exs):
        expected = interval_char_stats(r, p)
        # instance-level metrics of the reference use no character sets
        for m in ("exact_span", "span_coverage", "deteval_1d"):
            expected[m] = ref.STATISTICS[m](r, p)
        if local:  # cleval_1d is translation invariant: score the shifted copy
            shift = lambda spans: [[s - base + HI, e - base + HI] for s, e in spans]  # noqa: E731
            expected["cleval_1d"] = ref.cleval_1d_stats(shift(r), shift(p))
        for m, cols in expected.items():
            for s, v in cols.items():
                g = got[m][s][k]
                if (m, s) in ref.FLOAT_STATS:
                    assert float(g) == pytest.approx(float(v), rel=1e-15), (k, m, s)
                else:
                    assert int(g) == v, (k, m, s, int(g), v)
    # the report, from the exact statistics
    unions = sum(interval_char_stats(r, p)["iou"]["union"] for r, p, _, _ in exs)
    # batch sums beyond int64 are the subject of test_huge_micro_sums_beyond_int64
    for avg in AVERAGES if unions < 2**63 else ("macro",):
        report = mycelium.evaluate(refs, preds, metrics=["iou", "character"], average=avg)
        ex_stats = {m: {s: [interval_char_stats(r, p)[m][s] for r, p, _, _ in exs]
                        for s in ref.STAT_NAMES[m]} for m in ("iou", "character")}
        expected = ref.aggregate(ex_stats, average=avg)
        assert_measures({m: report[m] for m in ("iou", "character")}, expected, where=avg)


def test_huge_micro_sums_beyond_int64():
    # Three examples of 2**62 characters: the batch sums (3 * 2**62) exceed int64.
    refs = [[[0, BIG]]] * 3
    preds = [[[0, BIG // 2]]] * 3
    report = mycelium.evaluate(refs, preds, metrics=["iou", "character", "cleval_1d"],
                               average="micro")
    assert report["iou"]["score"] == 0.5
    assert report["character"] == {"precision": 1.0, "recall": 0.5, "f1": 2 / 3}
    assert report["cleval_1d"] == {"precision": 1.0, "recall": 0.5, "f1": 2 / 3}


@st.composite
def large_count_examples(draw):
    """Up to 3 spans per side with offsets below 2**bits (character counts > 2**26)."""
    bits = draw(st.sampled_from([30, 40, 53, 62]))
    top = 2**bits

    def side():
        out = []
        for _ in range(draw(st.integers(0, 3))):
            s = draw(st.integers(0, top))
            out.append([s, draw(st.integers(s, top))])
        return out

    return side(), side()


@settings(max_examples=100, deadline=None)
@given(st.lists(large_count_examples(), min_size=1, max_size=3))
def test_single_rounding_with_large_counts(exs):
    # SPEC section 4: P = a/b, R = c/d and F1 = 2ac/(ad+bc) with a single rounding, also
    # per example (macro) and for the large offsets SPEC section 2 allows. The expected
    # values are the correctly rounded exact rationals.
    refs = [r for r, _ in exs]
    preds = [p for _, p in exs]
    report = mycelium.evaluate(refs, preds, metrics=["iou", "character"],
                               include_per_example=True)
    for k, (r, p) in enumerate(exs):
        st_k = interval_char_stats(r, p)
        for m in ("iou", "character"):
            expected = ref.measures(m, st_k[m])
            assert report["per_example"][k][m] == expected, (k, m, r, p)
