"""The official scorer's rules, one at a time, directly on ``score_records``.

Each rule of the official Mu-SHROOM scorer (SPEC.md section 6; notes/mushroom_scorer.md
section 3) on a small hand-made input, with the expected value worked out by hand or by
the plain-Python reference in _mushroom_support.py (never by mycelium itself).
"""

import math
import random

import numpy as np
import pytest

from _mushroom_support import (ref_average_ranks, ref_cor, ref_vector, reference_score)
from mycelium.protocols.mushroom import (MushroomInputError, derive_hard_labels, derive_soft_labels,
                               score_records)

TEXT = "abcdefghij"  # 10 characters


def ref(i="r-0", hard=((0, 4),), soft=None, text=TEXT):
    hard = [list(s) for s in hard]
    if soft is None:
        soft = [{"start": s, "end": e, "prob": 1.0} for s, e in hard]
    return {"id": i, "model_output_text": text, "hard_labels": hard, "soft_labels": soft}


def soft(*triples):
    return [{"start": s, "end": e, "prob": p} for s, e, p in triples]


def pred(i="r-0", hard=None, soft_labels=None):
    out = {"id": i}
    if hard is not None:
        out["hard_labels"] = [list(s) for s in hard]
    if soft_labels is not None:
        out["soft_labels"] = soft_labels
    return out


def cor_of(ref_soft, pred_soft, text=TEXT):
    r = ref(hard=(), soft=ref_soft, text=text)
    return score_records([r], [pred(hard=[], soft_labels=pred_soft)]).cor[0]


# A non-constant reference vector: 0.9 0.9 0.9 0.6 0.6 0.3 0 0 0 0
REF_SOFT = soft((0, 3, 0.9), (3, 5, 0.6), (5, 6, 0.3))


# ------------------------------------------------------------------ last writer wins

def test_last_writer_wins():
    overlapping = soft((0, 8, 0.2), (2, 5, 0.9))
    flattened = soft((0, 2, 0.2), (2, 5, 0.9), (5, 8, 0.2))
    reversed_order = soft((2, 5, 0.9), (0, 8, 0.2))  # the 0.2 span now covers all of it
    assert ref_vector(overlapping, 10) == [.2, .2, .9, .9, .9, .2, .2, .2, 0, 0]
    assert cor_of(REF_SOFT, overlapping) == cor_of(REF_SOFT, flattened)
    assert cor_of(REF_SOFT, reversed_order) == cor_of(REF_SOFT, soft((0, 8, 0.2)))
    assert cor_of(REF_SOFT, overlapping) != cor_of(REF_SOFT, reversed_order)
    for spans in (overlapping, reversed_order):
        want = ref_cor(ref_vector(REF_SOFT, 10), ref_vector(spans, 10))
        assert math.isclose(cor_of(REF_SOFT, spans), want, abs_tol=1e-12)


def test_last_writer_wins_in_the_reference_too():
    a = cor_of(soft((0, 6, 0.3), (0, 3, 0.9)), REF_SOFT)   # ref: .9 .9 .9 .3 .3 .3 0..
    b = cor_of(soft((0, 3, 0.9), (0, 6, 0.3)), REF_SOFT)   # ref: .3 x6, 0 x4
    assert a != b
    assert b == cor_of(soft((0, 6, 0.3)), REF_SOFT)


def test_explicit_zero_prob_is_no_span():
    assert cor_of(REF_SOFT, soft((0, 2, 0.7), (2, 10, 0.0))) == cor_of(REF_SOFT, soft((0, 2, 0.7)))


# ----------------------------------------------------------- constant test: round(x, 8)

ZERO_REF = []  # an all-zero (constant) reference vector


@pytest.mark.parametrize("delta", [1e-9, 4e-9, -4e-9])
def test_differences_below_1e_8_count_as_constant(delta):
    # 0.5 on 5 chars, 0.5 + delta on 5 chars: round(., 8) makes it constant -> with a
    # constant reference, both constant -> 1.0
    assert round(0.5 + delta, 8) == 0.5
    assert cor_of(ZERO_REF, soft((0, 5, 0.5), (5, 10, 0.5 + delta))) == 1.0
    # against a non-constant reference: one side constant -> 0.0
    assert cor_of(REF_SOFT, soft((0, 5, 0.5), (5, 10, 0.5 + delta))) == 0.0


