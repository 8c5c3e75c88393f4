"""`soft_runs._by_owner_and_value`, the sort behind Cor's ranks: one stable sort of a float
key, checked, with `numpy.lexsort` where the key cannot separate the values. Whatever the
values, the order it returns is one by (owner, value); on values the key separates, it
takes no lexsort."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mycelium.metrics import soft_runs

VALUES = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, 0.5, 0.3, 0.30000000000000004, 1e-9, 1e-300, 2.0,
                     -0.25, 0.1 + 2**-40, 0.1]),
    st.floats(0.0, 1.0), st.floats(-4.0, 4.0, allow_nan=False))


def _is_sorted(owner, values, order):
    assert sorted(order.tolist()) == list(range(owner.size))
    o, v = owner[order], values[order]
    assert ((o[1:] > o[:-1]) | ((o[1:] == o[:-1]) & (v[1:] >= v[:-1]))).all()


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2**20), VALUES), max_size=60), st.booleans())
def test_the_order_is_by_owner_then_value(entries, grouped):
    if grouped:  # as Cor's entries arrive: runs by owner, then one entry per owner
        entries = sorted(entries, key=lambda t: t[0])
    owner = np.array([o for o, _ in entries], dtype=np.int64)
    values = np.array([v for _, v in entries], dtype=np.float64)
    _is_sorted(owner, values, soft_runs._by_owner_and_value(owner, values))


def test_values_the_key_separates_take_one_sort(monkeypatch):
    rng = np.random.default_rng(3)
    owner = np.sort(rng.integers(0, 100_000, 300_000))
    values = np.round(rng.random(owner.size), 4)  # four decimals, as files write them
    owner = np.concatenate([owner, np.arange(100_000)])
    values = np.concatenate([values, np.zeros(100_000)])

    def no_lexsort(*args, **kwargs):
        raise AssertionError("the float key separates these values")

    monkeypatch.setattr(soft_runs.np, "lexsort", no_lexsort)
    _is_sorted(owner, values, soft_runs._by_owner_and_value(owner, values))


@pytest.mark.parametrize("close", [0.5 + 2**-40, 0.5 - 2**-53])
def test_values_closer_than_the_key_take_the_lexsort(close):
    owner = np.array([7, 7, 7, 7], dtype=np.int64)
    values = np.array([close, 0.5, close, 0.5])
    order = soft_runs._by_owner_and_value(owner, values)
    _is_sorted(owner, values, order)
