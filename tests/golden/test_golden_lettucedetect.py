"""Golden parity of the ``lettucedetect`` profile with LettuceDetect's own evaluator, at every
level: character, example (from spans and from tokens), token, and the spans its
transformer detector builds from token predictions.

Reads only tests/golden/lettucedetect_cases.json (its ``provenance`` names the repository,
commit, files and functions): random and edge cases (overlapping, duplicate and
zero-length spans, empty sides, zero-length tokens, ``-100`` labels, probability ties)
scored by the unmodified functions of KRLabsOrg/LettuceDetect.

Precision and recall are compared bit for bit. F1 is compared within 1e-12:
LettuceDetect computes ``2PR / (P + R)`` from the rounded P and R, mycelium
``2ac / (ad + bc)`` with one rounding (SPEC section 4), and the two differ by a few units in
the last place; the character level's F1 is also checked to be exactly that formula of
mycelium's (equal) P and R.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import mycelium
from mycelium.metrics.tokens import label_tokens

GOLDEN = json.loads(Path(__file__).with_name("lettucedetect_cases.json").read_text("utf-8"))
CASES = GOLDEN["cases"]
SPANS = [c for c in CASES if c["kind"] == "spans"]
TOKENS = [c for c in CASES if c["kind"] == "tokens"]
MEASURES = ("precision", "recall", "f1")


def _ids(cases):
    return [c["name"] for c in cases]


F1_TOL = 1e-12  # 2PR/(P+R) from rounded P and R against one rounding: a few ulps


def same(got: dict, want: dict, what: str) -> None:
    for m in ("precision", "recall"):
        assert got[m] == want[m], (what, m, got, want)
    assert math.isclose(got["f1"], want["f1"], rel_tol=0, abs_tol=F1_TOL), (
        what, "f1", got, want)
    if what == "char_level":  # its F1 is that formula of the P and R, which are equal
        p, r = got["precision"], got["recall"]
        assert want["f1"] == (2 * p * r / (p + r) if p + r > 0 else 0), (what, got, want)


def _sides(case):
    ex = case["examples"]
    return [e["gold"] for e in ex], [e["text"] for e in ex]


def _token_call(case):
    refs, texts = _sides(case)
    ex = case["examples"]
    return mycelium.evaluate(refs, None, text=texts, profile="lettucedetect",
                             token_offsets=[e["tokens"] for e in ex],
                             token_scores=[e["probs"] for e in ex], threshold=0.5)


def test_the_file_covers_the_edge_cases():
    groups = {c["group"] for c in CASES}
    assert {"hand", "random_disjoint", "random_overlapping", "random_tokens"} <= groups
    assert len(CASES) >= 150
    ex = [e for c in CASES for e in c["examples"]]
    assert any(len(set(map(tuple, e["gold"]))) < len(e["gold"]) for e in ex)  # duplicates
    assert any(s == t for e in ex for s, t in e["gold"])  # zero-length references
    assert any(s == t for e in ex if "tokens" in e for s, t in e["tokens"][:-1])
    assert any(-100 in e.get("lettucedetect_labels", []) for e in ex)
    over = [c for c in SPANS if any(
        a[0] < b[1] and b[0] < a[1] for e in c["examples"] for side in ("gold", "pred")
        for i, a in enumerate(e[side]) for b in e[side][i + 1:])]
    assert len(over) >= 40


@pytest.mark.parametrize("case", SPANS, ids=_ids(SPANS))
def test_span_predictions_match_every_level(case):
    refs, texts = _sides(case)
    preds = [e["pred"] for e in case["examples"]]
    report = mycelium.evaluate(refs, preds, text=texts, profile="lettucedetect")
    want = case["lettucedetect"]
    same(report["character"], want["char_level"], "char_level")
    same(report["response_level"], want["example_level_spans"]["hallucinated"],
         "example_level_spans")
    assert set(report) == {"character", "response_level", "meta"}


@pytest.mark.parametrize("case", TOKENS, ids=_ids(TOKENS))
def test_token_scores_match_every_level(case):
    report = _token_call(case)
    want = case["lettucedetect"]
    same(report["character"], want["char_level"], "char_level")
    same(report["token_level"], want["token_level"]["hallucinated"], "token_level")
    same(report["response_level"], want["example_level_tokens"]["hallucinated"],
         "example_level_tokens")


@pytest.mark.parametrize("case", TOKENS, ids=_ids(TOKENS))
def test_spans_from_tokens_are_the_detectors(case):
    ex = case["examples"]
    got = mycelium.spans_at(0.5, token_offsets=[e["tokens"] for e in ex],
                            token_scores=[e["probs"] for e in ex],
                            text=[e["text"] for e in ex])
    assert got == case["lettucedetect"]["spans"]
    # Its spans as predictions: the span-level example evaluator on the same outputs.
    refs, texts = _sides(case)
    report = mycelium.evaluate(refs, got, text=texts, profile="lettucedetect")
    same(report["response_level"], case["lettucedetect"]["example_level_spans"]["hallucinated"],
         "example_level_spans")
    same(report["character"], case["lettucedetect"]["char_level"], "char_level")


@pytest.mark.parametrize("case", TOKENS, ids=_ids(TOKENS))
def test_token_labels_are_the_datasets(case):
    """The labels HallucinationDataset gives the answer's tokens; -100 marks the rest."""
    for e in case["examples"]:
        labels = e["lettucedetect_labels"]
        head = len(labels) - len(e["tokens"])
        assert labels[:head] == [-100] * head == [-100] * (e["context_tokens"] + 2)
        refs = np.array(e["gold"], dtype=np.int64).reshape(-1, 2)
        toks = np.array(e["tokens"], dtype=np.int64).reshape(-1, 2)
        got = label_tokens(1, (np.zeros(len(refs), np.int64), refs[:, 0], refs[:, 1]),
                           (np.zeros(len(toks), np.int64), toks[:, 0], toks[:, 1]),
                           np.array(e["probs"]), 0.5)
        assert got.gold.astype(int).tolist() == labels[head:]


def test_statistics_are_the_sums_of_the_evaluator():
    """The character counts behind the golden values: Σ pairwise overlaps, Σ lengths."""
    case = next(c for c in SPANS if c["name"] == "overlapping_both")
    refs, texts = _sides(case)
    preds = [e["pred"] for e in case["examples"]]
    st = mycelium.statistics(refs, preds, text=texts, metrics=["character"],
                             params={"character": {"overlaps": "pairwise"}})["character"]
    # gold [0,10) [5,15); pred [3,12) [8,20): overlaps 7 + 7 + 2 + 7 = 23
    assert (int(st["tp"][0]), int(st["fp"][0]), int(st["fn"][0])) == (23, -2, -3)
    assert case["lettucedetect"]["char_level"]["precision"] == 23 / 21


def test_token_scores_give_the_same_numbers_in_every_input_form():
    import pyarrow as pa

    case = next(c for c in TOKENS if c["name"] == "random_tokens_000")
    refs, texts = _sides(case)
    ex = case["examples"]
    arrow = mycelium.evaluate(
        refs, None, text=texts, profile="lettucedetect", threshold=0.5,
        token_offsets=pa.array([e["tokens"] for e in ex], pa.list_(pa.list_(pa.int64()))),
        token_scores=pa.array([e["probs"] for e in ex], pa.list_(pa.float64())))
    lists = _token_call(case)
    for m in ("character", "token_level", "response_level"):
        assert arrow[m] == lists[m]