@pytest.mark.parametrize("delta", [2e-8, -2e-8, 1e-7])
def test_differences_of_2e_8_are_not_constant(delta):
    assert cor_of(ZERO_REF, soft((0, 5, 0.5), (5, 10, 0.5 + delta))) == 0.0


def test_tiny_vs_zero():
    assert cor_of(ZERO_REF, soft((0, 5, 4e-9))) == 1.0   # rounds to 0: constant
    assert cor_of(ZERO_REF, soft((0, 5, 2e-8))) == 0.0   # does not


def test_python_round_not_numpy_round():
    """Half-way values where Python's correctly rounded round() and numpy's scaled
    rounding disagree: the official test uses Python's round(x, 8)."""
    # 0.100000005 is stored slightly above the half-way point: Python rounds it up to
    # 0.10000001 (== round(0.10000001, 8)), numpy's rint(x * 1e8) / 1e8 gives 0.1.
    assert round(0.100000005, 8) == round(0.10000001, 8) != round(0.1, 8)
    assert float(np.round(0.100000005, 8)) == 0.1  # why numpy would differ
    # Python: 0.10000001 vs 0.100000005 constant -> both constant -> 1.0 (numpy: 0.0)
    assert cor_of(ZERO_REF, soft((0, 5, 0.10000001), (5, 10, 0.100000005))) == 1.0
    # Python: 0.1 vs 0.100000005 not constant -> 0.0 (numpy: constant -> 1.0)
    assert cor_of(ZERO_REF, soft((0, 5, 0.1), (5, 10, 0.100000005))) == 0.0


def test_constancy_is_tested_on_the_whole_vector_including_zeros():
    # 0.7 on every character is constant; 0.7 on 9 of 10 (the rest 0) is not
    assert cor_of(ZERO_REF, soft((0, 10, 0.7))) == 1.0
    assert cor_of(ZERO_REF, soft((0, 9, 0.7))) == 0.0


# ------------------------------------------------------------------ both constant

@pytest.mark.parametrize("ref_soft, pred_soft", [
    ([], soft((0, 10, 1.0))),                  # all-zero ref vs everything at prob 1
    (soft((0, 10, 0.6)), []),                  # whole-text 0.6 ref vs empty prediction
    (soft((0, 10, 0.2)), soft((0, 10, 0.9))),  # two different non-zero constants
    ([], []),
])
def test_both_constant_is_1_even_when_the_constants_differ(ref_soft, pred_soft):
    assert cor_of(ref_soft, pred_soft) == 1.0


def test_one_constant_is_0():
    assert cor_of(REF_SOFT, soft((0, 10, 0.4))) == 0.0
    assert cor_of(soft((0, 10, 0.4)), REF_SOFT) == 0.0


def test_text_of_length_1_is_always_1():
    assert cor_of([], soft((0, 1, 0.8)), text="x") == 1.0


# --------------------------------------------------------------------- average ranks

def test_average_ranks_with_ties_worked_example():
    # ref  .9 .9 .9 .6 .6 .3 0 0 0 0  -> ranks 9 9 9 6.5 6.5 5 2.5 2.5 2.5 2.5
    # pred .5 .5 0  0  .5 0  0 0 .5 0 -> ranks 8.5 8.5 3.5 3.5 8.5 3.5 3.5 3.5 8.5 3.5
    pred_soft = soft((0, 2, 0.5), (4, 5, 0.5), (8, 9, 0.5))
    assert ref_average_ranks(ref_vector(REF_SOFT, 10)) == [9, 9, 9, 6.5, 6.5, 5, 2.5, 2.5,
                                                           2.5, 2.5]
    a = np.array([9, 9, 9, 6.5, 6.5, 5, 2.5, 2.5, 2.5, 2.5])
    b = np.array([8.5, 8.5, 3.5, 3.5, 8.5, 3.5, 3.5, 3.5, 8.5, 3.5])
    da, db = a - a.mean(), b - b.mean()
    want = float((da * db).sum() / math.sqrt((da * da).sum() * (db * db).sum()))
    # by hand: both means 5.5; sum(da*db) = 25, sum(da^2) = 75, sum(db^2) = 60,
    # rho = 25 / sqrt(75 * 60) = sqrt(5) / 6
    assert math.isclose(want, math.sqrt(5) / 6, abs_tol=1e-15)
    assert math.isclose(cor_of(REF_SOFT, pred_soft), want, abs_tol=1e-12)


