"""The differential of SPEC section 9: every value of `mycelium.sweep` equals
`mycelium.evaluate` with ``threshold=t`` on the same rows, bit for bit, and
`mycelium.tune_threshold` picks the best of those values — under every built-in profile
(`mycelium.PROFILES`) and a custom profile with ``threshold_rule=">="``, on generated
batches with empty texts, zero-length and listed reference spans, null references
(``missing="drop"``), tokens in and out of order, soft labels, and groups (each group's
curve is the curve of its own scores and equals the sweep of its rows alone)."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mycelium
from mycelium import PROFILES, Profile, SpanValidationError

GE = Profile("ge", 1, "macro", 0.0, score_rules={"threshold_rule": ">="})
ALL_PROFILES = [*PROFILES.values(), GE]
METRICS = ["iou", "character", "exact_span", "deteval_1d", "cleval_1d", "span_coverage",
           "response_level"]
SCORES = [0.0, 0.25, 0.5, 0.5, 0.75, 1.0]


@st.composite
def examples(draw, token: bool):
    L = draw(st.integers(0, 12))
    spans = st.tuples(st.integers(0, L), st.integers(0, L)).map(sorted).map(list)
    refs = draw(st.lists(spans, max_size=3))
    if L and draw(st.booleans()):
        p = draw(st.integers(0, L))
        refs.append([p, p])  # a zero-length span: listed, but no characters
    if refs and draw(st.booleans()):
        refs.append(list(refs[0]))  # listed twice
    if draw(st.integers(0, 9)) == 0:
        refs = None  # a null reference (left out under missing="drop")
    score = st.sampled_from(SCORES)
    if token:
        cuts = sorted(draw(st.lists(st.integers(0, L), max_size=4)))
        offs = [[a, b] for a, b in zip([0] + cuts, cuts + [L]) if draw(st.booleans()) or a < b]
        if offs and draw(st.booleans()):  # neighbours sharing a character
            offs[0][1] = min(L, offs[0][1] + 1)
        if draw(st.integers(0, 4)) == 0:
            offs = draw(st.permutations(offs))  # not in text order
        return "x" * L, refs, {"offs": [list(o) for o in offs],
                               "sc": [draw(score) for _ in offs]}
    soft = [{"start": a, "end": b, "prob": draw(score)}
            for a, b in draw(st.lists(spans, max_size=3))]
    return "x" * L, refs, {"soft": soft}


@st.composite
def batches(draw):
    token = draw(st.booleans())
    rows = draw(st.lists(examples(token), min_size=1, max_size=6))
    groups = draw(st.lists(st.sampled_from(["a", "b", None]), min_size=len(rows),
                           max_size=len(rows)))
    return token, rows, groups


def _inputs(token, rows):
    text = [t for t, _, _ in rows]
    refs = [r for _, r, _ in rows]
    if token:
        return text, refs, {"token_offsets": [s["offs"] for _, _, s in rows],
                            "token_scores": [s["sc"] for _, _, s in rows]}
    return text, refs, {"soft_predictions": [s["soft"] for _, _, s in rows]}


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def _group_rows(groups, key):
    return [i for i, g in enumerate(groups) if g == key]


def _check(profile, token, rows, groups, average, params):
    text, refs, scores = _inputs(token, rows)
    opts = dict(metrics=METRICS, profile=profile, average=average, params=params,
                missing="drop")
    curve = mycelium.sweep(refs, text=text, by={"g": groups}, **scores, **opts)
    compared = 0
    for key in sorted({g for g in groups if g is not None}) + (
            [None] if None in groups else []):
        take = _group_rows(groups, key)
        sub = lambda xs: [xs[i] for i in take]  # noqa: E731
        part = curve[curve["g"].isna()] if key is None else curve[curve["g"] == key]
        sc = {k: sub(v) for k, v in scores.items()}
        alone = mycelium.sweep(sub(refs), text=sub(text), **sc, **opts)
        assert part.drop(columns="g").reset_index(drop=True).equals(alone), key
        # The group's own thresholds: 0 and each distinct score of its kept rows' non-empty
        # intervals (zero-length tokens and spans score nothing).
        kept = [i for i in take if refs[i] is not None]
        own = {0.0} | {float(p) for i in kept for (a, b), p in (
            zip(rows[i][2]["offs"], rows[i][2]["sc"]) if token else
            (((d["start"], d["end"]), d["prob"]) for d in rows[i][2]["soft"])) if a < b}
        assert sorted(set(part["threshold"])) == sorted(own)
        for t in sorted(set(part["threshold"])):
            want = mycelium.evaluate(sub(refs), text=sub(text), threshold=t, **sc, **opts)
            at = part[part["threshold"] == t]
            for m, measure, value, n in zip(at["metric"], at["measure"], at["value"],
                                            at["examples"]):
                assert _same(value, want[m][measure]), (key, t, m, measure, value,
                                                        want[m][measure])
                assert n == want["meta"]["examples"]
                compared += 1
        best = mycelium.tune_threshold(sub(refs), text=sub(text), **sc, metric="iou",
                                       profile=profile, average=average, params=params,
                                       missing="drop")
        iou = part[part["metric"] == "iou"]
        defined = iou[~iou["value"].isna()]
        if len(defined):
            top = defined["value"].max()
            assert best["value"] == top
            assert float(best["threshold"]) == defined[defined["value"] == top][
                "threshold"].min()
    return compared


@pytest.mark.parametrize("profile", ALL_PROFILES, ids=lambda p: p.name)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=batches(), average=st.sampled_from([None, "macro", "micro"]),
       min_length=st.sampled_from([None, 0, 1, 2]))
def test_sweep_tune_and_evaluate_agree_under_every_profile(profile, batch, average,
                                                           min_length):
    token, rows, groups = batch
    params = None if min_length is None else {
        "response_level": {"positive_min_length": min_length}}
    try:
        _check(profile, token, rows, groups, average, params)
    except SpanValidationError as exc:
        # Tokens out of text order whose run would end before it starts (SPEC section 9's
        # rule makes it a reversed span): sweep refuses it as evaluate does at that
        # threshold, with the same message; nothing else may be refused.
        if "Expected each run of tokens to span from its first token's start" not in str(exc):
            raise
        text, refs, scores = _inputs(token, rows)
        with pytest.raises(SpanValidationError, match="Expected each run of tokens"):
            for t in sorted({0.0, *SCORES}):
                mycelium.evaluate(refs, text=text, threshold=t, metrics=METRICS,
                                  profile=profile, average=average, params=params,
                                  missing="drop", **scores)


# ------------------------------------------------------------------ the reproducers

def _agree(refs, text, scores, metrics, **opts):
    curve = mycelium.sweep(refs, text=text, metrics=metrics, **scores, **opts)
    for t in sorted(set(curve["threshold"])):
        want = mycelium.evaluate(refs, text=text, threshold=t, metrics=metrics, **scores,
                                 **opts)
        at = curve[curve["threshold"] == t]
        got = {(m, k): v for m, k, v in zip(at["metric"], at["measure"], at["value"])}
        assert got == {(m, k): v for m in metrics for k, v in want[m].items()}, t


def test_ragtruth_response_level_counts_a_listed_zero_length_reference():
    # ragtruth's response level: a response is positive when its label list is non-empty,
    # even when its only span is zero-length (positive_min_length 0).
    scores = dict(token_offsets=[[[0, 2], [2, 4]], [[0, 2], [2, 4]]],
                  token_scores=[[0.9, 0.1], [0.2, 0.1]])
    _agree([[[1, 1]], []], ["abcd", "abcd"], scores, ["response_level"],
           profile="ragtruth")
    curve = mycelium.sweep([[[1, 1]], []], text=["abcd", "abcd"], metrics="response_level",
                           profile="ragtruth", **scores)
    at_0 = curve[curve["threshold"] == 0.0].set_index("measure")["value"]
    assert at_0.to_dict() == {"precision": 0.5, "recall": 1.0, "f1": 2 / 3}


def test_psiloqa_empty_text_at_0_is_not_a_predicted_response():
    soft = dict(soft_predictions=[[{"start": 0, "end": 2, "prob": 0.9}], []])
    _agree([[[0, 2]], []], ["abcd", ""], soft, ["response_level", "iou"],
           profile="psiloqa")
    curve = mycelium.sweep([[[0, 2]], []], text=["abcd", ""], metrics="response_level",
                           profile="psiloqa", **soft)
    assert curve[(curve["threshold"] == 0.0) & (curve["measure"] == "precision")][
        "value"].tolist() == [1.0]


def test_ge_rule_never_predicts_characters_no_token_covers():
    scores = dict(token_offsets=[[[0, 3], [5, 6]], []], token_scores=[[0.5, 0.2], []])
    refs, text = [[[0, 3]], []], ["abcdefghij", "abc"]
    _agree(refs, text, scores, ["iou", "character"], profile=GE)
    curve = mycelium.sweep(refs, text=text, metrics="iou", profile=GE, **scores)
    # at 0 both tokens pass: one span [0, 6), the gap between them inside (IoU 3/6); the
    # characters no token covers are not predicted, and the example without tokens
    # predicts nothing and has no reference (IoU 1.0)
    assert curve[curve["threshold"] == 0.0]["value"].tolist() == [(0.5 + 1.0) / 2]
