"""``typed_span``: hand-computed cases, nervaluate 1.2.1 on disjoint spans (hypothesis, all
four schemes), and the documented difference on overlapping spans (order-free here,
list-order dependent there).

nervaluate is a test-only cross-check (the ``test`` extra); those tests skip without it.
Its ends are inclusive, so a half-open ``[s, e)`` is given to it as ``start=s, end=e-1``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mycelium.metrics.typed_span import (SCHEMES, STATISTICS, TypedSpans, measures,
                                         typed_statistics)
from mycelium.views.typology import typed_span, typed_span_statistics

#: nervaluate's name of each scheme.
NERVALUATE = {"strict": "strict", "exact": "exact", "partial": "partial", "type": "ent_type"}
TYPES = ("Intrinsic", "Extrinsic", "Questionable")


def counts(refs, preds, scheme):
    st_ = typed_statistics(TypedSpans.of(refs), TypedSpans.of(preds), scheme)
    return {k: int(v.sum()) for k, v in st_.items()}


# --- hand-computed cases ------------------------------------------------------------

def test_identical_spans_are_correct_under_every_scheme():
    spans = [[(0, 4, "A"), (6, 9, "B")]]
    for scheme in SCHEMES:
        assert counts(spans, spans, scheme) == {"correct": 2, "incorrect": 0, "partial": 0,
                                                "missed": 0, "spurious": 0}


def test_same_boundaries_other_type():
    refs, preds = [[(3, 8, "A")]], [[(3, 8, "B")]]
    assert counts(refs, preds, "strict")["incorrect"] == 1
    assert counts(refs, preds, "exact")["correct"] == 1
    assert counts(refs, preds, "partial")["correct"] == 1
    assert counts(refs, preds, "type")["incorrect"] == 1


def test_overlap_same_type():
    # [0, 10) vs [5, 12): they share [5, 10).
    refs, preds = [[(0, 10, "A")]], [[(5, 12, "A")]]
    assert counts(refs, preds, "strict")["incorrect"] == 1
    assert counts(refs, preds, "exact")["incorrect"] == 1
    assert counts(refs, preds, "partial")["partial"] == 1
    assert counts(refs, preds, "type")["correct"] == 1


def test_half_open_touching_spans_do_not_overlap():
    # [0, 5) and [5, 9) share no character: one missed, one spurious in every scheme.
    for scheme in SCHEMES:
        c = counts([[(0, 5, "A")]], [[(5, 9, "A")]], scheme)
        assert (c["missed"], c["spurious"], c["correct"] + c["incorrect"] + c["partial"]) \
            == (1, 1, 0)


def test_partial_measures_by_hand():
    # One exact (correct), one overlap (partial), one missed, one spurious:
    # precision = (1 + 0.5) / 3, recall = (1 + 0.5) / 3.
    refs = [[(0, 4, "A"), (10, 20, "A"), (30, 35, "B")]]
    preds = [[(0, 4, "B"), (15, 25, "A"), (40, 45, "A")]]
    st_ = typed_statistics(TypedSpans.of(refs), TypedSpans.of(preds), "partial")
    assert {k: int(v[0]) for k, v in st_.items()} == {
        "correct": 1, "incorrect": 0, "partial": 1, "missed": 1, "spurious": 1}
    got = measures(st_, "partial")
    assert got["precision"] == pytest.approx(0.5) and got["recall"] == pytest.approx(0.5)


def test_type_scheme_takes_the_closest_reference_of_the_same_type():
    # The prediction overlaps two references of its type; [10, 20) is closer (distance
    # 2) than [0, 12) (distance 18), so [0, 12) is missed.
    c = counts([[(0, 12, "A"), (10, 20, "A")]], [[(11, 21, "A")]], "type")
    assert c == {"correct": 1, "incorrect": 0, "partial": 0, "missed": 1, "spurious": 0}


def test_duplicates_and_empty_spans():
    # A duplicate (start, end, type) counts once; a zero-length span is dropped; the
    # same boundaries under two types are two spans.
    refs = [[(0, 4, "A"), (0, 4, "A"), (6, 6, "A"), (8, 9, "A"), (8, 9, "B")]]
    preds = [[(0, 4, "A")]]
    assert counts(refs, preds, "strict") == {"correct": 1, "incorrect": 0, "partial": 0,
                                             "missed": 2, "spurious": 0}


def test_micro_and_macro():
    refs = [[(0, 4, "A")], [(0, 4, "A"), (5, 9, "A")]]
    preds = [[(0, 4, "A")], [(0, 4, "A")]]
    st_ = typed_statistics(TypedSpans.of(refs), TypedSpans.of(preds), "strict")
    assert measures(st_, average="micro")["recall"] == pytest.approx(2 / 3)
    assert measures(st_, average="macro")["recall"] == pytest.approx(0.75)
    assert measures(st_, average="macro")["f1"] == pytest.approx((1 + 2 / 3) / 2)


def test_zero_division():
    st_ = typed_statistics(TypedSpans.of([[(0, 3, "A")]]), TypedSpans.of([[]]), "strict")
    assert measures(st_, zero_division=1.0) == {"precision": 1.0, "recall": 0.0, "f1": 0.0}
    assert measures(st_)["precision"] == 0.0


def test_the_dict_face_reads_the_type_field():
    refs = [[{"start": 0, "end": 10, "label": "U"}, {"start": 20, "end": 25, "label": "Q"}]]
    preds = [[{"start": 0, "end": 10, "label": "Q"}]]
    st_ = typed_span_statistics(refs, preds, type_field="label", scheme="strict")
    assert {k: int(v[0]) for k, v in st_.items()} == {
        "correct": 0, "incorrect": 1, "partial": 0, "missed": 1, "spurious": 0}
    assert typed_span(refs, preds, type_field="label", scheme="exact") == {
        "precision": 1.0, "recall": 0.5, "f1": pytest.approx(2 / 3)}


def test_refusals():
    one = TypedSpans.of([[(0, 1, "A")]])
    with pytest.raises(ValueError, match="Expected a scheme in"):
        typed_statistics(one, one, "ent_type")
    with pytest.raises(ValueError, match="as many examples"):
        typed_statistics(one, TypedSpans.of([[], []]), "strict")
    with pytest.raises(ValueError, match="triple"):
        TypedSpans.of([[(0, 1)]])
    with pytest.raises(KeyError, match="no span has a 'label' field"):
        typed_span_statistics([[[0, 3]]], [[[0, 3]]], type_field="label")


# --- nervaluate 1.2.1 on disjoint spans -----------------------------------------------

nervaluate = pytest.importorskip("nervaluate", reason="nervaluate (test extra) is not "
                                 "installed: the typed_span cross-check is skipped")


def nervaluate_counts(refs, preds, scheme):
    """nervaluate's overall counts; spans given inclusive (end - 1), in the listed order."""
    def doc(spans):
        return [{"label": t, "start": s, "end": e - 1} for s, e, t in spans]
    result = nervaluate.Evaluator([doc(x) for x in refs], [doc(x) for x in preds],
                                  tags=list(TYPES), loader="dict").evaluate()
    r = result["overall"][NERVALUATE[scheme]]
    return ({k: getattr(r, k) for k in STATISTICS},
            {"precision": r.precision, "recall": r.recall, "f1": r.f1})