def test_rho_is_on_unrounded_values():
    # 0.3 and 0.3 + 1e-12 are different values for the ranks (though equal after
    # round(x, 8)): the prediction then orders its two spans like the reference.
    tied = cor_of(REF_SOFT, soft((0, 3, 0.3), (3, 6, 0.3)))
    untied = cor_of(REF_SOFT, soft((0, 3, 0.3 + 1e-12), (3, 6, 0.3)))
    assert untied > tied
    assert math.isclose(untied, ref_cor(ref_vector(REF_SOFT, 10),
                                        ref_vector(soft((0, 3, 0.3 + 1e-12), (3, 6, 0.3)), 10)),
                        abs_tol=1e-12)


def test_identical_and_reversed_rankings():
    assert math.isclose(cor_of(REF_SOFT, REF_SOFT), 1.0, abs_tol=1e-12)
    assert math.isclose(cor_of(soft((0, 1, 0.9)), soft((1, 2, 0.9)), text="ab"), -1.0,
                        abs_tol=1e-12)


def test_random_vectors_match_the_reference():
    rng = random.Random(20250301)
    for _ in range(200):
        n = rng.randint(1, 30)
        spans = []
        for side in range(2):
            k = rng.randint(0, 5)
            spans.append([])
            for _ in range(k):
                s = rng.randint(0, n)
                e = rng.randint(s, n)
                spans[side].append({"start": s, "end": e,
                                    "prob": rng.choice([0, 1 / 3, 2 / 3, 0.5, 1.0,
                                                        rng.random()])})
        text = "x" * n
        want = ref_cor(ref_vector(spans[0], n), ref_vector(spans[1], n))
        assert math.isclose(cor_of(spans[0], spans[1], text=text), want, abs_tol=1e-9)


# ------------------------------------------------------------------------- empty text

def test_empty_text_gives_nan_and_printed_nan():
    result = score_records([ref(hard=(), soft=[], text="")], [pred(hard=[], soft_labels=[])])
    assert result.iou == [1.0]
    assert math.isnan(result.cor[0]) and math.isnan(result.cor_mean)
    assert result.printed == "IoU: 1.00000000\nCor: nan\n"


def test_one_empty_text_makes_the_file_mean_nan():
    refs = [ref("a", hard=(), soft=[], text=""), ref("b")]
    preds = [pred("a", hard=[]), pred("b", hard=[(0, 4)])]
    result = score_records(refs, preds)
    assert result.iou == [1.0, 1.0] and result.cor[1] == 1.0
    assert result.printed == "IoU: 1.00000000\nCor: nan\n"


# ------------------------------------------------------------------ derived labels

def test_derived_hard_labels_exclude_exactly_half():
    assert derive_hard_labels(soft((0, 4, 0.5))) == []
    assert derive_hard_labels(soft((0, 4, 0.5000000000000001))) == [[0, 4]]
    result = score_records([ref(hard=[(0, 4)])], [pred(soft_labels=soft((0, 4, 0.5)))])
    assert result.iou == [0.0]  # derived hard labels are empty, the reference is not


def test_derived_hard_labels_merge_adjacent_spans_after_sorting():
    assert derive_hard_labels(soft((3, 5, 0.6), (0, 3, 0.9), (5, 6, 0.4))) == [[0, 5]]
    assert derive_hard_labels(soft((0, 2, 0.9), (2, 4, 0.9), (4, 7, 0.8), (8, 9, 1.0))) \
        == [[0, 7], [8, 9]]
    # overlapping spans are not merged (harmless for IoU)
    assert derive_hard_labels(soft((0, 4, 0.9), (2, 6, 0.9))) == [[0, 4], [2, 6]]
    # a sub-0.5 span between two kept ones breaks adjacency
    assert derive_hard_labels(soft((0, 2, 0.9), (2, 3, 0.2), (3, 5, 0.9))) == [[0, 2], [3, 5]]
    result = score_records([ref(hard=[(0, 5)])],
                           [pred(soft_labels=soft((3, 5, 0.6), (0, 3, 0.9)))])
    assert result.iou == [1.0]


