"""`mycelium.Accumulator`: any split into batches, any merge tree, any order (with ids)
gives exactly `mycelium.evaluate` on all the data at once — values, meta and intervals."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from _reports import same
from mycelium import Accumulator

span = st.tuples(st.integers(0, 40), st.integers(0, 12)).map(lambda t: [t[0], t[0] + t[1]])
example = st.lists(span, max_size=4)


def batches(refs, preds, cuts, ids=None):
    bounds = [0, *sorted(set(cuts)), len(refs)]
    for a, b in zip(bounds[:-1], bounds[1:]):
        if a < b:
            yield refs[a:b], preds[a:b], (None if ids is None else ids[a:b])


@settings(max_examples=60, deadline=None)
@given(data=st.data(), average=st.sampled_from(["macro", "micro"]),
       profile=st.sampled_from([None, "mu_shroom", "ragtruth"]))
def test_any_split_equals_evaluate(data, average, profile):
    n = data.draw(st.integers(1, 12))
    refs = data.draw(st.lists(example, min_size=n, max_size=n))
    preds = data.draw(st.lists(example, min_size=n, max_size=n))
    cuts = data.draw(st.lists(st.integers(0, n), max_size=4))
    acc = Accumulator(profile=profile, average=average)
    for r, p, _ in batches(refs, preds, cuts):
        acc.update(r, p)
    assert same(acc.compute(), mycelium.evaluate(refs, preds, profile=profile,
                                                 average=average))


@settings(max_examples=30, deadline=None)
@given(data=st.data(), average=st.sampled_from(["macro", "micro"]))
def test_any_merge_tree_and_order_with_ids_equals_evaluate(data, average):
    n = data.draw(st.integers(2, 14))
    refs = data.draw(st.lists(example, min_size=n, max_size=n))
    preds = data.draw(st.lists(example, min_size=n, max_size=n))
    ids = [f"ex{i}" for i in range(n)]
    order = data.draw(st.permutations(range(n)))
    cuts = data.draw(st.lists(st.integers(0, n), max_size=4))
    r_sh, p_sh, i_sh = ([x[i] for i in order] for x in (refs, preds, ids))
    opts = dict(metrics=["iou", "character", "deteval_1d"], average=average, ci=0.9,
                n_resamples=50, seed=3)
    shards = []
    for r, p, i in batches(r_sh, p_sh, cuts, i_sh):
        acc = Accumulator(**opts)
        acc.update(r, p, ids=i)
        shards.append(acc)
    while len(shards) > 1:  # a random binary merge tree
        k = data.draw(st.integers(0, len(shards) - 2))
        shards[k:k + 2] = [shards[k].merge(shards[k + 1])]
    want = mycelium.evaluate(refs, preds, ids=ids, **opts)
    got = shards[0].compute()
    assert same(got, want)


def test_intervals_without_ids_follow_the_order_examples_were_added():
    refs = [[[0, 10]], [[4, 7]], [[2, 5]], [[0, 3]]] * 5
    preds = [[[2, 8]], [[4, 7]], [], [[1, 9]]] * 5
    acc = Accumulator(metrics="iou", ci=0.95, n_resamples=200)
    for k in range(0, 20, 3):
        acc.update(refs[k:k + 3], preds[k:k + 3])
    assert acc.compute() == mycelium.evaluate(refs, preds, metrics="iou", ci=0.95,
                                              n_resamples=200)


def test_soft_labels_missing_drop_and_huge_statistics():
    refs = [[[0, 2**62]], None, [[3, 9]]]
    preds = [[[0, 2**61], [1, 2**62]], [[0, 1]], [[3, 5]]]
    acc = Accumulator(missing="drop", average="micro")
    acc.update(refs[:2], preds[:2])
    acc.update(refs[2:], preds[2:])
    assert acc.compute() == mycelium.evaluate(refs, preds, missing="drop", average="micro")
    text = ["abcdefghij", "abcdefghij"]
    soft_r = [[{"start": 0, "end": 4, "prob": 0.8}], [{"start": 2, "end": 6, "prob": 0.3}]]
    soft_p = [[{"start": 1, "end": 4, "prob": 0.6}], []]
    acc = Accumulator(metrics=["iou", "soft_spearman"])
    for k in range(2):
        acc.update([[[0, 4]]], [[[1, 4]]], text=text[k:k + 1], soft_references=soft_r[k:k + 1],
                   soft_predictions=soft_p[k:k + 1])
    assert acc.compute() == mycelium.evaluate([[[0, 4]]] * 2, [[[1, 4]]] * 2, text=text,
                                              metrics=["iou", "soft_spearman"],
                                              soft_references=soft_r, soft_predictions=soft_p)


def test_pickle_and_bytes_round_trips():
    refs = [[[0, 2**62]], [[4, 7]], [], [[1, 3]]]
    preds = [[[0, 2**61], [1, 2**62]], [[4, 7]], [[0, 2]], []]
    acc = Accumulator(profile="ragtruth", ci=0.9, n_resamples=30)
    acc.update(refs, preds, ids=["a", "b", 3, 4])
    want = acc.compute()
    assert pickle.loads(pickle.dumps(acc)).compute() == want
    back = Accumulator.from_bytes(acc.to_bytes())
    assert back.compute() == want and len(back) == 4
    with pytest.raises(ValueError, match="written by Accumulator.to_bytes"):
        import io

        import pyarrow as pa
        sink = io.BytesIO()
        with pa.ipc.new_stream(sink, pa.schema([("x", pa.int64())])) as w:
            w.write_table(pa.table({"x": [1]}))
        Accumulator.from_bytes(sink.getvalue())


def test_clear_errors():
    with pytest.raises(ValueError, match="Did you mean 'micro'"):
        Accumulator(average="mirco")
    acc = Accumulator(metrics="iou")
    with pytest.raises(ValueError, match="at least one batch"):
        acc.compute()
    acc.update([[[0, 1]]], [[[0, 1]]], ids=["a"])
    with pytest.raises(ValueError, match="every batch to give ids"):
        acc.update([[[0, 1]]], [[[0, 1]]])
    with pytest.raises(ValueError, match="same settings"):
        acc.merge(Accumulator(metrics="character"))
    other = Accumulator(metrics="iou", ci=0.9)
    other.update([[[0, 1]]], [[[0, 1]]], ids=["a"])
    with pytest.raises(ValueError, match="same settings"):
        acc.merge(other)
    acc2 = Accumulator(metrics="iou", ci=0.9)
    acc2.update([[[0, 1]]], [[[0, 1]]], ids=["a"])
    acc2.merge(other)
    with pytest.raises(ValueError, match="more than once|duplicate|twice"):
        acc2.compute()
    with pytest.raises(ValueError, match="one id per example"):
        Accumulator().update([[[0, 1]]], [[[0, 1]]], ids=["a", "b"])


def test_memory_is_per_example_statistics_not_spans():
    acc = Accumulator(metrics=["iou", "character"])
    many = [[[i, i + 1] for i in range(0, 2000, 2)]]  # 1,000 spans in one example
    acc.update(many * 3, many * 3)
    part = acc._parts[0]
    assert sum(a.size for s in part.stats.values() for a in s.values()) == 3 * 5
    assert np.array_equal(part.kept, [True, True, True])