@st.composite
def disjoint_side(draw):
    """Disjoint typed spans in (start, end) order, each at most 100 characters long
    (nervaluate's 1 % minimum overlap is one character only up to there)."""
    n = draw(st.integers(0, 6))
    spans, at = [], 0
    for _ in range(n):
        at += draw(st.integers(0, 8))
        length = draw(st.integers(1, 100))
        spans.append((at, at + length, draw(st.sampled_from(TYPES))))
        at += length
    return spans


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(disjoint_side(), disjoint_side()), min_size=1, max_size=5),
       st.sampled_from(SCHEMES))
def test_equals_nervaluate_on_disjoint_spans(pairs, scheme):
    refs, preds = [r for r, _ in pairs], [p for _, p in pairs]
    want_counts, want = nervaluate_counts(refs, preds, scheme)
    assert counts(refs, preds, scheme) == want_counts
    st_ = typed_statistics(TypedSpans.of(refs), TypedSpans.of(preds), scheme)
    got = measures(st_, scheme)
    for key in ("precision", "recall", "f1"):
        assert got[key] == pytest.approx(want[key], abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(disjoint_side(), disjoint_side(), st.sampled_from(SCHEMES), st.randoms())
def test_order_free(refs, preds, scheme, rnd):
    shuffled_r, shuffled_p = list(refs), list(preds)
    rnd.shuffle(shuffled_r)
    rnd.shuffle(shuffled_p)
    assert counts([refs], [preds], scheme) == counts([shuffled_r], [shuffled_p], scheme)


def nervaluate_orders(refs, preds, scheme):
    """nervaluate's counts for every listed order of the two sides."""
    return {tuple(nervaluate_counts([list(r)], [list(p)], scheme)[0].values())
            for r in itertools.permutations(refs) for p in itertools.permutations(preds)}


def test_overlapping_spans_strict_nervaluate_depends_on_order_mycelium_does_not():
    # The prediction [4, 10) overlaps the reference [9, 10), which another prediction
    # matches exactly. nervaluate: listed first, [4, 10) takes [9, 10) (incorrect) and
    # the identical prediction is spurious; listed second, the identical pair is correct.
    refs = [(0, 4, "Extrinsic"), (9, 10, "Extrinsic")]
    preds = [(4, 10, "Intrinsic"), (9, 10, "Extrinsic")]
    assert nervaluate_orders(refs, preds, "strict") == {(0, 1, 0, 1, 1), (1, 0, 0, 1, 1)}
    # mycelium: identical pairs first, whatever the order.
    for r, p in itertools.product(itertools.permutations(refs), itertools.permutations(preds)):
        assert counts([list(r)], [list(p)], "strict") == {
            "correct": 1, "incorrect": 0, "partial": 0, "missed": 1, "spurious": 1}


def test_overlapping_spans_type_nervaluate_depends_on_order_mycelium_does_not():
    # [6, 12) of type I overlaps both references; [7, 9) of type E overlaps both too.
    refs = [(4, 7, "Extrinsic"), (8, 12, "Intrinsic")]
    preds = [(7, 9, "Extrinsic"), (6, 12, "Intrinsic")]
    assert nervaluate_orders(refs, preds, "type") == {(0, 2, 0, 0, 0), (1, 0, 0, 1, 1)}
    # mycelium: canonical order, (6, 12) before (7, 9): [6, 12) takes [8, 12) (same type,
    # correct), then [7, 9) overlaps only the taken [8, 12) (it touches [4, 7) without
    # sharing a character): spurious, and [4, 7) is missed, for every listed order.
    for r, p in itertools.product(itertools.permutations(refs), itertools.permutations(preds)):
        assert counts([list(r)], [list(p)], "type") == {
            "correct": 1, "incorrect": 0, "partial": 0, "missed": 1, "spurious": 1}


def test_duplicates_count_once_here_twice_in_nervaluate():
    refs, preds = [[(0, 4, "Intrinsic")]], [[(0, 4, "Intrinsic"), (0, 4, "Intrinsic")]]
    assert counts(refs, preds, "strict")["spurious"] == 0
    assert nervaluate_counts(refs, preds, "strict")[0]["spurious"] == 1


def test_typed_statistics_are_int64_arrays():
    st_ = typed_statistics(TypedSpans.of([[]]), TypedSpans.of([[]]), "exact")
    assert all(v.dtype == np.int64 and v.shape == (1,) for v in st_.values())
