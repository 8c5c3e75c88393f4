"""Order does not move a bit: with ids, the intervals of the score metrics (macro
``char_auroc`` / ``char_ap``: weighted means of per-example values, summed exactly) are the
same for any order of the rows, and an `Accumulator` fed and merged in any order equals
`mycelium.evaluate` bit for bit (README's promise). Merging an accumulator into itself,
or the same batches twice, is refused instead of counting examples twice."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from mycelium import Accumulator

OPTIONS = dict(metrics=["char_auroc", "char_ap", "response_auroc"], ci=0.95,
               n_resamples=200, seed=3)


def _batch(n: int = 40, seed: int = 0):
    """Texts of 5-29 characters, one reference span, 2-5 tokens with 3-decimal scores."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        L = int(rng.integers(5, 30))
        s = int(rng.integers(0, L))
        cuts = sorted(set([0, L] + rng.integers(0, L, 4).tolist()))
        rows.append({"id": f"id{i}", "text": "x" * L, "ref": [[s, int(rng.integers(s, L + 1))]],
                     "offs": [[a, b] for a, b in zip(cuts[:-1], cuts[1:])],
                     "sc": rng.random(len(cuts) - 1).round(3).tolist()})
    return rows


def _kwargs(rows):
    return dict(text=[r["text"] for r in rows], token_offsets=[r["offs"] for r in rows],
                token_scores=[r["sc"] for r in rows], ids=[r["id"] for r in rows])


def _evaluate(rows, average):
    return mycelium.evaluate([r["ref"] for r in rows], average=average, **_kwargs(rows),
                             **OPTIONS)


@pytest.mark.parametrize("average", ["macro", "micro"])
def test_score_intervals_with_ids_do_not_depend_on_row_order(average):
    rows = _batch()
    want = _evaluate(rows, average)
    for seed in range(5):
        order = np.random.default_rng(seed).permutation(len(rows)).tolist()
        got = _evaluate([rows[i] for i in order], average)
        assert got["ci"] == want["ci"], seed  # every bound, bit for bit
        assert {m: got[m] for m in OPTIONS["metrics"]} == \
            {m: want[m] for m in OPTIONS["metrics"]}


@settings(max_examples=20, deadline=None)
@given(order=st.permutations(list(range(12))), seed=st.integers(0, 2**16))
def test_macro_score_intervals_for_any_permutation(order, seed):
    rows = _batch(12, seed)
    assert _evaluate([rows[i] for i in order], "macro")["ci"] == \
        _evaluate(rows, "macro")["ci"]


@pytest.mark.parametrize("average", ["macro", "micro"])
def test_accumulator_merged_in_any_order_equals_evaluate(average):
    rows = _batch()
    want = _evaluate(rows, average)
    shards = [rows[0:13], rows[13:25], rows[25:40]]
    for order in ([0, 1, 2], [2, 0, 1], [1, 2, 0]):
        parts = []
        for k in order:
            acc = Accumulator(average=average, **OPTIONS)
            acc.update([r["ref"] for r in shards[k]], **_kwargs(shards[k]))
            parts.append(acc)
        total = parts[0]
        for other in parts[1:]:
            total.merge(Accumulator.from_bytes(other.to_bytes()))
        got = total.compute()
        assert got["ci"] == want["ci"], order
        assert {m: got[m] for m in OPTIONS["metrics"]} == \
            {m: want[m] for m in OPTIONS["metrics"]}


def test_merging_an_accumulator_into_itself_is_refused():
    acc = Accumulator(metrics="iou")
    acc.update([[[0, 2]]], [[[0, 2]]])
    with pytest.raises(ValueError, match="got this accumulator itself; its examples would "
                                         "count twice"):
        acc.merge(acc)
    assert acc.compute()["meta"]["examples"] == 1
    other = Accumulator(metrics="iou")
    other.update([[[0, 4]]], [[[0, 2]]])
    acc.merge(other)
    with pytest.raises(ValueError, match="whose batches this one already holds"):
        acc.merge(other)
    assert acc.compute()["meta"]["examples"] == 2
    acc.merge(copy.deepcopy(other))  # counting a dataset twice on purpose: a copy
    assert acc.compute()["meta"]["examples"] == 3
