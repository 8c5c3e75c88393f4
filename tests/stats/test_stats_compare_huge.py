"""compare() on statistics near 2**62: the permutation test's swapped sums are exact
(equal to a slow reference that scores each resample's swapped detectors with
`mycelium.evaluate`), and huge examples give the p-values and intervals of the same
examples scaled down."""

from __future__ import annotations

import numpy as np
import pytest

import mycelium
from mycelium.stats.comparison import compare

from _stats_data import detector_batch

NUMERIC = ["value_a", "value_b", "difference", "ci_low", "ci_high", "p_value", "p_holm"]
TESTS = ["paired_bootstrap", "permutation"]
BIG = 2**62
SCALE = 3**35  # odd: scaled lengths are not float64-exact, ratios are unchanged
INVARIANT = ["iou", "character", "deteval_1d", "exact_span", "span_coverage"]


def _huge_pair(n=24, seed=21):
    """Example 0 is 2**62 long, detector a right on it with three overlapping spans
    (CLEval's det_chars leaves int64), b nearly empty; the other examples are small, so
    swapping example 0 cancels 2**62 in a's sums down to a few characters."""
    refs, a = detector_batch(n, seed=seed)
    _, b = detector_batch(n, seed=seed + 1)
    b = [x if i % 3 else y for i, (x, y) in enumerate(zip(a, b))]  # close to a: p varies
    refs[0], a[0], b[0] = [[0, BIG]], [[0, BIG], [1, BIG], [2, BIG]], [[0, 1]]
    return refs, a, b


def _slow_permutation_p(refs, a, b, metrics, average, n_resamples, seed):
    """p-values from `mycelium.evaluate` on each resample's swapped detectors (exact)."""
    from mycelium.stats.comparison import _coins, _permutation_p

    coins = _coins(np.arange(len(refs), dtype=np.uint64), seed, range(n_resamples))
    value = lambda preds: mycelium.evaluate(refs, preds, metrics=metrics, average=average)
    va, vb = value(a), value(b)
    nulls: dict = {}
    for row in coins:
        sa = value([y if c else x for x, y, c in zip(a, b, row)])
        sb = value([x if c else y for x, y, c in zip(a, b, row)])
        for m in metrics:
            for k in va[m]:
                nulls.setdefault((m, k), []).append(sa[m][k] - sb[m][k])
    return {key: _permutation_p(np.array(null), va[key[0]][key[1]] - vb[key[0]][key[1]])
            for key, null in nulls.items()}


@pytest.mark.parametrize("average", ["micro", "macro"])
def test_permutation_on_huge_statistics_equals_a_slow_exact_reference(average):
    refs, a, b = _huge_pair()
    metrics = ["character", "iou", "cleval_1d", "deteval_1d"]
    out = compare(refs, {"a": a, "b": b}, test="permutation", metrics=metrics,
                  average=average, n_resamples=40, seed=3)
    want = _slow_permutation_p(refs, a, b, metrics, average, 40, 3)
    got = {(m, k): p for m, k, p in out[["metric", "measure", "p_value"]]
           .itertuples(index=False)}
    assert got == want
    assert len(set(want.values())) > 2  # the p-values vary: a real check


@pytest.mark.parametrize("test", TESTS)
@pytest.mark.parametrize("average", ["micro", "macro"])
def test_huge_statistics_give_the_p_values_of_the_scaled_down_examples(test, average):
    refs, a = detector_batch(40, seed=3)
    _, b = detector_batch(40, seed=4)

    def scaled(sets, by):
        return [[[s * by + (2**61 if by > 1 else 0), e * by + (2**61 if by > 1 else 0)]
                 for s, e in spans] for spans in sets]

    options = dict(test=test, metrics=INVARIANT, average=average, n_resamples=60, seed=2)
    small = compare(refs, {"a": a, "b": b}, **options)
    huge = compare(scaled(refs, SCALE), {"a": scaled(a, SCALE), "b": scaled(b, SCALE)},
                   **options)
    assert max(e for spans in scaled(refs, SCALE) for _, e in spans) > 2**61 + 2**60
    assert huge[NUMERIC].equals(small[NUMERIC])
    assert (small["p_value"] < 1).any()
