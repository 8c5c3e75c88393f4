"""Tests for the standalone legacy Span Coverage scorer (inclusive [start, end] offsets)."""

import ast
import math
from fractions import Fraction
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mycelium.legacy import span_coverage as legacy
from mycelium.legacy.span_coverage import (
    SpanCoverageCounts,
    span_coverage,
    span_coverage_counts,
)

LEGACY_DIR = Path(legacy.__file__).resolve().parent
ZERO_DIVISIONS = (0.0, 1.0, "nan")


def _same(a, b):
    """Exact float equality that treats NaN as equal to NaN."""
    return (math.isnan(a) and math.isnan(b)) or a == b


def _assert_scores(got, expected):
    assert set(got) == {"precision", "recall", "f1"}
    for key, value in zip(("precision", "recall", "f1"), expected):
        assert isinstance(got[key], float)
        assert _same(got[key], value), (key, got, expected)


# --------------------------------------------------------------------------- standalone


def test_copied_file_imports_alone_with_standard_library_only(tmp_path):
    shutil.copy(LEGACY_DIR / "span_coverage.py", tmp_path / "span_coverage.py")
    code = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import span_coverage
        assert span_coverage.__file__.startswith({str(tmp_path)!r}), span_coverage.__file__
        report = span_coverage.span_coverage([[[0, 10]], [[4, 7]]], [[[2, 8]], [[5, 9]]])
        assert report == {{"precision": 0.5, "recall": 0.5, "f1": 0.5}}, report
        allowed = set(sys.stdlib_module_names) | {{"span_coverage", "__main__"}}
        foreign = sorted(m for m in sys.modules if m.split(".")[0] not in allowed)
        assert not foreign, foreign
        assert not any(m.startswith("mycelium") for m in sys.modules)
        assert not any("work/main" in p for p in sys.path[1:]), sys.path
        print("ok")
        """
    )
    # -I: ignore PYTHON* variables and the user site; -S: no site-packages at all, so
    # neither the project (editable install) nor numpy can be found.
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


@pytest.mark.parametrize("filename", ["span_coverage.py", "__init__.py"])
def test_legacy_files_import_only_the_standard_library(filename):
    tree = ast.parse((LEGACY_DIR / filename).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative import in a standalone file"
            imported.add(node.module.split(".")[0])
    assert imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)


# --------------------------------------------------------------------------- hand-computed

# (references, predictions, (n_pred_contained, n_pred, n_ref_covered, n_ref), (P, R, F1))
ONE_EXAMPLE_CASES = [
    pytest.param([[0, 10]], [[2, 8]], (1, 1, 1, 1), (1.0, 1.0, 1.0), id="seed-contained"),
    pytest.param([[0, 9]], [[0, 9]], (1, 1, 1, 1), (1.0, 1.0, 1.0), id="identical"),
    pytest.param([[0, 9]], [[0, 4], [5, 9]], (2, 2, 1, 1), (1.0, 1.0, 1.0), id="split"),
    pytest.param([[0, 3], [5, 9]], [[0, 9]], (0, 1, 0, 2), (0.0, 0.0, 0.0), id="merge"),
    pytest.param([[0, 9]], [[5, 19]], (0, 1, 0, 1), (0.0, 0.0, 0.0), id="overhang-right"),
    pytest.param([[5, 9]], [[4, 9]], (0, 1, 0, 1), (0.0, 0.0, 0.0), id="overhang-left"),
    pytest.param([[0, 2]], [[0, 9]], (0, 1, 0, 1), (0.0, 0.0, 0.0), id="pred-wider"),
    pytest.param([[0, 9]], [[9, 9]], (1, 1, 1, 1), (1.0, 1.0, 1.0), id="last-char-inclusive"),
    pytest.param([[0, 9]], [[10, 10]], (0, 1, 0, 1), (0.0, 0.0, 0.0), id="one-past-end"),
    pytest.param([[3, 3]], [[3, 3]], (1, 1, 1, 1), (1.0, 1.0, 1.0), id="single-char"),
    # Not contained in either single ref, although the union [0, 11] covers it.
    pytest.param([[0, 3], [4, 11]], [[2, 11]], (0, 1, 0, 2), (0.0, 0.0, 0.0), id="union-not-enough"),
    pytest.param([[0, 4], [4, 9]], [[4, 4]], (1, 1, 2, 2), (1.0, 1.0, 1.0), id="shared-char"),
    pytest.param([[0, 20], [5, 8]], [[6, 7]], (1, 1, 2, 2), (1.0, 1.0, 1.0), id="nested-refs"),
    pytest.param([[0, 9]], [[0, 9], [0, 9], (0, 9)], (1, 1, 1, 1), (1.0, 1.0, 1.0), id="dup-preds"),
    pytest.param([[0, 9], [0, 9]], [[20, 21]], (0, 1, 0, 1), (0.0, 0.0, 0.0), id="dup-refs"),
    pytest.param(
        [[0, 9], [20, 29]], [[2, 3], [25, 35], [40, 41]], (1, 3, 1, 2), (1 / 3, 0.5, 0.4),
        id="mixed",
    ),
    pytest.param(
        [[20, 29], [0, 9]], [[40, 41], [2, 3], [25, 35]], (1, 3, 1, 2), (1 / 3, 0.5, 0.4),
        id="mixed-unsorted",
    ),
    # P = 1, R = 6/10: the single-rounding F1 is exactly 0.75 (2PR/(P+R) would not be).
    pytest.param(
        [[2 * i, 2 * i] for i in range(10)], [[2 * i, 2 * i] for i in range(6)],
        (6, 6, 6, 10), (1.0, 0.6, 0.75), id="f1-single-rounding",
    ),
    pytest.param(
        [[0, 2**62]], [[2**61, 2**61 + 5]], (1, 1, 1, 1), (1.0, 1.0, 1.0), id="huge-offsets",
    ),
    pytest.param(
        [{"start": 0, "end": 9, "label_type": "x"}], [(2, 3), [np.int64(4), np.int32(5)]],
        (2, 2, 1, 1), (1.0, 1.0, 1.0), id="dict-tuple-numpy-forms",
    ),
    pytest.param(np.array([[0, 9]]), np.array([[1, 2]]), (1, 1, 1, 1), (1.0, 1.0, 1.0), id="numpy"),
]


@pytest.mark.parametrize(("refs", "preds", "counts", "scores"), ONE_EXAMPLE_CASES)
def test_one_example_counts_and_scores(refs, preds, counts, scores):
    assert tuple(span_coverage_counts(refs, preds)) == counts
    for average in ("macro", "micro"):
        _assert_scores(span_coverage(refs, preds, average=average), scores)


@pytest.mark.parametrize(
    ("refs", "preds", "zero_division", "scores"),
    [
        ([], [], 0.0, (0.0, 0.0, 0.0)),
        ([], [], 1.0, (1.0, 1.0, 1.0)),
        ([], [], "nan", (math.nan, math.nan, math.nan)),
        ([[0, 9]], [], 0.0, (0.0, 0.0, 0.0)),
        ([[0, 9]], [], 1.0, (1.0, 0.0, 0.0)),
        ([[0, 9]], [], "nan", (math.nan, 0.0, math.nan)),
        ([], [[0, 9]], 1.0, (0.0, 1.0, 0.0)),
        ([[0, 9], [20, 29]], [], 1, (1.0, 0.0, 0.0)),
    ],
)
def test_zero_division_one_example(refs, preds, zero_division, scores):
    for average in ("macro", "micro"):
        _assert_scores(
            span_coverage(refs, preds, average=average, zero_division=zero_division), scores
        )


BATCH_REFS = [[[0, 4], [6, 9]], [], [[0, 9]], []]
BATCH_PREDS = [[[1, 2]], [[3, 3]], [[0, 3], [5, 12]], []]
# Counts per example: (1, 1, 1, 2), (0, 1, 0, 0), (1, 2, 1, 1), (0, 0, 0, 0).


@pytest.mark.parametrize(
    ("average", "zero_division", "scores"),
    [
        # micro: P = 2/4, R = 2/3, F1 = 2*2*2 / (2*3 + 4*2) = 8/14.
        ("micro", 0.0, (0.5, 2 / 3, 8 / 14)),
        ("micro", 1.0, (0.5, 2 / 3, 8 / 14)),
        ("micro", "nan", (0.5, 2 / 3, 8 / 14)),
        # macro per example (P, R, F1): (1, 1/2, 2/3), (0, z, .), (1/2, 1, 2/3), (z, z, .)
        ("macro", 0.0, (1.5 / 4, 1.5 / 4, (2 / 3 + 2 / 3) / 4)),
        # zero_division=1.0: example 1 is (0, 1, 0), example 3 is (1, 1, 1).
        ("macro", 1.0, (2.5 / 4, 3.5 / 4, (2 / 3 + 2 / 3 + 1) / 4)),
        # NaN leaves the example out of that measure's mean.
        ("macro", "nan", (1.5 / 3, 1.5 / 2, (2 / 3 + 2 / 3) / 2)),
    ],
)
def test_batch_micro_and_macro(average, zero_division, scores):
    got = span_coverage(BATCH_REFS, BATCH_PREDS, average=average, zero_division=zero_division)
    for key, value in zip(("precision", "recall", "f1"), scores):
        assert got[key] == pytest.approx(value, abs=1e-15), (key, got)


def test_f1_with_an_undefined_side_is_zero_or_nan():
    # An undefined precision means no predictions, hence recall 0: F1 is 0.0 (or NaN).
    assert span_coverage([[[0, 9]], []], [[], []], average="micro", zero_division=1.0) == {
        "precision": 1.0, "recall": 0.0, "f1": 0.0,
    }
    got = span_coverage([[[0, 9]], []], [[], []], average="micro", zero_division="nan")
    assert math.isnan(got["precision"]) and got["recall"] == 0.0 and math.isnan(got["f1"])


def test_all_nan_macro_mean_is_nan():
    got = span_coverage([[], []], [[], []], zero_division="nan")
    assert all(math.isnan(v) for v in got.values())


@pytest.mark.parametrize(
    ("refs", "preds", "macro"),
    [
        ([], [], (1.0, 1.0, 1.0)),  # one example, no spans
        ([[]], [[]], (1.0, 1.0, 1.0)),  # a batch of one empty example
        ([[], []], [[], []], (1.0, 1.0, 1.0)),
        # (P, R, F1) per example: (0, 1, 0) and (1, 0, 0).
        ([[], [[0, 1]]], [[[0, 1]], []], (0.5, 0.5, 0.0)),
        ([[0, 1]], [[0, 1]], (1.0, 1.0, 1.0)),
        ([{"start": 0, "end": 1}], [{"start": 0, "end": 1}], (1.0, 1.0, 1.0)),
        ([[{"start": 0, "end": 1}]], [[{"start": 0, "end": 1}]], (1.0, 1.0, 1.0)),
    ],
)
def test_single_and_batch_forms(refs, preds, macro):
    _assert_scores(span_coverage(refs, preds, zero_division=1.0), macro)


def test_empty_inner_sequence_is_an_empty_example_not_a_span():
    # [[]] is a batch of one example with no spans; [] is one example with no spans.
    assert span_coverage([[]], [[[0, 3]]], zero_division=1.0) == {
        "precision": 0.0, "recall": 1.0, "f1": 0.0,
    }
    assert span_coverage([], [[0, 3]], zero_division=1.0) == {
        "precision": 0.0, "recall": 1.0, "f1": 0.0,
    }


def test_tuple_batches_and_generators_of_examples():
    refs = ([(0, 4), (6, 9)], [(0, 9)])
    preds = ([(1, 2)], [(0, 3), (5, 12)])
    assert span_coverage(refs, preds, average="micro") == {
        "precision": 2 / 3, "recall": 2 / 3, "f1": 2 / 3,
    }


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("refs", "preds", "pattern"),
    [
        ([[5, 2]], [], r"references, example 0, span 0: .*got \[5, 2\] \(start 5 > end 2\)"),
        ([[0, 1]], [[0, 1], [3, 2]], r"predictions, example 0, span 1: .*start 3 > end 2"),
        ([[-1, 2]], [], r"references, example 0, span 0: .*negative offset -1"),
        ([[0, 1.0]], [], r"span 0: .*offset 1.0 of type float is not an integer"),
        ([[0, 1.5]], [], r"offset 1.5 of type float is not an integer"),
        ([[True, 2]], [], r"boolean offset True"),
        ([[0, np.True_]], [], r"boolean offset np.True_"),
        ([["0", 2]], [], r"offset '0' of type str"),
        ([[0, None]], [], r"offset None of type NoneType"),
        ([[1, 2, 3]], [], r"3 values instead of 2"),
        ([[1]], [], r"1 values instead of 2"),
        ([{"start": 1}], [], r"missing 'start' or 'end'"),
        (["ab"], [], r"'ab' \(a str, not a pair\)"),
        ([[[0, 1]], [[0, 2], [9, 3]]], [[], []], r"references, example 1, span 1: .*start 9 > end 3"),
        ([[], [[0, 1]]], [[], [[0, float("nan")]]], r"predictions, example 1, span 0: .*nan"),
        ([[]], [7], r"predictions is one example"),
        ([], [[[0, 1]]], r"references is one example but predictions is a batch"),
        ([[[0, 1]]], [[], []], r"references has 1 examples but predictions has 2"),
        ([[[0, 1]], 5], [[], []], r"references, example 1: expected a list of \[start, end\] spans"),
    ],
)
def test_bad_input_is_rejected_with_location(refs, preds, pattern):
    with pytest.raises(ValueError, match=pattern):
        span_coverage(refs, preds)


def test_counts_reject_bad_spans():
    with pytest.raises(ValueError, match=r"predictions, example 0, span 0: .*start 4 > end 3"):
        span_coverage_counts([[0, 9]], [[4, 3]])


@pytest.mark.parametrize("obj", [None, 3, "0,1"])
def test_non_container_side_is_a_type_error(obj):
    with pytest.raises(TypeError, match="Expected references"):
        span_coverage(obj, [])


@pytest.mark.parametrize(
    ("options", "pattern"),
    [
        ({"average": "weighted"}, r"average to be one of \('macro', 'micro'\), got 'weighted'"),
        ({"average": None}, "average"),
        ({"zero_division": 0.5}, r"zero_division to be 0.0, 1.0 or 'nan', got 0.5"),
        ({"zero_division": "warn"}, "zero_division"),
        ({"zero_division": True}, "zero_division"),
        ({"zero_division": None}, "zero_division"),
    ],
)
def test_bad_options_are_rejected(options, pattern):
    with pytest.raises(ValueError, match=pattern):
        span_coverage([[0, 1]], [[0, 1]], **options)


def test_options_are_keyword_only():
    with pytest.raises(TypeError):
        span_coverage([[0, 1]], [[0, 1]], "micro")  # noqa


def test_input_is_not_mutated():
    refs = [[[3, 9], [0, 1], [3, 9]]]
    preds = [[[4, 5]]]
    snapshot = repr((refs, preds))
    span_coverage(refs, preds)
    assert repr((refs, preds)) == snapshot


# --------------------------------------------------------------------------- properties

inclusive_span = st.tuples(st.integers(0, 40), st.integers(0, 12)).map(
    lambda t: [t[0], t[0] + t[1]]
)
span_set = st.lists(inclusive_span, max_size=6)
batch = st.integers(1, 8).flatmap(
    lambda n: st.tuples(st.lists(span_set, min_size=n, max_size=n),
                        st.lists(span_set, min_size=n, max_size=n))
)


def _brute_counts(refs, preds):
    refs = {tuple(g) for g in refs}
    preds = {tuple(p) for p in preds}
    inside = lambda p, g: g[0] <= p[0] and p[1] <= g[1]  # noqa: E731
    return (
        sum(any(inside(p, g) for g in refs) for p in preds), len(preds),
        sum(any(inside(p, g) for p in preds) for g in refs), len(refs),
    )


@settings(max_examples=300, deadline=None)
@given(span_set, span_set)
def test_counts_equal_brute_force(refs, preds):
    assert tuple(span_coverage_counts(refs, preds)) == _brute_counts(refs, preds)


@settings(max_examples=100, deadline=None)
@given(batch, st.randoms(use_true_random=False))
def test_order_duplicates_and_identity(data, rnd):
    refs, preds = data
    shuffled = [list(x) for x in zip(refs, preds)]
    rnd.shuffle(shuffled)
    s_refs = [sorted(r, key=lambda _: rnd.random()) + r[:1] for r, _ in shuffled]
    s_preds = [sorted(p, key=lambda _: rnd.random()) for _, p in shuffled]
    for average in ("macro", "micro"):
        for zd in ZERO_DIVISIONS:
            a = span_coverage(refs, preds, average=average, zero_division=zd)
            b = span_coverage(s_refs, s_preds, average=average, zero_division=zd)
            assert all(_same(a[k], b[k]) for k in a), (a, b)
            assert all(0.0 <= v <= 1.0 for v in a.values() if not math.isnan(v))
    identical = span_coverage(refs, refs, average="micro", zero_division=1.0)
    assert identical == {"precision": 1.0, "recall": 1.0, "f1": 1.0}


def _to_half_open(batch_of_examples):
    return [[[s, e + 1] for s, e in spans] for spans in batch_of_examples]


def _core(refs, preds, **options):
    import mycelium

    return mycelium.evaluate(
        _to_half_open(refs), _to_half_open(preds), metrics=["span_coverage"], **options
    )


def _exact_mean(values):
    defined = [v for v in values if not math.isnan(v)]
    return float(sum(map(Fraction, defined)) / len(defined)) if defined else math.nan


@settings(max_examples=120, deadline=None)
@given(batch, st.sampled_from(ZERO_DIVISIONS))
def test_equals_mycelium_evaluate_on_half_open_offsets(data, zero_division):
    import mycelium

    refs, preds = data
    # Statistics: the four counts of every example, bit for bit.
    stats = mycelium.statistics(
        _to_half_open(refs), _to_half_open(preds), metrics=["span_coverage"]
    )["span_coverage"]
    for i, (r, p) in enumerate(zip(refs, preds)):
        assert span_coverage_counts(r, p) == tuple(
            int(stats[k][i]) for k in SpanCoverageCounts._fields
        )
    # micro and per-example values: exactly equal.
    micro = span_coverage(refs, preds, average="micro", zero_division=zero_division)
    core_micro = _core(refs, preds, average="micro", zero_division=zero_division)
    assert all(_same(micro[k], core_micro["span_coverage"][k]) for k in micro)
    core = _core(refs, preds, average="macro", zero_division=zero_division,
                 include_per_example=True)
    rows = [row["span_coverage"] for row in core["per_example"]]
    for (r, p), row in zip(zip(refs, preds), rows):
        one = span_coverage(r, p, zero_division=zero_division)
        assert all(_same(one[k], row[k]) for k in one), (one, row)
        # The unbatched form of one example equals a batch of one.
        one_core = _core([r], [p], zero_division=zero_division)["span_coverage"]
        assert all(_same(one[k], one_core[k]) for k in one)
    # macro: the correctly rounded exact mean of the per-example values, bit for bit, in
    # the legacy module and in mycelium alike.
    macro = span_coverage(refs, preds, average="macro", zero_division=zero_division)
    for k in macro:
        assert _same(macro[k], _exact_mean([row[k] for row in rows])), k
        assert _same(macro[k], core["span_coverage"][k]), (macro, core["span_coverage"])


def _within_ulps(a, b, ulps=4):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= ulps * math.ulp(max(abs(a), abs(b)))


# A plain float sum (numpy's pairwise one included) gives 0.9523809523809523 in one of
# these orders and ...524 in the other; an exact mean gives one value in both.
REORDER_REFS = [[], [], [[0, 0]], [], [], [], []]
REORDER_PREDS = [[], [], [[0, 0], [0, 1]], [], [], [], []]


def test_macro_is_order_independent_and_equals_mycelium():
    for order in ([0, 1, 2, 3, 4, 5, 6], [0, 1, 3, 4, 5, 6, 2]):
        refs = [REORDER_REFS[i] for i in order]
        preds = [REORDER_PREDS[i] for i in order]
        got = span_coverage(refs, preds, zero_division=1.0)
        assert got["f1"] == float(sum(map(Fraction, [1.0] * 6 + [2 / 3])) / 7)
        core = _core(refs, preds, zero_division=1.0)["span_coverage"]
        assert got == core, (order, got, core)