def test_derived_soft_labels_are_prob_1():
    assert derive_soft_labels([[0, 3], [5, 7]]) == soft((0, 3, 1.0), (5, 7, 1.0))
    both = score_records([ref(hard=[(0, 4)], soft=REF_SOFT)],
                         [pred(hard=[(0, 3)], soft_labels=soft((0, 3, 1.0)))])
    hard_only = score_records([ref(hard=[(0, 4)], soft=REF_SOFT)], [pred(hard=[(0, 3)])])
    assert both == hard_only


def test_fields_are_never_reconciled():
    # hard says [0, 4), soft says [6, 10): IoU only from hard, Cor only from soft
    result = score_records([ref(hard=[(0, 4)], soft=REF_SOFT)],
                           [pred(hard=[(0, 4)], soft_labels=soft((6, 10, 1.0)))])
    assert result.iou == [1.0]
    assert math.isclose(result.cor[0], ref_cor(ref_vector(REF_SOFT, 10),
                                               ref_vector(soft((6, 10, 1.0)), 10)),
                        abs_tol=1e-12)


def test_presence_is_decided_per_file():
    refs = [ref("a"), ref("b")]
    with pytest.raises(MushroomInputError, match="'b'.*hard_labels"):
        score_records(refs, [pred("a", hard=[], soft_labels=[]), pred("b", soft_labels=[])])


# ------------------------------------------------------------------------ ids, order

def test_numeric_looking_ids_sort_numerically():
    ids = ["10", "9", "100", "2"]
    refs = [ref(i, hard=[(0, int(i) % 10 or 1)]) for i in ids]
    result = score_records(refs, [pred(i, hard=[(0, 1)]) for i in ids])
    assert [str(i) for i in result.ids] == ["2", "9", "10", "100"]
    assert result.iou == [0.5, 1 / 9, 1.0, 1.0]


def test_integer_ids_pair_with_numeric_string_ids():
    result = score_records([ref("9"), ref("10")], [pred(10, hard=[]), pred(9, hard=[(0, 4)])])
    assert [str(i) for i in result.ids] == ["9", "10"] and result.iou == [1.0, 0.0]


def test_other_ids_sort_as_strings():
    ids = ["tst-en-10", "tst-en-2", "tst-en-1"]
    result = score_records([ref(i) for i in ids], [pred(i, hard=[]) for i in ids])
    assert list(result.ids) == ["tst-en-1", "tst-en-10", "tst-en-2"]
    mixed = ["10", "9", "a"]  # not all numeric: string order
    result = score_records([ref(i) for i in mixed], [pred(i, hard=[]) for i in mixed])
    assert list(result.ids) == ["10", "9", "a"]


def test_prediction_and_reference_order_do_not_matter():
    rng = random.Random(7)
    refs = [ref("r-%d" % k, hard=[(k % 5, k % 5 + 3)],
                soft=soft((k % 5, k % 5 + 3, 0.8), (0, 1, 0.4))) for k in range(12)]
    preds = [pred("r-%d" % k, hard=[(k % 3, k % 3 + 4)],
                  soft_labels=soft((k % 3, k % 3 + 4, 0.7), (9, 10, 0.1))) for k in range(12)]
    base = score_records(refs, preds)
    for _ in range(5):
        rng.shuffle(preds)
        rng.shuffle(refs)
        assert score_records(refs, preds) == base
    want = reference_score(refs, preds)
    assert base.printed == want["printed"]
    assert [str(i) for i in base.ids] == [str(i) for i in want["ids"]]


def test_mean_is_unweighted():
    refs = [ref("a", hard=[(0, 1)], text="x" * 100), ref("b", hard=[(0, 1)], text="y")]
    preds = [pred("a", hard=[(0, 2)]), pred("b", hard=[(0, 1)])]
    assert score_records(refs, preds).iou_mean == 0.75


