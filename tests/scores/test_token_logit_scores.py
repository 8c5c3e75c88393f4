"""``mycelium.scores.baselines.token_logit_scores``: hand-made records with known scores, every
edge case the data has (constant logits, one token, repr strings, one logit too many),
and every record of every Mu-SHROOM val v2 and labeled test file."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

import mycelium
from mycelium.scores.baselines import token_logit_scores


def rec(tokens, logits, text, rid="r"):
    return {"id": rid, "model_output_text": text, "model_output_tokens": tokens,
            "model_output_logits": logits}


def test_min_max_of_the_negated_logit():
    off, s = token_logit_scores(rec(["A", "Ġb", "Ġc"], [3.0, 1.0, 2.0], "A b c"))
    assert off == [(0, 1), (2, 3), (4, 5)]
    assert s.tolist() == [0.0, 1.0, 0.5]
    assert s.dtype == np.float64


def test_monotone_decreasing_in_the_logit():
    rng = np.random.default_rng(3)
    logits = rng.normal(size=40)
    _, s = token_logit_scores(rec(["a"] * 40, logits.tolist(), "a" * 40))
    order = np.argsort(logits)
    assert np.all(np.diff(s[order]) <= 0)
    assert s.min() == 0.0 and s.max() == 1.0


def test_constant_logits_and_a_single_token_score_zero_and_say_so():
    off, s, info = token_logit_scores(rec(["x", "Ġy"], [0.0, 0.0], "x y"), report=True)
    assert s.tolist() == [0.0, 0.0] and info["constant"] is True
    off, s, info = token_logit_scores(rec(["x"], [7.5], "x"), report=True)
    assert (off, s.tolist(), info["constant"]) == ([(0, 1)], [0.0], True)
    off, s, info = token_logit_scores(rec([], [], ""), report=True)
    assert (off, s.tolist(), info["constant"], info["tokens"]) == ([], [], False, 0)


def test_repr_strings_are_parsed_and_reported():
    r = rec("['El', '▁gat', \"'\"]", "[1.0, 3.0, 2.0]", "El gat'")
    off, s, info = token_logit_scores(r, report=True)
    assert off == [(0, 2), (3, 6), (6, 7)] and s.tolist() == [1.0, 0.0, 0.5]
    assert info["parsed_strings"] is True
    with pytest.raises(ValueError, match=r"Expected 'model_output_tokens' to be a list "
                                         r"or a list literal.*at record 'r'"):
        token_logit_scores(rec("not a list [", [1.0], "x"))


def test_one_logit_too_many_raises_unless_asked_to_drop_it():
    r = rec(["a", "Ġb"], [1.0, 2.0, 9.0], "a b", rid="tst-en-1")
    with pytest.raises(ValueError, match=r"Expected one logit per token, got 3 logits "
                                         r"for 2 tokens, at record 'tst-en-1'; fix by "
                                         r"pass extra_logits='drop_last'"):
        token_logit_scores(r)
    off, s, info = token_logit_scores(r, extra_logits="drop_last", report=True)
    assert s.tolist() == [1.0, 0.0] and info["dropped_logits"] == 1
    with pytest.raises(ValueError, match="got 1 logits for 2 tokens"):
        token_logit_scores(rec(["a", "Ġb"], [1.0], "a b"), extra_logits="drop_last")


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="Expected a record with 'model_output_logits'"):
        token_logit_scores({"id": "q", "model_output_text": "a",
                            "model_output_tokens": ["a"]})
    with pytest.raises(ValueError, match=r"Expected finite logits, got nan, at record 'r'"):
        token_logit_scores(rec(["a", "b"], [1.0, float("nan")], "ab"))
    with pytest.raises(ValueError, match="Expected extra_logits one of raise, drop_last"):
        token_logit_scores(rec(["a"], [1.0], "a"), extra_logits="first")
    with pytest.raises(ValueError, match="Expected numeric logits, got 'x'"):
        token_logit_scores(rec(["a"], ["x"], "a"))


def test_special_tokens_mark_no_character():
    off, s = token_logit_scores(rec(["Hi", "<|im_end|>"], [5.0, 1.0], "Hi"))
    assert off == [(0, 2), (2, 2)] and s.tolist() == [0.0, 1.0]
    assert mycelium.spans_at(0.5, token_offsets=off, token_scores=s) == []


def test_scores_feed_evaluate_and_tune_threshold():
    r = rec(["Paris", "Ġis", "Ġin", "ĠPeru", "."], [20.0, 25.0, 24.0, 10.0, 30.0],
            "Paris is in Peru.")
    off, s = token_logit_scores(r)
    out = mycelium.evaluate([[12, 16]], text=r["model_output_text"], token_offsets=off,
                            token_scores=s, threshold=0.6, profile="mu_shroom")
    assert out["iou"]["score"] == 1.0
    assert out["char_auroc"]["score"] == 1.0


def _records(root):
    for path in sorted(root.glob("splits/*/*/mushroom.*.extra.jsonl")):
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                yield path.name, json.loads(line)


def test_every_real_record(mushroom_dir):
    seen = Counter()
    for name, r in _records(mushroom_dir):
        try:
            off, s, info = token_logit_scores(r, report=True)
        except ValueError as exc:
            assert "extra_logits='drop_last'" in str(exc)
            off, s, info = token_logit_scores(r, extra_logits="drop_last", report=True)
            seen[("extra", name.split(".")[1])] += info["dropped_logits"]
        assert len(off) == len(s) == info["tokens"]
        assert np.all((s >= 0) & (s <= 1))
        assert all(0 <= a <= b <= len(r["model_output_text"]) for a, b in off)
        seen["records"] += 1
        seen["parsed"] += info["parsed_strings"]
        seen["constant"] += info["constant"]
        seen["single"] += info["tokens"] == 1
    assert seen["records"] == 2401
    assert seen[("extra", "en-tst")] == 107 and seen[("extra", "de-tst")] == 28
    assert sum(v for k, v in seen.items() if k[0] == "extra") == 135
    assert seen["parsed"] == 100          # the Catalan test file
    assert seen["constant"] == 9          # Swedish records with all-zero logits
    assert seen["single"] == 0


def test_read_mushroom_rows_work_too(mushroom_dir):
    path = mushroom_dir / "splits/test_labeled/v1/mushroom.ca-tst.v1.extra.jsonl"
    df = mycelium.read_mushroom(path, keep_extra=True)
    row = df.iloc[0]
    off, s = token_logit_scores(row)
    with path.open(encoding="utf-8") as fh:
        first = json.loads(fh.readline())
    off2, s2 = token_logit_scores(first)
    assert off == off2 and s.tolist() == s2.tolist()
