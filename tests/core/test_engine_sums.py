"""`mycelium.core.engine_sums`: int64 engine columns summed in any partition, in any order,
give exactly `mycelium.core.groups.group_sums` of `row_columns` (same values, same types)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mycelium.core import engine_sums, reduce
from mycelium.core.groups import group_sums
from mycelium.evaluate import compute_statistics, prepare
from mycelium.core.exactsum import limb_arrays
from mycelium.core.settings import resolve_settings

PARAMS = [None, {"cleval_1d": {"granularity_penalty_weight": 0.3}},
          {"cleval_1d": {"granularity_penalty_weight": 0.5}}]


def _rows(n, seed):
    """Spans with ordinary lengths and with lengths up to 2**61 (values below 2**-31,
    so limb residuals), several predictions per reference (CLEval penalties)."""
    rng = np.random.default_rng(seed)
    refs, preds = [], []
    for i in range(n):
        end = int(rng.integers(2**40, 2**61)) if i % 3 == 0 else int(rng.integers(5, 60))
        refs.append([[0, end]] if i % 7 else [])
        cut = int(rng.integers(1, 5))
        preds.append([[0, cut], [cut, cut + 1], [cut + 2, int(rng.integers(cut + 3, 70))]]
                     if i % 5 else [])
    return refs, preds


def _stats(refs, preds, settings):
    p = prepare(refs, preds)
    return compute_statistics(p.refs, p.preds, settings.span_metrics, settings.params)


def _engine(columns, codes, partition, n_partials):
    """An engine's partial sums: Python ints for int64 columns, float sums for rests."""
    out = {}
    for label, col in columns.items():
        sums = [[] for _ in range(n_partials)]
        for value, p in zip(col.tolist(), partition.tolist()):
            sums[p].append(value)
        if col.dtype == np.int64:
            out[label] = engine_sums.exact_ints([sum(s) for s in sums])
        else:
            out[label] = np.array([sum(s) for s in sums], dtype=np.float64)
    return out


def _same(a, b, typed=True) -> bool:
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b and (type(a) is type(b) or not typed)


