"""`mycelium.evaluate` with scores (SPEC section 9): threshold-free metrics, spans at a
threshold, response_level, intervals, meta and signature, and the errors."""

import math

import numpy as np
import pytest

import mycelium
from mycelium.stats.bootstrap import example_keys, percentile_interval, poisson_weights

TEXT = ["abcdefghij", "klmnopqrst", "uvwxyz"]
REFS = [[[2, 6]], [], [[0, 3]]]
SOFT = [[{"start": 1, "end": 5, "prob": 0.8}, {"start": 4, "end": 8, "prob": 0.3}],
        [{"start": 0, "end": 2, "prob": 0.6}],
        [{"start": 0, "end": 6, "prob": 0.4}]]


def _auc(label, score):
    """Slow Mann-Whitney AUROC (ties count one half) on expanded arrays."""
    pos = [s for s, y in zip(score, label) if y]
    neg = [s for s, y in zip(score, label) if not y]
    if not pos or not neg:
        return math.nan
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))


def _expanded(refs, soft, text):
    label, score = np.zeros(len(text), bool), np.zeros(len(text))
    for a, b in refs:
        label[a:b] = True
    for d in soft:
        score[d["start"]:d["end"]] = d["prob"]
    return label.tolist(), score.tolist()


def test_soft_predictions_alone_feed_the_score_metrics():
    r = mycelium.evaluate(REFS, text=TEXT, soft_predictions=SOFT, average="micro")
    assert [k for k in r if k != "meta"] == ["char_auroc", "char_ap", "response_auroc"]
    label, score = (sum(parts, []) for parts in zip(*[_expanded(*x)
                                                       for x in zip(REFS, SOFT, TEXT)]))
    assert r["char_auroc"]["score"] == pytest.approx(_auc(label, score), abs=1e-15)
    # responses: gold [1, 0, 1], max score [0.8, 0.6, 0.4]
    assert r["response_auroc"]["score"] == 0.5
    assert r["meta"]["scores"] == "soft" and "threshold" not in r["meta"]
    assert "scores:soft" in r["meta"]["signature"]
    assert "metrics:char_auroc,char_ap,response_auroc" in r["meta"]["signature"]


def test_macro_leaves_out_undefined_examples():
    r = mycelium.evaluate(REFS, text=TEXT, soft_predictions=SOFT,
                          metrics=["char_auroc"], include_per_example=True)
    per = [row["char_auroc"]["score"] for row in r["per_example"]]
    assert math.isnan(per[1])  # no reference character: undefined, left out
    assert r["char_auroc"]["score"] == pytest.approx((per[0] + per[2]) / 2, abs=1e-15)
    assert per[0] == _auc(*_expanded(REFS[0], SOFT[0], TEXT[0]))


