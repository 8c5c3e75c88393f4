"""`mycelium.annotators` on small hand-made items: votes, references, agreement, intervals."""

from __future__ import annotations

import pandas as pd
import pytest

import mycelium
from mycelium import annotators as A


def _frame(*items, text="abcdefghij"):
    return pd.DataFrame({
        "lang": ["en"] * len(items), "model_output_text": [text] * len(items),
        "annotations": [[{"annotator": a, "spans": [{"start": s, "end": e} for s, e in sp]}
                         for a, sp in item] for item in items]})


THREE = _frame([("a", [(0, 4)]), ("b", [(2, 6)]), ("c", [(3, 9)])])


def test_majority_at_any_vote_share():
    assert A.majority_reference(THREE).tolist() == [[{"start": 2, "end": 6}]]
    assert A.majority_reference(THREE, share=0.0).tolist() == [[{"start": 0, "end": 9}]]
    assert A.majority_reference(THREE, share=2 / 3).tolist() == [[{"start": 3, "end": 4}]]
    # at least a third (>= 1 of 3) is every marked character
    assert A.majority_reference(THREE, share=1 / 3, strict=False).tolist() == \
        [[{"start": 0, "end": 9}]]


def test_an_annotator_votes_once_per_character():
    # a's overlapping spans count once: [2, 4) has 2 votes of 3 (a, b), not 3
    frame = _frame([("a", [(0, 4), (2, 5)]), ("b", [(2, 4)]), ("c", [])])
    assert A.majority_reference(frame, share=2 / 3).tolist() == [[]]
    soft = A.soft_reference(frame)[0]
    assert [(x["start"], x["end"], x["prob"]) for x in soft] == [
        (0, 2, 1 / 3), (2, 4, 2 / 3), (4, 5, 1 / 3)]


def test_soft_reference_is_the_vote_share():
    soft = A.soft_reference(THREE)[0]
    assert [(x["start"], x["end"], x["prob"]) for x in soft] == [
        (0, 2, 1 / 3), (2, 3, 2 / 3), (3, 4, 1.0), (4, 6, 2 / 3), (6, 9, 1 / 3)]


def test_pairwise_is_every_ordered_pair_scored_as_evaluate_scores_it():
    out = A.pairwise_agreement(THREE, metrics=["iou", "character"], soft=False,
                               by=["annotator", "reference"])
    iou = out[out["metric"] == "iou"].set_index(["annotator", "reference"])["value"]
    assert iou.to_dict() == {("a", "b"): 2 / 6, ("a", "c"): 1 / 9, ("b", "a"): 2 / 6,
                             ("b", "c"): 3 / 7, ("c", "a"): 1 / 9, ("c", "b"): 3 / 7}
    # pooled over the six pairs, micro under the ragtruth profile, equals evaluate
    pairs = [([(2, 6)], [(0, 4)]), ([(3, 9)], [(0, 4)]), ([(0, 4)], [(2, 6)]),
             ([(3, 9)], [(2, 6)]), ([(0, 4)], [(3, 9)]), ([(2, 6)], [(3, 9)])]
    want = mycelium.evaluate([r for r, _ in pairs], [p for _, p in pairs],
                             profile="ragtruth", metrics=["character", "iou"])
    got = A.pairwise_agreement(THREE, profile="ragtruth", metrics=["character", "iou"],
                               soft=False)
    assert dict(zip(got["metric"] + "_" + got["measure"], got["value"])) == {
        f"{m}_{k}": v for m in ("character", "iou") for k, v in want[m].items()}
    assert set(got["average"]) == {"micro"} and set(got["examples"]) == {6}


def test_leave_one_out_majority_of_the_others():
    out = A.leave_one_out(THREE, by="annotator", metrics=["iou"], soft=False)
    # a: b and c agree on [3, 6); b: a and c on [3, 4); c: a and b on [2, 4)
    assert out[["annotator", "value"]].values.tolist() == [["a", 1 / 6], ["b", 1 / 4],
                                                           ["c", 1 / 7]]


