"""``token_level`` and ``response_level(unit="tokens")``: token labels against a slow
transcription of LettuceDetect's labelling loop (zero-length spans and tokens, many
examples, offsets near 2**62), and the calls that cannot have them refused by name."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from mycelium.metrics.tokens import label_tokens
from mycelium.scores import sweep

pair = st.tuples(st.integers(0, 30), st.integers(0, 6)).map(lambda t: (t[0], t[0] + t[1]))
example = st.tuples(st.lists(pair, max_size=5), st.lists(pair, max_size=8))


def slow_gold(refs, tokens):
    """HallucinationDataset: label 1 when ``token_end > start and token_start < end``."""
    return [any(b > s and a < e for s, e in refs) for a, b in tokens]


def _flat(rows, k):
    ex = [i for i, r in enumerate(rows) for _ in r[k]]
    pts = [p for r in rows for p in r[k]]
    s = np.array([p[0] for p in pts], dtype=np.int64)
    e = np.array([p[1] for p in pts], dtype=np.int64)
    return np.array(ex, dtype=np.int64), s, e


@settings(max_examples=200, deadline=None)
@given(st.lists(example, min_size=1, max_size=6), st.sampled_from([1, 2**40, 2**56]))
def test_gold_labels_equal_the_slow_loop(rows, scale):
    rows = [([(s * scale, e * scale) for s, e in r], [(a * scale, b * scale) for a, b in t])
            for r, t in rows]
    refs, toks = _flat(rows, 0), _flat(rows, 1)
    got = label_tokens(len(rows), refs, toks, np.zeros(toks[0].size), 0.5)
    want = [g for r, t in rows for g in slow_gold(r, t)]
    assert got.gold.tolist() == want
    assert got.example.tolist() == toks[0].tolist()


def test_zero_length_on_either_side():
    refs = (np.array([0, 0]), np.array([6, 20]), np.array([6, 30]))
    toks = (np.zeros(5, np.int64), np.array([4, 6, 25, 20, 30]), np.array([9, 6, 25, 22, 30]))
    got = label_tokens(1, refs, toks, np.array([0.9, 0.5, 0.7, 0.1, 1.0]), 0.5)
    # [4,9) holds the zero-length span at 6; (25,25) lies inside [20,30); (6,6) and
    # (30,30) sit on span edges, [20,22) overlaps [20,30)
    assert got.gold.tolist() == [True, False, True, True, False]
    assert got.pred.tolist() == [True, False, True, False, True]
    counts = got.counts()
    assert {k: int(v[0]) for k, v in counts.items()} == {"tp": 2, "fp": 1, "fn": 1, "tn": 1}


TEXT = "The fox ran home."
TOKENS = [[0, 3], [4, 7], [8, 11], [12, 16], [16, 17], [17, 17]]


def test_unit_tokens_reads_tokens_and_the_span_lists_otherwise():
    """Only the zero-length [SEP] is predicted: positive from tokens, not from spans."""
    scores = [0.1, 0.2, 0.1, 0.3, 0.2, 0.9]
    by_tokens = mycelium.evaluate([[]], None, text=[TEXT], token_offsets=[TOKENS],
                                  token_scores=[scores], threshold=0.5,
                                  profile="lettucedetect")
    assert by_tokens["response_level"]["precision"] == 0.0  # one FP response
    assert by_tokens["token_level"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    spans = mycelium.spans_at(0.5, token_offsets=[TOKENS], token_scores=[scores])
    assert spans == [[]]
    by_spans = mycelium.evaluate([[]], spans, text=[TEXT], profile="lettucedetect",
                                 metrics=["response_level"])
    stats = mycelium.statistics([[]], spans, metrics=["response_level"],
                                params={"response_level": {"unit": "tokens"}})
    assert int(stats["response_level"]["tn"][0]) == 1  # without tokens: the span lists
    assert by_spans["response_level"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


@pytest.mark.parametrize("kwargs, message", [
    ({"predictions": [[[0, 3]]]}, "got no token scores"),
    ({"predictions": None, "soft_predictions": [[{"start": 0, "end": 3, "prob": 0.7}]],
      "threshold": 0.5}, "got no token scores"),
    ({"predictions": [[[0, 3]]], "token_offsets": [TOKENS], "token_scores": [[0.5] * 6]},
     "got no threshold"),
])
def test_token_level_needs_token_scores_at_a_threshold(kwargs, message):
    with pytest.raises(ValueError, match="Expected token scores at a threshold for "
                                         f"token_level, {message}; fix by passing"):
        mycelium.evaluate([[[0, 3]]], text=[TEXT], metrics=["token_level"], **kwargs)


def test_token_level_refuses_trimmed_references():
    with pytest.raises(ValueError, match="Expected token_level without trim_spans"):
        mycelium.evaluate([[[3, 8]]], None, text=[TEXT], token_offsets=[TOKENS],
                          token_scores=[[0.9] * 6], threshold=0.5,
                          metrics=["character", "token_level"], trim_spans="whitespace")


def test_sweeps_refuse_token_items_and_take_the_pairwise_rule_slowly():
    with pytest.raises(ValueError, match=r"got token_level \(tokens as items\)"):
        sweep([[[8, 16]]], text=[TEXT], token_offsets=[TOKENS],
                       token_scores=[[0.1, 0.2, 0.8, 0.7, 0.1, 0.1]], metrics=["token_level"])
    curve = sweep([[[8, 16], [8, 16]]], text=[TEXT], token_offsets=[TOKENS],
                           token_scores=[[0.1, 0.2, 0.8, 0.7, 0.1, 0.1]],
                           metrics=["character"], profile="lettucedetect",
                           thresholds=[0.5])
    row = curve[(curve["metric"] == "character") & (curve["measure"] == "recall")]
    assert row["value"].tolist() == [1.0]  # 8 predicted characters against 16 listed
    p = curve[(curve["metric"] == "character") & (curve["measure"] == "precision")]
    assert p["value"].tolist() == [2.0]


def test_frames_label_token_level_pooled_whatever_the_average():
    import pandas as pd

    df = pd.DataFrame({"ref": [[[8, 16]]], "text": [TEXT], "offsets": [TOKENS],
                       "scores": [[0.1, 0.2, 0.8, 0.7, 0.1, 0.9]]})
    tidy = df.mycelium.evaluate("ref", None, text="text", token_offsets_col="offsets",
                                token_scores_col="scores", threshold=0.5,
                                profile="lettucedetect", average="macro")
    rows = tidy[tidy["metric"] == "token_level"]
    assert set(rows["average"]) == {"micro"} and set(rows["profile"]) == {"lettucedetect"}
    assert dict(zip(rows["measure"], rows["value"])) == {"precision": 2 / 3, "recall": 1.0,
                                                         "f1": 0.8}