# --------------------------------------------------------------- id errors name the id

@pytest.mark.parametrize("refs, preds, side, bad_id", [
    ([ref("a"), ref("b")], [pred("a", hard=[]), pred("a", hard=[])], "PRED", "a"),     # dup
    ([ref("a"), ref("a")], [pred("a", hard=[])], "REF", "a"),                          # dup ref
    ([ref("a"), ref("b")], [pred("a", hard=[])], "PRED", "b"),                          # missing
    ([ref("a")], [pred("a", hard=[]), pred("zz-9", hard=[])], "PRED", "zz-9"),         # extra
    ([ref("a")], [pred("A", hard=[])], "PRED", "a"),                                    # renamed
], ids=["duplicate", "duplicate-in-reference", "missing", "extra", "renamed"])
def test_id_errors_name_the_id_and_the_file(refs, preds, side, bad_id):
    with pytest.raises(MushroomInputError) as info:
        score_records(refs, preds, ref_name="REF", pred_name="PRED")
    message = str(info.value)
    assert message.startswith(side + ":") and repr(bad_id) in message


@pytest.mark.parametrize("p, field", [
    (pred(hard=[(8, 11)], soft_labels=[]), "hard_labels"),
    (pred(hard=[(-1, 2)], soft_labels=[]), "hard_labels"),
    (pred(hard=[(5, 3)], soft_labels=[]), "hard_labels"),
    (pred(hard=[], soft_labels=soft((8, 11, 0.2))), "soft_labels"),
    (pred(hard=[], soft_labels=soft((-2, 2, 0.2))), "soft_labels"),
    (pred(hard=[], soft_labels=soft((6, 3, 0.2))), "soft_labels"),
    (pred(hard=[], soft_labels=soft((0, 3, 1.5))), "soft_labels"),
    (pred(hard=[], soft_labels=soft((0, 3, -0.1))), "soft_labels"),
    (pred(hard=[(0, 11)]), "hard_labels"),
    (pred(soft_labels=soft((0, 3, -0.1))), "soft_labels"),
], ids=["hard-past-end", "hard-negative", "hard-reversed", "soft-past-end", "soft-negative",
        "soft-reversed", "prob-above-1", "prob-below-0", "hard-only-past-end",
        "soft-only-prob-below-0"])
def test_invalid_prediction_spans_name_file_id_field(p, field):
    with pytest.raises(MushroomInputError) as info:
        score_records([ref()], [p], ref_name="REF", pred_name="PRED")
    message = str(info.value)
    assert message.startswith("PRED:") and "'r-0'" in message and field in message


@pytest.mark.parametrize("r, field", [
    (ref(hard=[(0, 11)]), "hard_labels"),
    (ref(hard=[(3, 1)], soft=[]), "hard_labels"),
    (ref(soft=soft((0, 11, 0.5))), "soft_labels"),
    (ref(soft=soft((0, 3, 1.01))), "soft_labels"),
], ids=["hard-past-end", "hard-reversed", "soft-past-end", "prob-above-1"])
def test_invalid_reference_spans_name_file_id_field(r, field):
    with pytest.raises(MushroomInputError) as info:
        score_records([r], [pred(hard=[])], ref_name="REF", pred_name="PRED")
    message = str(info.value)
    assert message.startswith("REF:") and "'r-0'" in message and field in message


def test_zero_length_spans_are_valid_and_contribute_nothing():
    a = score_records([ref()], [pred(hard=[(2, 2), (0, 3)], soft_labels=soft((5, 5, 0.9)))])
    b = score_records([ref()], [pred(hard=[(0, 3)], soft_labels=[])])
    assert a.iou == b.iou == [0.75] and a.cor == b.cor


def test_code_points_not_utf16():
    text = "a\U0001F344bcd"  # the mushroom is 1 code point (2 UTF-16 units)
    result = score_records([ref(hard=[(1, 2)], text=text)], [pred(hard=[(1, 2), (4, 5)])])
    assert result.iou == [0.5]
