"""`mycelium.io.read_lettucedetect_predictions`: the outputs of LettuceDetect's detectors (the
list ``predict`` returns, as its command prints it, or its API's ``{"predictions"}``) read
into the columns the ``lettucedetect`` profile scores."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import mycelium
from mycelium.io import read_lettucedetect_predictions

ANSWERS = ["The fox ran home.", "It slept.", ""]
SPANS = [[{"start": 8, "end": 16, "confidence": 0.93, "text": "ran home"},
          {"start": 4, "end": 11, "confidence": 0.61, "text": "fox ran"}],
         [], []]


def _write(tmp_path, name, outputs, *, lines=False):
    path = tmp_path / name
    text = "\n".join(json.dumps(o) for o in outputs) + "\n" if lines else json.dumps(outputs)
    path.write_text(text, encoding="utf-8")
    return path


def test_span_outputs_as_a_json_array(tmp_path):
    df = read_lettucedetect_predictions(_write(tmp_path, "p.json", SPANS),
                                                 answers=ANSWERS)
    assert list(df.columns) == ["pred"] and isinstance(df["pred"].dtype, pd.ArrowDtype)
    assert df["pred"].tolist()[0] == [{"start": 8, "end": 16, "confidence": 0.93},
                                      {"start": 4, "end": 11, "confidence": 0.61}]
    refs = [[[8, 12]], [], []]
    got = mycelium.evaluate(refs, df["pred"], text=ANSWERS, profile="lettucedetect")
    lists = mycelium.evaluate(refs, [[[8, 16], [4, 11]], [], []], text=ANSWERS,
                              profile="lettucedetect")
    assert got["character"] == lists["character"] == {
        "precision": 7 / 15, "recall": 7 / 4, "f1": 2 * 7 / (15 + 4)}
    assert got["meta"]["dataset"].startswith("lettucedetect_predictions@sha256:")


def test_api_responses_as_json_lines(tmp_path):
    api = [{"predictions": [{"start": s["start"], "end": s["end"], "text": s["text"],
                             "hallucination_score": s["confidence"]} for s in row]}
           for row in SPANS]
    df = read_lettucedetect_predictions(_write(tmp_path, "p.jsonl", api, lines=True))
    assert [[(x["start"], x["end"], x["confidence"]) for x in row] for row in df["pred"]] == [
        [(8, 16, 0.93), (4, 11, 0.61)], [], []]


def test_token_outputs_are_aligned_to_the_answers(tmp_path):
    tokens = [[{"token": t, "pred": p, "prob": q} for t, p, q in zip(
        ["The", " fox", " ran", " home", ".", "[SEP]"], [0, 0, 1, 1, 0, 1],
        [0.1, 0.4, 0.8, 0.7, 0.2, 0.6])], [], []]
    df = read_lettucedetect_predictions(_write(tmp_path, "t.json", tokens),
                                                 answers=ANSWERS)
    assert df["token_offsets"].tolist()[0] == [[0, 3], [4, 7], [8, 11], [12, 16], [16, 17],
                                               [17, 17]]
    assert df["token_preds"].tolist()[0] == [0, 0, 1, 1, 0, 1]
    r = mycelium.evaluate([[[8, 16]], [], []], None, text=ANSWERS, profile="lettucedetect",
                          token_offsets=df["token_offsets"], token_scores=df["token_scores"],
                          threshold=0.5)
    # tokens: ran, home gold and predicted; the zero-length [SEP] predicted, not gold
    assert r["token_level"] == {"precision": 2 / 3, "recall": 1.0, "f1": 0.8}
    assert r["character"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}


def test_shifted_offsets_are_found_by_their_text(tmp_path):
    shifted = [[{"start": 7, "end": 15, "text": "ran home"}], [], []]
    with pytest.raises(ValueError, match=r"p\.json:1: field 'predictions', span 0: text "
                                         r"'ran home' is not answer\[7:15\] = ' ran hom' "
                                         r"\(answer 0\)"):
        read_lettucedetect_predictions(_write(tmp_path, "p.json", shifted),
                                                answers=ANSWERS)


@pytest.mark.parametrize("outputs, answers, message", [
    ([[{"start": 0, "end": 3}], [{"token": "a", "prob": 0.2}]], None,
     "expected outputs of one form, got both span and token outputs"),
    ([[], []], ANSWERS, "Expected one output per answer, got 2 outputs"),
    ([{"spans": []}], None, "expected the detector's list of spans or tokens, got dict"),
    ([[{"start": 5, "end": 2}]], None, r"\[5, 2\) is not a span"),
    ([[{"start": 0, "end": 30}], [], []], ANSWERS, "end 30 is past the end of the text"),
    ([[{"token": "a"}]], None, "expected 'prob' or 'hallucination_score'"),
])
def test_bad_outputs_are_refused_with_where(tmp_path, outputs, answers, message):
    with pytest.raises(ValueError, match=message):
        read_lettucedetect_predictions(_write(tmp_path, "bad.json", outputs),
                                                answers=answers)


def test_bad_json_line_and_missing_file(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('[]\n[{"start": 1,\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"x\.jsonl:2: not valid JSON"):
        read_lettucedetect_predictions(path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_lettucedetect_predictions(tmp_path / "nope.json")
