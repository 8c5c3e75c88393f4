"""A macro report computed block by block of examples (`mycelium.core.aggregate.
REPORT_BLOCK`) equals the report of the whole arrays bit for bit: every metric, every
zero_division, spans 2**56 long, and values whose exact sums keep a float residual."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from _stats_data import module_constant, span_sides
import mycelium
import mycelium.core.aggregate as aggregate_module
from mycelium.core.aggregate import aggregate
from mycelium.core.exactsum import parts


def report_blocks(size: int):
    return module_constant(aggregate_module, "REPORT_BLOCK", size)


@settings(max_examples=150, deadline=None)
@given(span_sides(30), st.integers(1, 6), st.sampled_from([0.0, 1.0, "nan"]))
def test_blocks_of_the_report_equal_the_whole(batch, block, zero_division):
    refs, preds = batch
    stats = mycelium.statistics(refs, preds, metrics=list(mycelium.METRICS))
    whole = aggregate(stats, zero_division=zero_division)
    with report_blocks(block):
        parts = aggregate(stats, zero_division=zero_division)
    assert repr(parts) == repr(whole)


def test_float_residuals_take_the_whole_array():
    # Precisions of 1 / 2**40 are below 2**-31: their exact sums keep a float residual,
    # whose sum depends on the order, so the whole array decides (as before blocks).
    rng = np.random.default_rng(5)
    n = 200
    stats = {"character": {"tp": np.ones(n, dtype=np.int64),
                           "fp": rng.integers(2**39, 2**41, n),
                           "fn": rng.integers(0, 3, n)}}
    whole = aggregate(stats)
    with report_blocks(7):
        assert repr(aggregate(stats)) == repr(whole)
    values = aggregate_module.per_example(stats)["character"]["precision"]
    assert np.abs(values).max() < 2**-31 and parts(values).residual != 0.0
