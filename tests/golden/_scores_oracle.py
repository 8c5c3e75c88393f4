"""Checks of one scores oracle case (SPEC section 9), shared by the golden selection
(test_golden_scores.py) and the full oracle file (test_full_oracle.py)."""

import math

import mycelium


def close(expected, got, tol=1e-12):
    if expected is None:
        return math.isnan(got)
    return abs(expected - got) <= tol * max(1.0, abs(expected))


def inputs(case):
    ex = case["examples"]
    kw = {"text": [e["text"] for e in ex]}
    if case["form"] == "soft_spans":
        kw["soft_predictions"] = [e["soft_predictions"] for e in ex]
    else:
        kw["token_offsets"] = [e["token_offsets"] for e in ex]
        kw["token_scores"] = [e["token_scores"] for e in ex]
    return [e["refs"] for e in ex], kw


def check_threshold_free(case):
    refs, kw = inputs(case)
    exp = case["expected"]
    names = ["char_auroc", "char_ap", "response_auroc"]
    for average in ("macro", "micro"):
        r = mycelium.evaluate(refs, metrics=names, average=average,
                              include_per_example=True, **kw)
        for m in ("char_auroc", "char_ap"):
            assert close(exp[m][average], r[m]["score"]), (m, average)
        assert close(exp["response_auroc"], r["response_auroc"]["score"])
    for row, want in zip(r["per_example"], exp["per_example"]):
        for m in ("char_auroc", "char_ap"):
            assert close(want[m], row[m]["score"]), m


def _prf(tp, fp, fn):
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r


def check_at_thresholds(case):
    refs, kw = inputs(case)
    scores = {k: v for k, v in kw.items() if k != "text"}
    for t, want in case["expected"]["at_threshold"].items():
        t = float(t)
        assert mycelium.spans_at(t, text=kw["text"], **scores) == want["spans"]
        macro = mycelium.evaluate(refs, threshold=t, metrics=["iou"], **kw)
        micro = mycelium.evaluate(refs, threshold=t, average="micro",
                                  metrics=["iou", "character", "response_level"], **kw)
        assert close(want["iou_macro"], macro["iou"]["score"])
        assert close(want["iou_micro"], micro["iou"]["score"])
        for k, v in want["character_micro"].items():
            assert close(v, micro["character"][k]), k
        c = want["response_level"]
        p, r = _prf(c["tp"], c["fp"], c["fn"])
        assert close(p, micro["response_level"]["precision"])
        assert close(r, micro["response_level"]["recall"])
        st = mycelium.statistics(refs, want["spans"], text=kw["text"],
                                 metrics=["response_level"])["response_level"]
        assert {k: int(v.sum()) for k, v in st.items()} == c
