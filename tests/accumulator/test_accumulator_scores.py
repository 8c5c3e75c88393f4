"""`mycelium.Accumulator` with detector scores and ``trim_spans``: any split into batches,
any merge tree (through ``to_bytes`` and pickle), any order with ids gives exactly
`mycelium.evaluate` on all the data at once — char_auroc, char_ap, response_auroc,
response_level, the spans at a threshold, intervals and meta, bit for bit."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from _reports import same
from mycelium import Accumulator
from mycelium.scores.plan import Tuned

ALPHABET = "ab ,.!\t"


@st.composite
def records(draw, n_min=1, n_max=10):
    """Texts with reference and predicted spans, soft predictions and token scores."""
    n = draw(st.integers(n_min, n_max))
    out = []
    for _ in range(n):
        text = draw(st.text(ALPHABET, max_size=24))
        size = len(text)

        def spans():
            if size == 0:
                return []
            starts = draw(st.lists(st.integers(0, size - 1), max_size=3))
            return [[s, draw(st.integers(s + 1, size))] for s in starts]

        cuts = sorted(set([0, size] + draw(st.lists(st.integers(0, size), max_size=4))))
        tokens = list(zip(cuts, cuts[1:]))
        prob = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])
        out.append({"text": text, "ref": spans(), "pred": spans(),
                    "soft": [{"start": s, "end": e, "prob": draw(prob)} for s, e in spans()],
                    "offsets": tokens, "scores": [draw(prob) for _ in tokens]})
    return out


FORMS = {
    "spans+trim": (dict(trim_spans="punctuation"), lambda c: {"predictions": c["pred"]}),
    "soft": (dict(), lambda c: {"soft_predictions": c["soft"]}),
    "soft@0.5": (dict(), lambda c: {"soft_predictions": c["soft"], "threshold": 0.5}),
    "tokens@tuned+trim": (dict(trim_spans="whitespace"), lambda c: {
        "token_offsets": c["offsets"], "token_scores": c["scores"],
        "threshold": Tuned(0.5, "iou")}),
    "spans+tokens": (dict(metrics=["char_auroc", "char_ap", "response_auroc", "iou",
                                   "response_level"]),
                     lambda c: {"predictions": c["pred"], "token_offsets": c["offsets"],
                                "token_scores": c["scores"]}),
}


def columns(rows):
    return {k: [r[k] for r in rows] for k in rows[0]} if rows else {}


def update(acc, rows, form, ids=None):
    c = columns(rows)
    acc.update(c["ref"], text=c["text"], ids=ids, **FORMS[form][1](c))


@pytest.mark.parametrize("form", list(FORMS))
@settings(max_examples=25, deadline=None)
@given(data=st.data(), average=st.sampled_from(["macro", "micro"]))
def test_any_split_equals_evaluate(form, data, average):
    rows = data.draw(records())
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(rows)), max_size=3))))
    options = dict(FORMS[form][0], average=average)
    acc = Accumulator(**options)
    bounds = [0, *cuts, len(rows)]
    for a, b in zip(bounds[:-1], bounds[1:]):
        if a < b:
            update(acc, rows[a:b], form)
    c = columns(rows)
    want = mycelium.evaluate(c["ref"], text=c["text"], **options, **FORMS[form][1](c))
    assert same(acc.compute(), want)


@pytest.mark.parametrize("form", ["soft", "tokens@tuned+trim", "spans+tokens"])
@settings(max_examples=15, deadline=None)
@given(data=st.data(), average=st.sampled_from(["macro", "micro"]))
def test_any_merge_tree_and_order_with_ids_equals_evaluate(form, data, average):
    rows = data.draw(records(n_min=2))
    ids = [f"ex{i}" for i in range(len(rows))]
    order = data.draw(st.permutations(range(len(rows))))
    cut = data.draw(st.integers(1, len(rows) - 1))
    options = dict(FORMS[form][0], average=average, ci=0.9, n_resamples=40, seed=3)
    shards = []
    for part in (order[:cut], order[cut:]):
        acc = Accumulator(**options)
        update(acc, [rows[i] for i in part], form, ids=[ids[i] for i in part])
        shards.append(acc)
    merged = Accumulator.from_bytes(shards[1].to_bytes())  # written, read back, merged
    merged = pickle.loads(pickle.dumps(merged)).merge(shards[0])
    got = merged.compute()
    ordered = [rows[i] for i in list(order[cut:]) + list(order[:cut])]
    c = columns(ordered)
    want = mycelium.evaluate(c["ref"], text=c["text"], ids=[ids[i] for i in list(
        order[cut:]) + list(order[:cut])], **options, **FORMS[form][1](c))
    assert same(got, want)
    # Keyed by ids, the span metrics' intervals do not depend on the order either (exact
    # sums); the score metrics' resampled values are float sums in the examples' order.
    c = columns(rows)
    in_order = mycelium.evaluate(c["ref"], text=c["text"], ids=ids, **options,
                                 **FORMS[form][1](c))
    for metric, measures in in_order["ci"].items():
        for measure, bounds in measures.items():
            if metric in ("char_auroc", "char_ap", "response_auroc"):
                assert got["ci"][metric][measure] == pytest.approx(bounds, rel=1e-9,
                                                                   nan_ok=True)
            else:
                assert same(got["ci"][metric][measure], bounds), (metric, measure)


def test_batches_must_share_the_score_form_and_threshold():
    acc = Accumulator()
    acc.update([[[0, 2]]], text=["abcd"], soft_predictions=[[{"start": 0, "end": 2,
                                                             "prob": 0.9}]], threshold=0.5)
    with pytest.raises(ValueError, match=r"Expected every batch scored as the first \(soft "
                                         r"scores at threshold 0.5\), got a batch with soft "
                                         r"scores at threshold 0.6"):
        acc.update([[[0, 2]]], text=["abcd"], threshold=0.6,
                   soft_predictions=[[{"start": 0, "end": 2, "prob": 0.9}]])
    with pytest.raises(ValueError, match="got a batch with predicted spans"):
        acc.update([[[0, 2]]], [[[0, 1]]], text=["abcd"])
    other = Accumulator()
    other.update([[[0, 2]]], [[[0, 1]]], text=["abcd"])
    with pytest.raises(ValueError, match="Expected accumulators scored alike"):
        acc.merge(other)


def test_trim_spans_is_a_setting_recorded_in_the_signature():
    acc = Accumulator(metrics="iou", trim_spans="whitespace")
    acc.update([[[0, 4]]], [[[1, 4]]], text=["  ab"])
    got = acc.compute()
    assert got["iou"] == {"score": 1.0}  # both sides trim to [2, 4)
    assert "trim_spans:whitespace" in got["meta"]["signature"]
    with pytest.raises(ValueError, match="trim_spans"):
        Accumulator(trim_spans="commas")
