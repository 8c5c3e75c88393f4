"""Span statistics computed block by block of examples (`mycelium.core.pipeline.
STATISTICS_BLOCK`) equal one block's, value for value and dtype for dtype, for every
metric: short and 2**62-long spans, duplicates, overlaps and empty examples."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from _stats_data import module_constant, span_sides
import mycelium
import mycelium.core.pipeline as pipeline
from mycelium.core.settings import resolve_settings


def blocks_of(size: int):
    return module_constant(pipeline, "STATISTICS_BLOCK", size)


@settings(max_examples=200, deadline=None)
@given(span_sides(14), st.integers(1, 5))
def test_blocks_of_examples_equal_one_block(batch, block):
    refs, preds = batch
    s = resolve_settings()
    prepared = pipeline.prepare(refs, preds)
    whole = pipeline.compute_statistics(prepared.refs, prepared.preds, s.span_metrics,
                                        s.params)
    with blocks_of(block):
        parts = pipeline.compute_statistics(prepared.refs, prepared.preds, s.span_metrics,
                                            s.params)
    assert whole.keys() == parts.keys()
    for m in whole:
        assert whole[m].keys() == parts[m].keys()
        for k in whole[m]:
            assert whole[m][k].dtype == parts[m][k].dtype, (m, k)
            assert whole[m][k].tolist() == parts[m][k].tolist(), (m, k)


def test_evaluate_in_blocks_equals_one_block():
    rng = np.random.default_rng(3)
    refs = [[[int(a), int(a + rng.integers(1, 20))] for a in np.sort(rng.integers(0, 90, k))]
            for k in rng.integers(0, 4, 300)]
    preds = [[[s + int(rng.integers(-2, 3)), e] for s, e in r if rng.random() < 0.8]
             for r in refs]
    preds = [[[max(0, s), e] for s, e in p if max(0, s) <= e] for p in preds]
    for average in ("macro", "micro"):
        whole = mycelium.evaluate(refs, preds, average=average, include_per_example=True)
        with blocks_of(7):
            parts = mycelium.evaluate(refs, preds, average=average,
                                      include_per_example=True)
        assert repr(parts) == repr(whole)


