"""Golden parity of `mycelium.score_fava` (the ``fava`` profile) with FAVA's scorer.

Reads only tests/golden/fava_cases.json, built by build_fava_golden.py (see its
``provenance``: abhika-m/FAVA @ 7ec08c2, utils.py ``run_detection`` called as
eval/run_eval.py calls it). Each case's texts are its tagged sentences joined by one
space; the spans come from `mycelium.io.fava.fava_spans`, the sentence starts from the
clean text of each sentence prefix.
"""

import json
import math
from pathlib import Path

import pytest

import mycelium
from mycelium.io.fava import fava_spans

GOLDEN = json.loads(Path(__file__).with_name("fava_cases.json").read_text("utf-8"))
CASES = GOLDEN["cases"]


def _side(sentences):
    text, spans, _ = fava_spans(" ".join(sentences))
    starts = [len(fava_spans(" ".join(sentences[:k]) + (" " if k else ""))[0])
              for k in range(len(sentences))]
    assert all(text[s:].startswith(fava_spans(x)[0]) for s, x in zip(starts, sentences))
    return [{"start": s, "end": e, "type": t} for s, e, t in spans], starts


def _untag(d):
    return {k.strip("<>"): v for k, v in d.items()}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_per_example_values_match_run_detection(case):
    ref, ref_starts = _side(case["gold_sentences"])
    pred, pred_starts = _side(case["pred_sentences"])
    out = mycelium.score_fava([ref], [pred], reference_sentences=[ref_starts],
                              prediction_sentences=[pred_starts])
    got = out["per_example"][0]
    assert got["precision"] == _untag(case["per_error_prec"])
    assert got["recall"] == _untag(case["per_error_rec"])
    for ours, theirs in ((got["overall_precision"], case["overall_prec"]),
                         (got["overall_recall"], case["overall_rec"])):
        if theirs == -1:  # FAVA writes -1 for "no type to average over"
            assert math.isnan(ours)
        else:
            assert ours == pytest.approx(theirs, abs=1e-15)
    assert "profile:fava@1" in out["meta"]["signature"]
    assert "sentence_alignment:index" in out["meta"]["signature"]


def test_strict_alignment_refuses_what_the_quirk_cuts():
    case = next(c for c in CASES if c["name"] == "prediction_splits_a_sentence")
    ref, rs = _side(case["gold_sentences"])
    pred, ps = _side(case["pred_sentences"])
    with pytest.raises(ValueError, match=r"got 4 and 3, at example 0; fix by"):
        mycelium.score_fava([ref], [pred], reference_sentences=[rs],
                            prediction_sentences=[ps], sentence_alignment="strict")


def test_shared_sentences_remove_the_shift():
    """With one sentence split for both sides (the same original text), the split that
    shifted every comparison no longer costs anything: all types match."""
    case = next(c for c in CASES if c["name"] == "prediction_splits_a_sentence")
    ref, rs = _side(case["gold_sentences"])
    pred, _ = _side(case["pred_sentences"])
    out = mycelium.score_fava([ref], [pred], reference_sentences=[rs])
    assert out["per_example"][0]["precision"] == {"entity": 1.0, "unverifiable": 1.0,
                                                  "subjective": 1.0}
    assert out["overall_recall"] == 1.0


def test_batch_means_are_over_the_examples_that_define_them():
    sides = [(_side(c["gold_sentences"]), _side(c["pred_sentences"])) for c in CASES]
    out = mycelium.score_fava([g[0] for g, _ in sides], [p[0] for _, p in sides],
                              reference_sentences=[g[1] for g, _ in sides],
                              prediction_sentences=[p[1] for _, p in sides])
    entity = [c["per_error_prec"]["<entity>"] for c in CASES
              if "<entity>" in c["per_error_prec"]]
    assert out["precision"]["entity"] == pytest.approx(sum(entity) / len(entity))
    defined = [c["overall_rec"] for c in CASES if c["overall_rec"] != -1]
    assert out["overall_recall"] == pytest.approx(sum(defined) / len(defined))
    assert out["meta"]["examples"] == len(CASES)
