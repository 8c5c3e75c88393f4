"""Score rules (`mycelium.core.score_rules`): each departure from SPEC section 9's
defaults is a named profile option, applied by every score path and recorded in the
signature only when it differs from the default."""

import math

import numpy as np
import pytest

import mycelium
from mycelium import Profile

TEXT = "abcdefgh"
OFFS = [(0, 2), (2, 4), (4, 6), (6, 8)]
SCORES = [0.1, 0.5, 0.5, 0.2]
PSILO = Profile("psilo_like", average="macro",
                score_rules={"threshold_rule": ">=", "token_overlap": "last",
                             "char_ap_undefined": 0.0})


def test_threshold_rule_makes_a_score_equal_to_the_threshold_positive():
    assert mycelium.spans_at(0.5, token_offsets=OFFS, token_scores=SCORES) == []
    assert mycelium.spans_at(0.5, token_offsets=OFFS, token_scores=SCORES,
                             threshold_rule=">=") == [[2, 6]]


def test_token_overlap_last_writer_wins_on_shared_characters():
    offs, scores = [(0, 4), (2, 6)], [0.9, 0.1]
    # max: characters 2-3 keep 0.9, and the token rule gives the first token's span.
    assert mycelium.spans_at(0.5, token_offsets=offs, token_scores=scores) == [[0, 4]]
    # last: the second token overwrites 2-3 with 0.1; spans are runs of characters.
    assert mycelium.spans_at(0.5, token_offsets=offs, token_scores=scores,
                             token_overlap="last") == [[0, 2]]


def test_evaluate_applies_the_profile_rules():
    ref = [[2, 6]]
    default = mycelium.evaluate(ref, text=TEXT, token_offsets=OFFS, token_scores=SCORES,
                                threshold=0.5, metrics="iou")
    ruled = mycelium.evaluate(ref, text=TEXT, token_offsets=OFFS, token_scores=SCORES,
                              threshold=0.5, metrics="iou", profile=PSILO)
    assert default["iou"]["score"] == 0.0 and ruled["iou"]["score"] == 1.0


def test_char_ap_undefined_counts_examples_without_a_positive():
    refs, texts = [[[2, 4]], []], [TEXT, "xyz"]
    offs, scores = [OFFS, [(0, 3)]], [SCORES, [0.7]]
    kw = dict(text=texts, token_offsets=offs, token_scores=scores, metrics="char_ap")
    left_out = mycelium.evaluate(refs, **kw)["char_ap"]["score"]
    counted = mycelium.evaluate(refs, profile=PSILO, **kw)["char_ap"]["score"]
    # Example 0 alone under each rule set (max over tokens vs last writer is the same
    # here: no token overlaps), then example 1 counts as 0.0.
    assert counted == pytest.approx(left_out / 2)


def test_signature_records_only_rules_that_differ_and_parses_back():
    r = mycelium.evaluate([[2, 6]], text=TEXT, token_offsets=OFFS, token_scores=SCORES,
                          threshold=0.5, metrics="iou", profile=PSILO)
    sig = r["meta"]["signature"]
    assert "|threshold_rule:>=|token_overlap:last|char_ap_undefined:0.0|" in sig
    assert mycelium.parse_signature(sig)["score_rules"] == {
        "threshold_rule": ">=", "token_overlap": "last", "char_ap_undefined": 0.0}
    plain = mycelium.evaluate([[2, 6]], [[2, 6]], text=TEXT, profile="mu_shroom")
    assert "threshold_rule" not in plain["meta"]["signature"]
    assert Profile("none_named").score_rules == {}
    # A rule the profile names is recorded even at its default: it makes the rule explicit.
    named = Profile("half", score_rules={"threshold_rule": ">"})
    assert named.score_rules == {"threshold_rule": ">"}
    r = mycelium.evaluate([[2, 6]], text=TEXT, token_offsets=OFFS, token_scores=SCORES,
                          threshold=0.5, metrics="iou", profile=named)
    assert r["meta"]["signature"].endswith("|threshold_rule:>|scores:token|threshold:0.5")


@pytest.mark.parametrize("rules, message", [
    ({"threshold": ">="}, "Expected score rules among threshold_rule, token_overlap, "
                          "char_ap_undefined, soft_labels, soft_reference_overlap, "
                          "soft_prediction_overlap, soft_constant, got 'threshold'"),
    ({"soft_constant": "visions"}, "Expected soft_constant one of 'mu_shroom', "
                                   "'shroom_visions', got 'visions'"),
    ({"soft_reference_overlap": "max"}, "Expected soft_reference_overlap one of 'last', "
                                        "'sum'"),
    ({"threshold_rule": "=>"}, "Expected threshold_rule one of '>', '>=', got '=>'"),
    ({"token_overlap": "first"}, "Expected token_overlap one of 'max', 'last'"),
    ({"char_ap_undefined": 2.0}, "Expected char_ap_undefined None or a number in [0, 1]"),
])
def test_bad_rules_are_rejected_with_the_valid_ones(rules, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Profile("bad", score_rules=rules)


def test_range_grid_is_numpy_arange_over_the_character_scores():
    refs, texts = [[[2, 6]], []], [TEXT, "xyz"]
    offs, scores = [OFFS, [(0, 2)]], [SCORES, [0.9]]  # 'z' of "xyz" is uncovered: 0.0
    f = mycelium.sweep(refs, text=texts, token_offsets=offs, token_scores=scores,
                       thresholds={"steps": 8}, metrics="iou", profile=PSILO)
    assert f["threshold"].tolist() == np.arange(0.0, 0.9, 0.9 / 8).tolist()
    assert "|grid:range/8" in f.attrs["signature"]
    with pytest.raises(ValueError, match=r"got every character scoring 0.5"):
        mycelium.tune_threshold([[0, 2]], text="ab", token_offsets=[(0, 2)],
                                token_scores=[0.5], thresholds={"steps": 10})
    with pytest.raises(ValueError, match=r"Expected thresholds=\{'steps': <int >= 1>\}"):
        mycelium.sweep([[0, 2]], text="ab", token_offsets=[(0, 2)], token_scores=[0.5],
                       thresholds={"step": 10})


def test_sweep_fast_path_equals_evaluate_under_the_rules():
    refs, texts = [[[2, 6]], [[0, 1]]], [TEXT, "xyz"]
    offs, scores = [OFFS, [(0, 2), (1, 3)]], [SCORES, [0.5, 0.2]]
    f = mycelium.sweep(refs, text=texts, token_offsets=offs, token_scores=scores,
                       metrics=["iou", "exact_span"], profile=PSILO)
    for t in sorted(set(f["threshold"])):
        r = mycelium.evaluate(refs, text=texts, token_offsets=offs, token_scores=scores,
                              threshold=t, metrics=["iou", "exact_span"], profile=PSILO)
        rows = f[f["threshold"] == t].set_index(["metric", "measure"])["value"]
        assert rows[("iou", "score")] == r["iou"]["score"]
        assert rows[("exact_span", "f1")] == r["exact_span"]["f1"]
    assert not math.isnan(f["value"].sum())