def test_soft_spearman_compares_with_the_vote_share():
    out = A.leave_one_out(THREE, by="annotator", metrics=["soft_spearman"])
    cors = dict(zip(out["annotator"], out["value"]))
    refs = {"a": [(2, 3, 0.5), (3, 6, 1.0), (6, 9, 0.5)],
            "b": [(0, 3, 0.5), (3, 4, 1.0), (4, 9, 0.5)],
            "c": [(0, 2, 0.5), (2, 4, 1.0), (4, 6, 0.5)]}
    mine = {"a": (0, 4), "b": (2, 6), "c": (3, 9)}
    for who, spans in refs.items():
        want = mycelium.evaluate(
            [[0, 1]], [[0, 1]], text="abcdefghij", metrics="soft_spearman",
            soft_references=[{"start": s, "end": e, "prob": p} for s, e, p in spans],
            soft_predictions=[{"start": mine[who][0], "end": mine[who][1], "prob": 1.0}])
        assert cors[who] == want["soft_spearman"]["score"]
    assert set(out["average"]) == {"macro"}


def test_intervals_resample_items_not_pairs():
    # one item: every non-empty resample holds all of its pairs, so the interval is the
    # value itself (a pair-level bootstrap would spread it)
    out = A.pairwise_agreement(THREE, metrics=["iou"], soft=False, ci=0.9,
                               n_resamples=200, seed=3)
    row = out.iloc[0]
    assert row["ci_low"] == row["value"] == row["ci_high"] == pytest.approx(
        (2 / 6 * 2 + 1 / 9 * 2 + 3 / 7 * 2) / 6, abs=0)
    two = _frame([("a", [(0, 4)]), ("b", [(0, 4)])], [("a", [(0, 4)]), ("b", [(5, 9)])])
    out = A.pairwise_agreement(two, metrics=["iou"], soft=False, ci=0.9, n_resamples=400)
    assert out["ci_low"][0] == 0.0 and out["ci_high"][0] == 1.0 and out["value"][0] == 0.5
    sig = out.attrs["mycelium_signature"]
    assert "|ci:0.9|resamples:400|seed:0|bootstrap:poisson-percentile|keys:items|" in sig
    assert sig.endswith("|annotators:pairwise")


def test_table_clips_only_when_asked_and_counts_it():
    frame = _frame([("a", [(0, 12), (3, 3), (1, 2), (1, 2)]), ("b", [])])
    with pytest.raises(mycelium.SpanValidationError, match=r"annotations example 0: end "
                       r"12 is past the end of the text \(length 10\).*past_end='clip'"):
        A.annotator_table(frame)
    table = A.annotator_table(frame, past_end="clip", keep=["lang"])
    assert table.columns.tolist() == ["lang", "item", "annotator", "n_annotators", "spans"]
    assert table["spans"].tolist() == [[{"start": 0, "end": 10}, {"start": 1, "end": 2}],
                                       []]
    # (3, 3) carries no characters: dropped, and counted
    assert table.attrs["mycelium_annotators"] == {"clipped": 1, "empty_spans": 1}
    for out in (A.majority_reference(frame, past_end="clip"),
                A.soft_reference(frame, past_end="clip"),
                A.pairwise_agreement(frame, past_end="clip", metrics=["iou"], soft=False)):
        assert out.attrs["mycelium_annotators"] == {"clipped": 1, "empty_spans": 1}


def test_bad_inputs_say_what_and_where():
    with pytest.raises(ValueError, match="Expected two or more annotators per item, got "
                       "one, at item 1"):
        A.leave_one_out(_frame([("a", []), ("b", [])], [("a", [])]))
    with pytest.raises(ValueError, match="got annotator 'a' twice, at item 0"):
        A.pairwise_agreement(_frame([("a", []), ("a", [])]))
    with pytest.raises(ValueError, match=r"Expected a vote share in \[0, 1\), got 1.0"):
        A.majority_reference(THREE, share=1.0)
    with pytest.raises(KeyError, match="'annotations' is not in the frame"):
        A.soft_reference(THREE.drop(columns="annotations"))
    with pytest.raises(mycelium.SpanValidationError, match="annotations example 0 is null"):
        A.soft_reference(pd.DataFrame({"model_output_text": ["x"], "annotations": [None]}))
    with pytest.raises(TypeError, match="Expected per item a list of"):
        A.soft_reference(pd.DataFrame({"model_output_text": ["x"], "annotations": [[1]]}))
    with pytest.raises(ValueError, match="'reference'"):
        A.leave_one_out(THREE, by="reference")
