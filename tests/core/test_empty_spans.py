"""Zero-length spans are valid and carry no characters, but never go silently: they are
counted in ``meta["empty_spans"]`` per side and one `mycelium.EmptySpanWarning` per call
names how many, the first, and the fix for inclusive ends (SPEC section 2)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mycelium
from mycelium import EmptySpanWarning
from mycelium.core.spans import SpanBatch, inclusive_to_half_open

TEXT = "0123456789"


def _caught(call):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = call()
    return result, [w for w in seen if issubclass(w.category, EmptySpanWarning)]


def test_warning_is_a_user_warning_exported_by_name():
    assert issubclass(EmptySpanWarning, UserWarning)
    assert mycelium.EmptySpanWarning is mycelium.errors.EmptySpanWarning


def test_inclusive_one_character_spans_no_longer_score_silently():
    # [7, 7] against [8, 8]: read half-open both are empty, so the IoU is the "both empty"
    # 1.0; it stays so (SPEC), but is counted and warned about, naming the first and the fix.
    report, seen = _caught(lambda: mycelium.evaluate([[7, 7]], [[8, 8]], text=TEXT,
                                                     metrics=["iou"]))
    assert report["iou"]["score"] == 1.0
    assert report["meta"]["empty_spans"] == {"references": 1, "predictions": 1}
    assert len(seen) == 1
    message = str(seen[0].message)
    for fragment in ("2 zero-length spans", "references example 0, span 0", "[7, 7]",
                     'offsets="inclusive"'):
        assert fragment in message, (fragment, message)


def test_one_warning_per_call_counting_both_sides_of_a_batch():
    refs = [[[0, 2], [3, 3]], [[4, 4], [5, 5]], []]
    preds = [[[0, 2]], [[6, 6]], None]
    report, seen = _caught(lambda: mycelium.evaluate(refs, preds, missing="drop"))
    assert report["meta"]["empty_spans"] == {"references": 3, "predictions": 1}
    assert len(seen) == 1
    assert "4 zero-length spans" in str(seen[0].message)
    assert "references example 0, span 1: [3, 3]" in str(seen[0].message)
    assert seen[0].filename == __file__  # points at the caller's line


def test_no_empty_span_no_warning_and_a_zero_count():
    report, seen = _caught(lambda: mycelium.evaluate([[0, 2]], [[1, 3]]))
    assert seen == [] and report["meta"]["empty_spans"] == {"references": 0,
                                                             "predictions": 0}


def test_profiles_still_drop_empty_spans_and_warn():
    for profile in ("mu_shroom", "ragtruth"):
        report, seen = _caught(lambda: mycelium.evaluate(
            [[[0, 4]], [[2, 2]]], [[[0, 4], [6, 6]], []], text=[TEXT, TEXT],
            profile=profile, metrics=["iou"]))
        assert report["meta"]["empty_spans"] == {"references": 1, "predictions": 1}
        assert len(seen) == 1
    # the same numbers as without the empty spans
    plain = mycelium.evaluate([[[0, 4]], []], [[[0, 4]], []], text=[TEXT, TEXT],
                              profile="mu_shroom", metrics=["iou"])
    assert report["iou"] == plain["iou"]


def test_inclusive_to_half_open_adds_one_to_every_end():
    batch = SpanBatch(np.array([0, 2, 3]), np.array([0, 7, 3]), np.array([2, 7, 5]))
    out = inclusive_to_half_open(batch, "references")
    assert out.to_lists() == [[(0, 3), (7, 8)], [(3, 6)]]
    assert batch.to_lists() == [[(0, 2), (7, 7)], [(3, 5)]]  # the input is not changed
    big = SpanBatch(np.array([0, 1]), np.array([0]), np.array([2**63 - 1]))
    with pytest.raises(mycelium.SpanValidationError, match="int64"):
        inclusive_to_half_open(big, "references")


def test_accumulator_counts_every_batch_and_keeps_the_count_through_bytes():
    acc = mycelium.Accumulator(metrics=["iou"])
    _, seen = _caught(lambda: acc.update([[[1, 1]], [[0, 2]]], [[[0, 2]], [[3, 3]]]))
    assert len(seen) == 1
    with pytest.warns(EmptySpanWarning, match="references example 0, span 0: \\[4, 4\\]"):
        acc.update([[[4, 4]]], [[[0, 1]]])
    assert acc.compute()["meta"]["empty_spans"] == {"references": 2, "predictions": 1}
    back = mycelium.Accumulator.from_bytes(acc.to_bytes())
    assert back.compute()["meta"]["empty_spans"] == {"references": 2, "predictions": 1}


def test_sweep_warns_once_about_the_references():
    _, seen = _caught(lambda: mycelium.scores.sweep(
        [[[2, 2]], [[0, 3]]], text=["abcd", "abcd"], soft_predictions=[[], []]))
    assert len(seen) == 1
    assert seen[0].message.references == 1 and seen[0].message.predictions == 0


# --------------------------------------------------------- offsets="inclusive"

INCLUSIVE_REFS = [[[7, 7], [0, 2]], [[3, 5]], []]
INCLUSIVE_PREDS = [[[8, 8]], [[3, 4], [5, 5]], [[9, 9]]]


def _by_hand(batch):
    return [[[s, e + 1] for s, e in spans] for spans in batch]


def test_inclusive_ends_warn_then_equal_the_conversion_done_by_hand():
    texts = [TEXT] * 3
    # read as half-open: [7, 7] and [8, 8] are empty, and the warning says so
    _, seen = _caught(lambda: mycelium.evaluate(INCLUSIVE_REFS, INCLUSIVE_PREDS, text=texts))
    assert len(seen) == 1 and 'offsets="inclusive"' in str(seen[0].message)
    got, seen = _caught(lambda: mycelium.evaluate(INCLUSIVE_REFS, INCLUSIVE_PREDS, text=texts,
                                                  offsets="inclusive"))
    assert seen == [] and got["meta"]["empty_spans"] == {"references": 0, "predictions": 0}
    want = mycelium.evaluate(_by_hand(INCLUSIVE_REFS), _by_hand(INCLUSIVE_PREDS), text=texts)
    assert {m: got[m] for m in want if m != "meta"} == {m: want[m] for m in want
                                                        if m != "meta"}
    assert "offsets:inclusive" in got["meta"]["signature"]
    assert "offsets:half-open" in want["meta"]["signature"]
    assert mycelium.parse_signature(got["meta"]["signature"])["offsets"] == "inclusive"
    acc = mycelium.Accumulator(offsets="inclusive")
    acc.update(INCLUSIVE_REFS, INCLUSIVE_PREDS, text=texts)
    assert {m: v for m, v in acc.compute().items() if m != "meta"} == {
        m: v for m, v in got.items() if m != "meta"}


def test_inclusive_end_at_the_last_character_and_past_it():
    assert mycelium.evaluate([[9, 9]], [[9, 9]], text=TEXT, offsets="inclusive",
                             metrics=["exact_span"])["exact_span"]["f1"] == 1.0
    with pytest.raises(mycelium.SpanValidationError, match="end 11"):
        mycelium.evaluate([[9, 10]], [[9, 9]], text=TEXT, offsets="inclusive")
    with pytest.raises(ValueError, match="offsets='half-open' or 'inclusive'"):
        mycelium.evaluate([[0, 1]], [[0, 1]], offsets="closed")