def test_threshold_gives_the_predictions_of_every_span_metric():
    r = mycelium.evaluate(REFS, text=TEXT, soft_predictions=SOFT, threshold=0.5,
                          metrics=["iou", "character", "response_level"], average="micro")
    spans = mycelium.spans_at(0.5, soft_predictions=SOFT, text=TEXT)
    assert spans == [[[1, 4]], [[0, 2]], []]  # [4, 5) was overwritten by 0.3
    same = mycelium.evaluate(REFS, spans, text=TEXT, metrics=["iou", "character"],
                             average="micro")
    assert r["iou"] == same["iou"] and r["character"] == same["character"]
    # responses: gold [1, 0, 1], predicted [1, 1, 0] -> tp 1, fp 1, fn 1
    assert r["response_level"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    meta = r["meta"]
    assert meta["threshold"] == 0.5 and meta["response_level_average"] == "micro"
    assert meta["signature"].endswith("|scores:soft|threshold:0.5")
    parsed = mycelium.parse_signature(meta["signature"])
    assert parsed["threshold"] == "0.5" and parsed["scores"] == "soft"


def test_response_level_is_pooled_whatever_average_says():
    a = mycelium.evaluate(REFS, [[[1, 4]], [[0, 2]], []], text=TEXT,
                          metrics=["response_level"], average="macro")
    assert a["response_level"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5}


def test_intervals_of_score_metrics_resample_examples():
    refs = REFS * 4
    soft = SOFT * 4
    text = TEXT * 4
    r = mycelium.evaluate(refs, text=text, soft_predictions=soft, metrics=["char_auroc"],
                          average="micro", ci=0.9, n_resamples=50, seed=3)
    # The same resamples by brute force: repeat each example w times, score the copies.
    w = poisson_weights(example_keys(12), 3, range(50))
    values = []
    for row in w:
        label, score = [], []
        for k, times in enumerate(row.astype(int)):
            la, sc = _expanded(refs[k], soft[k], text[k])
            label += la * times
            score += sc * times
        values.append(_auc(label, score) if row.sum() else math.nan)
    low, high = percentile_interval(np.array(values), 0.9, r["char_auroc"]["score"])
    assert r["ci"]["char_auroc"]["score"]["low"] == pytest.approx(low, abs=1e-12)
    assert r["ci"]["char_auroc"]["score"]["high"] == pytest.approx(high, abs=1e-12)


def test_ten_million_characters_through_evaluate():
    n = 10_000_000
    r = mycelium.evaluate([[100, 200]], text="x" * n, threshold=0.5,
                          soft_predictions=[{"start": 150, "end": 300, "prob": 0.9}],
                          metrics=["char_auroc", "char_ap", "iou"])
    assert r["iou"]["score"] == 50 / 200
    # positives 100 (50 at 0.9, 50 at 0), negatives n - 100 (100 at 0.9)
    neg = n - 100
    assert r["char_auroc"]["score"] == pytest.approx(
        (50 * (neg - 100) + 0.5 * 50 * 100 + 0.5 * 50 * (neg - 100)) / (100 * neg), abs=1e-15)
    assert r["char_ap"]["score"] == pytest.approx(0.5 * 50 / 150 + 0.5 * 100 / n, abs=1e-15)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"predictions": [[[0, 1]], [], []], "threshold": 0.5, "soft_predictions": SOFT,
      "text": TEXT}, ValueError, "Expected predictions or threshold, got both"),
    ({"soft_predictions": SOFT}, ValueError, "Expected text with the scores, got text=None"),
    ({"threshold": 0.5, "text": TEXT}, ValueError, "Expected scores with threshold="),
    ({"text": TEXT, "soft_predictions": SOFT, "token_offsets": [[]] * 3,
      "token_scores": [[]] * 3}, ValueError, "Expected one score form, got both"),
    ({"text": TEXT, "token_offsets": [[]] * 3}, ValueError,
     "Expected token_offsets and token_scores together"),
    ({"text": TEXT, "soft_predictions": SOFT[:2]}, ValueError,
     r"Expected 3 entries in soft_predictions \(one per example\), got 2"),
    ({"text": TEXT, "soft_predictions": SOFT, "metrics": ["iou"]}, ValueError,
     "Expected predictions or a threshold for iou, got neither"),
    ({"text": TEXT, "soft_predictions": SOFT, "threshold": 1.5}, ValueError,
     r"Expected a threshold in \[0, 1\], got 1.5"),
    ({"predictions": [[], [], []], "text": TEXT, "metrics": ["char_auroc"]}, ValueError,
     "Expected scores for char_auroc, got none"),
])
def test_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        mycelium.evaluate(REFS, **kwargs)


def test_soft_spearman_still_needs_both_soft_sides():
    with pytest.raises(ValueError, match="soft_spearman needs both"):
        mycelium.evaluate(REFS, [[], [], []], text=TEXT, soft_references=SOFT)
    r = mycelium.evaluate(REFS, [[], [], []], text=TEXT, soft_references=SOFT,
                          soft_predictions=SOFT, metrics=["soft_spearman"])
    assert r["soft_spearman"] == {"score": 1.0}
