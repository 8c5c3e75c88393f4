"""The core's alternative code paths give identical statistics.

- metrics computed together (sharing overlapping pairs) == each metric alone;
- the rank-based order keys used for offsets near 2**63 == the fast arithmetic keys
  (checked through translation invariance: shifting an example's spans changes nothing);
- examples that need DetEval's sequential re-scoring == the same examples in a batch;
- every input form (lists, numpy, Arrow list/large_list/int32, pandas, Polars, JSON
  strings) gives the same statistics.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from mycelium.metrics import METRICS

span = st.tuples(st.integers(0, 30), st.integers(0, 12)).map(lambda t: [t[0], t[0] + t[1]])
example = st.lists(span, max_size=6)
batch = st.integers(1, 8).flatmap(lambda n: st.tuples(st.lists(example, min_size=n, max_size=n),
                                                      st.lists(example, min_size=n, max_size=n)))


def _assert_same(a, b):
    assert a.keys() == b.keys()
    for m in a:
        assert a[m].keys() == b[m].keys()
        for k in a[m]:
            np.testing.assert_array_equal(a[m][k], b[m][k], err_msg=f"{m}.{k}")


@settings(max_examples=300, deadline=None)
@given(batch)
def test_metrics_together_equal_metrics_alone(data):
    refs, preds = data
    together = mycelium.statistics(refs, preds)
    for name in METRICS:
        alone = mycelium.statistics(refs, preds, metrics=[name])
        _assert_same({name: together[name]}, alone)


@settings(max_examples=200, deadline=None)
@given(batch, st.integers(0, 2**62))
def test_huge_offsets_use_exact_keys(data, shift):
    refs, preds = data
    base = mycelium.statistics(refs, preds)
    move = lambda ex: [[s + shift, e + shift] for s, e in ex]  # noqa: E731
    shifted = mycelium.statistics([move(x) for x in refs], [move(x) for x in preds])
    _assert_same(base, shifted)


def test_sequential_deteval_examples_inside_a_batch():
    # refs [3,7),[3,11) / preds [1,6),[7,17) is order-dependent in the original DetEval:
    # both refs compete for the predictions in the split pass.
    tricky = ([[3, 7], [3, 11]], [[1, 6], [1, 7], [7, 17]])
    plain = ([[0, 10]], [[0, 5], [5, 10]])
    alone = mycelium.statistics([tricky[0]], [tricky[1]], metrics=["deteval_1d"])
    mixed = mycelium.statistics([plain[0], tricky[0], plain[0]],
                                [plain[1], tricky[1], plain[1]], metrics=["deteval_1d"])
    for key, values in alone["deteval_1d"].items():
        assert mixed["deteval_1d"][key][1] == values[0], key


def test_huge_single_span_is_instant_and_exact():
    r = mycelium.evaluate([[0, 2**62]], [[0, 2**61]], metrics=["iou", "character"])
    assert r["iou"]["score"] == 0.5
    assert r["character"] == {"precision": 1.0, "recall": 0.5, "f1": 2 / 3}
    r = mycelium.evaluate([[[0, 2**63 - 1]], [[5, 9]]], [[[1, 2**63 - 1]], [[5, 9]]],
                          metrics=["iou"], average="micro")
    assert r["iou"]["score"] == (2**63 - 2 + 4) / (2**63 - 1 + 4)


REFS = [[[0, 10], [12, 15]], [], [[4, 7]], [[0, 3], [2, 6]]]
PREDS = [[[2, 8]], [[1, 2]], [[4, 7], [4, 7]], []]


def _arrow(spans, list_type=pa.list_, int_type=pa.int64(), extra=False):
    fields = [("start", int_type), ("end", int_type)]
    if extra:
        fields.append(("label_type", pa.string()))
    rows = [[dict(start=s, end=e, **({"label_type": "x"} if extra else {})) for s, e in ex]
            for ex in spans]
    return pa.array(rows, type=list_type(pa.struct(fields)))


FORMS = {
    "lists": lambda s: s,
    "tuples": lambda s: [tuple(tuple(x) for x in ex) for ex in s],
    "dicts": lambda s: [[{"start": a, "end": b, "note": "ignored"} for a, b in ex] for ex in s],
    "json": lambda s: [json.dumps(ex) for ex in s],
    "numpy-objects": lambda s: np.array([np.array(ex, dtype=np.int64).reshape(-1, 2)
                                         for ex in s], dtype=object),
    "arrow": _arrow,
    "arrow-large-int32": lambda s: _arrow(s, pa.large_list, pa.int32()),
    "arrow-extra-field": lambda s: _arrow(s, extra=True),
    "arrow-chunked": lambda s: pa.chunked_array([_arrow(s[:2]), _arrow(s[2:])]),
    "arrow-pairs": lambda s: pa.array(s, type=pa.list_(pa.list_(pa.int64()))),
    "pandas-object": lambda s: pd.Series(s, index=[10, 11, 12, 13]),
    "pandas-arrow": lambda s: pd.Series(_arrow(s), dtype=pd.ArrowDtype(_arrow(s).type)),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_input_form_gives_the_same_statistics(form):
    expected = mycelium.statistics(REFS, PREDS)
    got = mycelium.statistics(FORMS[form](REFS), FORMS[form](PREDS))
    _assert_same(expected, got)


def test_polars_series():
    pl = pytest.importorskip("polars", reason="polars is an optional extra")
    to_pl = lambda s: pl.Series([[{"start": a, "end": b} for a, b in ex] for ex in s])  # noqa
    _assert_same(mycelium.statistics(REFS, PREDS),
                 mycelium.statistics(to_pl(REFS), to_pl(PREDS)))


def test_numpy_array_is_one_example():
    got = mycelium.evaluate(np.array([[0, 10]]), np.array([[2, 8]]), metrics=["iou"])
    assert got["iou"]["score"] == 0.6 and got["meta"]["examples"] == 1


def test_sliced_arrow_array():
    arr = _arrow(REFS + REFS)
    preds = _arrow(PREDS + PREDS)
    _assert_same(mycelium.statistics(REFS, PREDS),
                 mycelium.statistics(arr.slice(4, 4), preds.slice(4, 4)))


nested_span = st.tuples(st.integers(0, 12), st.integers(1, 10)).map(lambda t: [t[0], t[0] + t[1]])
crowded = st.lists(nested_span, max_size=7)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(crowded, crowded), min_size=1, max_size=6))
def test_deteval_rounds_equal_the_sequential_transcription(examples):
    """The vectorised rounds of passes 2-3 == the literal sequential passes, on crowded
    examples where many spans compete for the same candidates."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[1] / "metrics"))
    from _slow_kernels import deteval

    refs = [r for r, _ in examples]
    preds = [p for _, p in examples]
    got = mycelium.statistics(refs, preds, metrics=["deteval_1d"])["deteval_1d"]
    for k, (r, p) in enumerate(examples):
        want = deteval(r, p)
        assert {key: int(got[key][k]) for key in want} == want


@settings(max_examples=200, deadline=None)
@given(batch)
def test_pairs_are_exactly_the_overlapping_ones(data):
    """DetEval and CLEval never enumerate a pair that does not overlap, nor miss one."""
    from mycelium.evaluate import prepare
    from mycelium.metrics import Workspace

    refs, preds = data
    p = prepare(refs, preds)
    ws = Workspace(p.refs, p.preds, share_pairs=True)
    got = sorted(zip(ws.pairs.ref.tolist(), ws.pairs.pred.tolist()))
    r, d = p.refs, p.preds
    want = sorted(
        (i, j)
        for k in range(r.n_examples)
        for i in range(r.offsets[k], r.offsets[k + 1])
        for j in range(d.offsets[k], d.offsets[k + 1])
        if min(r.ends[i], d.ends[j]) > max(r.starts[i], d.starts[j]))
    assert got == want
    assert (ws.pairs.overlap > 0).all()