@pytest.mark.parametrize("average", ["macro", "micro"])
@pytest.mark.parametrize("params", PARAMS)
@pytest.mark.parametrize("zero_division", [0.0, "nan"])
def test_engine_sums_equal_group_sums(average, params, zero_division):
    refs, preds = _rows(60, seed=5)
    settings = resolve_settings(average=average, params=params, zero_division=zero_division)
    stats = _stats(refs, preds, settings)
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 3, len(refs))           # 3 groups
    partition = codes * 4 + rng.integers(0, 4, len(refs))  # 4 partials per group
    columns = engine_sums.engine_columns(stats, settings)
    assert all(c.dtype in (np.int64, np.float64) for c in columns.values())
    assert all(columns[c.label].dtype == (np.int64 if c.integer else np.float64)
               for c in engine_sums.engine_layout(settings))
    partials = _engine(columns, codes, partition, 12)
    order = rng.permutation(12)  # the engine's partial order does not matter
    got = engine_sums.reduce_engine_sums({k: v[order] for k, v in partials.items()},
                                         (np.arange(12) // 4)[order], 3, settings)
    want = group_sums(reduce.row_columns(stats, settings), codes, 3)
    assert sorted(got) == sorted(want)
    for name in want:
        # statistics keep their type (ints: exact micro arithmetic; floats: fsum);
        # limb sums only need their value (values_from_sums takes int() of them)
        typed = name.count(reduce.SEP) == 1 or name.endswith("residual")
        assert all(_same(g, w, typed) for g, w in zip(np.asarray(got[name]).tolist(),
                                                       np.asarray(want[name]).tolist())), name
    got_values = reduce.values_from_sums(got, settings)
    want_values = reduce.values_from_sums(want, settings)
    for metric, measures in want_values.items():
        for measure, values in measures.items():
            assert all(_same(float(g), float(w)) for g, w in
                       zip(got_values[metric][measure], values)), (metric, measure)


def test_residuals_and_fractions_are_split_exactly():
    # Residuals of values >= 2**-63 sit on the 2**-115 grid (no rest); any other
    # residual keeps its low bits in the rest, exactly.
    values = np.array([1 / 3 * 2.0**-40, 0.7 / 2**62, 5 / 7 * 2.0**-50,
                       (2**53 - 1) * 2.0**-115, 0.5])  # ulp 2**-115: the finest grid
    r = limb_arrays(values)[3]
    assert np.count_nonzero(r) == 4
    parts = engine_sums._split_residual(r)
    assert parts["res"].dtype == np.int64 and not parts["rest"].any()
    assert [math.ldexp(int(i), -115) for i in parts["res"]] == r.tolist()
    r = np.array([0.0, 3e-30, -2.5e-27, 2.0**-100, 1e-300, 2.0**-60])
    parts = engine_sums._split_residual(r)
    back = [math.ldexp(int(i), -115) + rest for i, rest in zip(parts["res"], parts["rest"])]
    assert back == r.tolist() and parts["rest"][3] == 0 and parts["rest"][1] != 0
    x = np.array([0.0, 1.5, 7.0, 2.0**60 + 2.0**8, 0.1, 1e-40, 3.0 * 2**62])
    f = engine_sums._split_float(x)
    for i, value in enumerate(x.tolist()):
        whole = (int(f["hi"][i]) << 31) + int(f["lo"][i])
        assert 0 <= f["lo"][i] < 2**31
        scaled = ((whole << 115) + (int(f["h"][i]) << 87)
                  + (int(f["m"][i]) << 59) + (int(f["l"][i]) << 31) + int(f["res"][i]))
        assert scaled / (1 << 115) + f["rest"][i] == value
    assert f["fractional"].tolist() == [0, 1, 0, 0, 1, 1, 0]
    assert f["nonzero"].tolist() == [0, 1, 1, 1, 1, 1, 1]


def test_exact_ints():
    assert engine_sums.exact_ints([1, None, -3]).dtype == np.int64
    big = engine_sums.exact_ints([2**70, 1])
    assert big.dtype == object and big.tolist() == [2**70, 1]


@pytest.mark.parametrize("params", PARAMS)
def test_statistics_beyond_int64_take_two_limbs(params):
    # Rows whose statistics leave int64 (three overlapping spans of 2**62: det_chars
    # 3 * 2**62 - 3) and a sum of many 2**61 lengths: every engine column is int64 with
    # |lo| < 2**31, so int64 sums (Spark's bigint) of 2**32 such rows cannot wrap.
    big = 2**62
    refs = [[[0, big]], [[0, 2**61]], [[0, 10]]] * 4
    preds = [[[0, big], [1, big], [2, big]], [[0, 2**60]], [[3, 9]]] * 4
    settings = resolve_settings(average="micro", params=params)
    stats = _stats(refs, preds, settings)
    assert stats["cleval_1d"]["det_chars"].dtype == object  # beyond int64 per row
    columns = engine_sums.engine_columns(stats, settings)
    layout = engine_sums.engine_layout(settings)
    wide = [c for c in layout if c.kind == "wide"]
    assert {c.source for c in wide} >= {"cleval_1d|det_chars", "iou|union"}
    for c in wide:
        col = columns[c.label]
        assert col.dtype == np.int64
        if c.part == "lo":
            assert 0 <= col.min() and col.max() < 2**31
        else:
            assert np.abs(col).max() < 2**33  # row values below 2**64 here
    codes = np.array([0, 1] * 6)
    partials = _engine(columns, codes, codes, 2)
    for label, col in columns.items():  # int64 engine sums do not wrap
        if col.dtype == np.int64:
            assert [int(col[codes == g].sum()) for g in (0, 1)] == partials[label].tolist()
    got = engine_sums.reduce_engine_sums(partials, np.arange(2), 2, settings)
    want = group_sums(reduce.row_columns(stats, settings), codes, 2)
    for name in want:
        assert all(_same(g, w) for g, w in zip(np.asarray(got[name]).tolist(),
                                               np.asarray(want[name]).tolist())), name
    det = [int(v) for v in stats["cleval_1d"]["det_chars"].tolist()]
    assert det[0] == 3 * big - 3
    assert got["cleval_1d|det_chars"].tolist() == [sum(det[0::2]), sum(det[1::2])]
