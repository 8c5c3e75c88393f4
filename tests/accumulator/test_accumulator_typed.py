"""`mycelium.Accumulator` with ``type_field=``: fed the examples in batches of any sizes,
its report (``by_type``, and ``typed_span`` under each of the four schemes, micro and
macro, with and without typed matching) equals `mycelium.evaluate`'s on all of them,
bit for bit; so does the report of accumulators merged, pickled or written with
`Accumulator.to_bytes` and read back."""

from __future__ import annotations

import pickle
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from mycelium import Accumulator, EmptySpanWarning

TYPES = ["A", "B", None]
SCHEMES = ["strict", "exact", "partial", "type"]
METRICS = ["typed_span", "character", "exact_span", "span_coverage", "iou"]


def exact(value):
    """``value`` with every float as its hex form: equal means equal bit for bit (NaN
    included)."""
    if isinstance(value, dict):
        return {k: exact(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [exact(v) for v in value]
    return value.hex() if isinstance(value, float) else value


span = st.builds(lambda s, n, t: {"start": s, "end": s + n, "label": t},
                 st.integers(0, 30), st.integers(0, 6), st.sampled_from(TYPES))
example = st.tuples(st.lists(span, max_size=4), st.lists(span, max_size=4))


def options(scheme: str, typed_matching: bool, average: str) -> dict:
    return dict(metrics=METRICS, type_field="label", typed_matching=typed_matching,
                average=average, params={"typed_span": {"scheme": scheme}})


def batches(examples: list, cuts: list[int]) -> list[list]:
    bounds = [0, *sorted(c % (len(examples) + 1) for c in cuts), len(examples)]
    # no empty batch: ``update([], [])`` reads as one example without spans
    return [examples[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]


def accumulated(kw: dict, parts: list[list]) -> Accumulator:
    acc = Accumulator(**kw)
    for part in parts:
        acc.update([r for r, _ in part], [p for _, p in part])
    return acc


@settings(max_examples=100, deadline=None)
@given(examples=st.lists(example, min_size=1, max_size=12),
       cuts=st.lists(st.integers(0, 12), max_size=4),
       scheme=st.sampled_from(SCHEMES), typed_matching=st.booleans(),
       average=st.sampled_from(["micro", "macro"]),
       zero_division=st.sampled_from([0.0, 1.0, "nan", "warn"]),
       offsets=st.sampled_from(["half-open", "inclusive"]))
def test_batch_by_batch_equals_the_dict_face(examples, cuts, scheme, typed_matching,
                                             average, zero_division, offsets):
    kw = dict(options(scheme, typed_matching, average), zero_division=zero_division,
              offsets=offsets)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptySpanWarning)
        warnings.simplefilter("ignore", mycelium.UndefinedMetricWarning)
        want = mycelium.evaluate([r for r, _ in examples], [p for _, p in examples], **kw)
        acc = accumulated(kw, batches(examples, cuts))
        got = acc.compute()
    assert exact(got) == exact(want)
    assert list(got["by_type"]) == list(want["by_type"])  # the types in the same order


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("typed_matching", [False, True])
def test_to_bytes_and_merge_carry_the_types(scheme, typed_matching):
    refs = [[{"start": 0, "end": 5, "label": "A"}, {"start": 7, "end": 9, "label": "B"}],
            [{"start": 1, "end": 4, "label": "B"}], [],
            [{"start": 2, "end": 6, "label": None}]]
    preds = [[{"start": 0, "end": 5, "label": "B"}], [{"start": 1, "end": 3, "label": "B"}],
             [{"start": 0, "end": 2, "label": "A"}], [{"start": 2, "end": 6, "label": "A"}]]
    for average in ("micro", "macro"):
        kw = options(scheme, typed_matching, average)
        want = exact(mycelium.evaluate(refs, preds, **kw))
        first = accumulated(kw, [list(zip(refs[:1], preds[:1]))])
        second = accumulated(kw, [list(zip(refs[1:], preds[1:]))])
        read = Accumulator.from_bytes(first.to_bytes())
        assert exact(read.compute()) == exact(first.compute())
        read.merge(Accumulator.from_bytes(second.to_bytes()))
        assert exact(read.compute()) == want
        assert exact(Accumulator.from_bytes(read.to_bytes()).compute()) == want
        assert exact(pickle.loads(pickle.dumps(read)).compute()) == want
    # the numbers themselves (strict, micro, reference side): type B has 2 reference
    # spans in 2 examples, of whose 5 characters 2 are predicted as anything
    by_type = mycelium.evaluate(refs, preds, **options("strict", False, "micro"))["by_type"]
    assert list(by_type) == ["A", "B", None]
    assert by_type["B"] == {"examples": 2, "n_ref": 2, "character": {"recall": 0.4},
                            "exact_span": {"recall": 0.0}, "span_coverage": {"recall": 0.5}}


def test_type_field_with_trim_spans_is_refused_at_construction():
    with pytest.raises(ValueError, match="trim_spans and type_field cannot be combined"):
        Accumulator(type_field="label", trim_spans="whitespace")


def test_typed_span_needs_type_field():
    with pytest.raises(ValueError, match="type_field"):
        Accumulator(metrics="typed_span")


@pytest.mark.parametrize("metrics", [["iou"], ["iou", "response_level"],
                                     ["typed_span", "character"]])
def test_to_bytes_with_an_example_dropped(metrics):
    # missing="drop" leaves the null example out of the statistics, not of the stream:
    # every column has a row per example, the dropped one's zero
    refs = [[{"start": 0, "end": 2, "label": "A"}], None, [{"start": 1, "end": 4, "label": "B"}]]
    preds = [[{"start": 0, "end": 2, "label": "B"}], [], [{"start": 1, "end": 3, "label": "B"}]]
    kw = dict(metrics=metrics, missing="drop", type_field="label", ci=0.9, n_resamples=40)
    acc = Accumulator(**kw)
    acc.update(refs[:2], preds[:2], ids=["a", "b"])
    acc.update(refs[2:], preds[2:], ids=["c"])
    want = mycelium.evaluate(refs, preds, ids=["a", "b", "c"], **kw)
    assert want["meta"]["dropped"] == 1
    assert exact(Accumulator.from_bytes(acc.to_bytes()).compute()) == exact(want)
    assert exact(acc.compute()) == exact(want)


def test_spans_at_a_threshold_per_type():
    # token scores at 0.5 give the (untyped) predictions; the per-type rows read the
    # references' types, as evaluate does: A's 2 characters all predicted, B's 2 of 3
    text = ["abcdefgh", "abcdefgh"]
    refs = [[{"start": 0, "end": 2, "label": "A"}], [{"start": 1, "end": 4, "label": "B"}]]
    offsets = [[[0, 2], [2, 4], [4, 8]], [[0, 3], [3, 8]]]
    scores = [[0.9, 0.2, 0.1], [0.7, 0.1]]
    acc = Accumulator(metrics=["iou", "character"], type_field="label")
    for part in (slice(0, 1), slice(1, 2)):
        acc.update(refs[part], text=text[part], token_offsets=offsets[part],
                   token_scores=scores[part], threshold=0.5)
    want = mycelium.evaluate(refs, None, text=text, metrics=["iou", "character"],
                             type_field="label", token_offsets=offsets,
                             token_scores=scores, threshold=0.5)
    got = Accumulator.from_bytes(acc.to_bytes()).compute()
    assert exact({k: v for k, v in got.items() if k != "meta"}) == exact(
        {k: v for k, v in want.items() if k != "meta"})
    assert got["by_type"]["A"]["character"] == {"recall": 1.0}
    assert got["by_type"]["B"]["character"] == {"recall": 2 / 3}
