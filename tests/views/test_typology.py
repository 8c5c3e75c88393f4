"""Typology: per-type breakdowns add up to the untyped numbers, hand-checked RAGTruth-like
examples, typed matching, and the same answers from every input form."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mycelium
from mycelium.metrics import resolve_params
from mycelium.views.typology import typed_statistics

TYPES = ["Evident Conflict", "Subtle Conflict", "Evident Baseless Info", "Subtle Baseless Info"]
METRICS = ("exact_span", "character", "span_coverage")


def _typed(refs, preds, typed_matching=False, metrics=METRICS):
    n = len(refs)
    return typed_statistics(refs, preds, type_field="label_type", kept=np.ones(n, bool),
                            text_lengths=None, metrics=metrics,
                            params=resolve_params(None), typed_matching=typed_matching)


# ------------------------------------------------------------------ strategies


@st.composite
def disjoint_typed_example(draw):
    """Disjoint (possibly adjacent) reference spans, one type each."""
    cuts = sorted(set(draw(st.lists(st.integers(0, 60), max_size=10))))
    spans = []
    for s, e in zip(cuts, cuts[1:]):
        if draw(st.booleans()):
            spans.append({"start": s, "end": e, "label_type": draw(st.sampled_from(TYPES))})
    return spans


@st.composite
def distinct_typed_example(draw):
    """Distinct, possibly overlapping reference spans, one type each."""
    pairs = draw(st.sets(st.tuples(st.integers(0, 40), st.integers(1, 20)), max_size=6))
    return [{"start": s, "end": s + n, "label_type": draw(st.sampled_from(TYPES))}
            for s, n in sorted(pairs)]


span_list = st.lists(st.tuples(st.integers(0, 40), st.integers(1, 25)).map(
    lambda t: [t[0], t[0] + t[1]]), max_size=4)


def _sum_over_types(typed, metric, stat):
    return sum(np.asarray(typed.stats[t][metric][stat], dtype=np.int64) for t in typed.types)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(disjoint_typed_example(), span_list), min_size=1, max_size=6))
def test_disjoint_types_add_up_to_the_untyped_counts(batch):
    refs = [r for r, _ in batch]
    preds = [p for _, p in batch]
    untyped = mycelium.statistics(refs, preds, metrics=list(METRICS))
    typed = _typed(refs, preds)
    if not typed.types:
        assert all(not r for r in refs)
        return
    assert np.array_equal(sum(typed.n_ref[t] for t in typed.types),
                          untyped["exact_span"]["n_ref"])
    assert np.array_equal(_sum_over_types(typed, "exact_span", "tp"),
                          untyped["exact_span"]["tp"])
    # Masks of different types are disjoint, so character counts add up too.
    assert np.array_equal(_sum_over_types(typed, "character", "tp"),
                          untyped["character"]["tp"])
    assert np.array_equal(_sum_over_types(typed, "character", "fn"),
                          untyped["character"]["fn"])
    assert np.array_equal(_sum_over_types(typed, "span_coverage", "n_ref_covered"),
                          untyped["span_coverage"]["n_ref_covered"])
    # Every type is scored against all predictions.
    for t in typed.types:
        assert np.array_equal(typed.stats[t]["exact_span"]["n_pred"],
                              untyped["exact_span"]["n_pred"])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(distinct_typed_example(), span_list), min_size=1, max_size=6))
def test_distinct_overlapping_spans_add_up_for_instance_counts(batch):
    refs = [r for r, _ in batch]
    preds = [p for _, p in batch]
    untyped = mycelium.statistics(refs, preds, metrics=["exact_span", "span_coverage"])
    typed = _typed(refs, preds, metrics=("exact_span", "span_coverage"))
    if not typed.types:
        return
    assert np.array_equal(sum(typed.n_ref[t] for t in typed.types),
                          untyped["exact_span"]["n_ref"])
    assert np.array_equal(_sum_over_types(typed, "exact_span", "tp"),
                          untyped["exact_span"]["tp"])
    assert np.array_equal(_sum_over_types(typed, "span_coverage", "n_ref_covered"),
                          untyped["span_coverage"]["n_ref_covered"])
    report = mycelium.evaluate(refs, preds, type_field="label_type", metrics="exact_span")
    assert sum(v["n_ref"] for v in report["by_type"].values()) == \
        int(untyped["exact_span"]["n_ref"].sum())


# ----------------------------------------------------------------- hand-checked


REFS = [
    [{"start": 0, "end": 10, "label_type": "Evident Conflict"},
     {"start": 20, "end": 30, "label_type": "Subtle Baseless Info"}],
    [{"start": 5, "end": 15, "label_type": "Evident Conflict"}],
    [],
]
PREDS = [[[0, 10], [22, 26]], [[0, 4]], [[3, 8]]]


@pytest.mark.parametrize("profile,average", [("ragtruth", "micro"), (None, "macro")])
def test_ragtruth_like_breakdown_by_hand(profile, average):
    r = mycelium.evaluate(REFS, PREDS, type_field="label_type", profile=profile,
                          metrics=["exact_span", "character", "span_coverage", "iou"])
    assert r["meta"]["average"] == average
    # Evident Conflict: examples 0 and 1. exact: [0,10) found, [5,15) not -> 1/2 either
    # way; character: 10 of 10 and 0 of 10 chars -> 10/20 (micro) = mean(1, 0) (macro);
    # coverage: [0,10) contains [0,10), [5,15) contains no prediction -> 1/2.
    # Subtle Baseless Info: example 0 only. [20,30) vs preds [0,10),[22,26): not exact,
    # 4 of 10 chars, contains [22,26).
    # Only reference-side measures; IoU (both sides) is not broken down.
    assert r["by_type"] == {
        "Evident Conflict": {"examples": 2, "n_ref": 2, "exact_span": {"recall": 0.5},
                             "character": {"recall": 0.5}, "span_coverage": {"recall": 0.5}},
        "Subtle Baseless Info": {"examples": 1, "n_ref": 1, "exact_span": {"recall": 0.0},
                                 "character": {"recall": 0.4},
                                 "span_coverage": {"recall": 1.0}},
    }
    # The untyped numbers are unchanged by the breakdown.
    plain = mycelium.evaluate(REFS, PREDS, profile=profile,
                              metrics=["exact_span", "character", "span_coverage", "iou"])
    assert {k: v for k, v in r.items() if k != "by_type"} == plain


def test_micro_typed_recall_differs_from_macro_when_examples_differ_in_size():
    refs = [[{"start": 0, "end": 10, "label_type": "A"}],
            [{"start": 0, "end": 2, "label_type": "A"}]]
    preds = [[[0, 10]], []]
    micro = mycelium.evaluate(refs, preds, type_field="label_type", metrics="character",
                              average="micro")["by_type"]["A"]["character"]["recall"]
    macro = mycelium.evaluate(refs, preds, type_field="label_type", metrics="character",
                              average="macro")["by_type"]["A"]["character"]["recall"]
    assert micro == 10 / 12 and macro == 0.5


def test_typed_matching_restricts_predictions_by_hand():
    preds = [[{"start": 0, "end": 10, "label_type": "Evident Conflict"},
              {"start": 22, "end": 26, "label_type": "Evident Conflict"}],
             [{"start": 0, "end": 4, "label_type": "Subtle Baseless Info"}],
             []]
    r = mycelium.evaluate(REFS, preds, type_field="label_type", typed_matching=True,
                          metrics=["exact_span", "character"], average="micro")
    ec, sbi = r["by_type"]["Evident Conflict"], r["by_type"]["Subtle Baseless Info"]
    # Evident Conflict: refs [0,10) and [5,15); preds [0,10) and [22,26) (example 0 only).
    # exact: tp 1 of 2 preds, 1 of 2 refs; character: tp 10, pred chars 14, ref chars 20.
    assert ec["exact_span"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    assert ec["character"]["precision"] == 10 / 14
    assert ec["character"]["recall"] == 0.5
    assert ec["character"]["f1"] == 2 * 10 * 10 / (10 * 20 + 14 * 10)  # 2ac/(ad+bc)
    # Subtle Baseless Info: ref [20,30) in example 0, pred [0,4) in example 1: nothing
    # matches; the examples are those with the type on either side.
    assert sbi["examples"] == 2 and sbi["n_ref"] == 1
    assert sbi["exact_span"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert sbi["character"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    # Without typed matching, precision is not reported per type at all.
    untyped = mycelium.evaluate(REFS, preds, type_field="label_type",
                                metrics=["exact_span", "character"], average="micro")
    assert set(untyped["by_type"]["Evident Conflict"]["character"]) == {"recall"}


def test_a_span_listed_under_two_types_counts_once_in_each():
    refs = [[{"start": 0, "end": 5, "label_type": "A"}, {"start": 0, "end": 5, "label_type": "B"},
             {"start": 0, "end": 5, "label_type": "A"}]]
    r = mycelium.evaluate(refs, [[[0, 5]]], type_field="label_type", metrics="exact_span")
    assert r["by_type"]["A"]["n_ref"] == 1 and r["by_type"]["B"]["n_ref"] == 1
    assert r["by_type"]["A"]["exact_span"]["recall"] == 1.0
    assert r["exact_span"]["recall"] == 1.0


# ----------------------------------------------------------------- input forms


ST = pa.struct([("start", pa.int64()), ("end", pa.int64()), ("label_type", pa.string()),
                ("annotator", pa.int32())])


def _arrow(refs):
    return pa.array([[dict(s, annotator=7) for s in ex] for ex in refs], type=pa.list_(ST))


def test_arrow_with_extra_fields_equals_lists_of_dicts():
    kw = dict(type_field="label_type", metrics=["exact_span", "character", "span_coverage"])
    from_lists = mycelium.evaluate(REFS, PREDS, **kw)
    from_arrow = mycelium.evaluate(_arrow(REFS), PREDS, **kw)
    from_pandas = mycelium.evaluate(pd.Series(_arrow(REFS).to_pylist(), dtype=pd.ArrowDtype(
        pa.list_(ST))), PREDS, **kw)
    assert from_arrow["by_type"] == from_lists["by_type"]
    assert from_pandas["by_type"] == from_lists["by_type"]
    chunked = pa.chunked_array([_arrow(REFS[:1]), _arrow(REFS[1:])])
    assert mycelium.evaluate(chunked, PREDS, **kw)["by_type"] == from_lists["by_type"]


def test_polars_typed_spans_equal_lists_of_dicts():
    pl = pytest.importorskip("polars")
    kw = dict(type_field="label_type", metrics=["exact_span", "character"])
    series = pl.from_arrow(_arrow(REFS))
    assert mycelium.evaluate(series, PREDS, **kw)["by_type"] == \
        mycelium.evaluate(REFS, PREDS, **kw)["by_type"]


def test_typed_matching_from_arrow_equals_lists():
    preds = [[{"start": 0, "end": 10, "label_type": "Evident Conflict"}],
             [{"start": 5, "end": 9, "label_type": "Evident Conflict"}], []]
    kw = dict(type_field="label_type", typed_matching=True, metrics=["character"])
    assert mycelium.evaluate(_arrow(REFS), _arrow(preds), **kw)["by_type"] == \
        mycelium.evaluate(REFS, preds, **kw)["by_type"]


def test_missing_field_on_struct_arrays_raises_key_error():
    with pytest.raises(KeyError, match="label_typ.*start.*end.*label_type"):
        mycelium.evaluate(_arrow(REFS), PREDS, type_field="label_typ")


def test_missing_field_on_lists_of_dicts_raises_key_error():
    with pytest.raises(KeyError):
        mycelium.evaluate(REFS, PREDS, type_field="label_typ")


def test_typed_matching_requires_typed_predictions():
    with pytest.raises((KeyError, ValueError)):
        mycelium.evaluate(REFS, PREDS, type_field="label_type", typed_matching=True,
                          metrics="exact_span")


def test_dropped_examples_are_left_out_of_the_breakdown():
    refs = REFS + [None]
    preds = PREDS + [[[0, 3]]]
    r = mycelium.evaluate(refs, preds, type_field="label_type", missing="drop",
                          metrics=["exact_span", "character"])
    assert r["by_type"] == mycelium.evaluate(REFS, PREDS, type_field="label_type",
                                             metrics=["exact_span", "character"])["by_type"]


def test_type_field_with_word_granularity_raises():
    with pytest.raises(ValueError, match="character granularity"):
        mycelium.evaluate(REFS, PREDS, type_field="label_type", granularity="word",
                          text=["x " * 20, "y " * 10, "z " * 5])
