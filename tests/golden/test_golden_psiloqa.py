"""Golden parity of the ``psiloqa`` profile with PsiloQA's published evaluator.

Reads only tests/golden/psiloqa_cases.json, built by build_psiloqa_golden.py (see its
``provenance``: s-nlp/PsiloQA @ 95233ae, psilo/methods/uncertainty/evaluation.py, run
unmodified). Per language and method: the threshold tuned on validation (2,000-step
grid, mean per-example IoU), the per-example test IoU at ``>=`` that threshold and the
per-example character AP, and their means; and the gold spans its ``[HAL]`` locating
rule gives.
"""

import json
import math
from pathlib import Path

import pandas as pd
import pytest

import mycelium

GOLDEN = json.loads(Path(__file__).with_name("psiloqa_cases.json").read_text("utf-8"))
ROWS = GOLDEN["rows"]
METHODS = ("MSP", "CCP", "Focus")
CASES = [(lang, m) for lang in sorted(GOLDEN["results"]) for m in METHODS]


def _part(split, lang):
    return [r for r in ROWS if r["split"] == split and r["lang"] == lang]


def _scores(rows, method):
    # The evaluator's value lists have one more entry than the offsets; zip() places the
    # first len(offsets) of them (the last is never used).
    return ([r["offsets"] for r in rows],
            [r["values"][method][:len(r["offsets"])] for r in rows])


@pytest.mark.parametrize("lang, method", CASES, ids=[f"{a}-{b}" for a, b in CASES])
def test_threshold_iou_and_ap_match_the_published_evaluator(lang, method):
    want = GOLDEN["results"][lang][method]
    val, test = _part("validation", lang), _part("test", lang)
    offs, vals = _scores(val, method)
    tuned = mycelium.tune_threshold([r["gold"] for r in val],
                                    text=[r["llm_answer"] for r in val],
                                    token_offsets=offs, token_scores=vals,
                                    profile="psiloqa", thresholds={"steps": 2000})
    assert float(tuned["threshold"]) == want["threshold"]
    offs, vals = _scores(test, method)
    report = mycelium.evaluate([r["gold"] for r in test], text=[r["llm_answer"] for r in test],
                               token_offsets=offs, token_scores=vals,
                               threshold=tuned["threshold"], profile="psiloqa",
                               metrics=["iou", "char_ap"], include_per_example=True)
    assert [e["iou"]["score"] for e in report["per_example"]] == pytest.approx(
        want["iou"], abs=1e-12)
    assert [e["char_ap"]["score"] for e in report["per_example"]] == pytest.approx(
        want["ap"], abs=1e-12)
    assert report["iou"]["score"] == pytest.approx(want["iou_mean"], abs=1e-12)
    assert report["char_ap"]["score"] == pytest.approx(want["ap_mean"], abs=1e-12)
    assert "threshold_rule:>=|token_overlap:last|char_ap_undefined:0.0" in \
        report["meta"]["signature"]


def test_spec_defaults_give_other_numbers_on_the_same_case():
    """Without the profile's rules (``>``, max over tokens, AP left out) the English MSP
    AP mean is over the two examples with a hallucination, not all three."""
    test = _part("test", "en")
    offs, vals = _scores(test, "MSP")
    report = mycelium.evaluate([r["gold"] for r in test], text=[r["llm_answer"] for r in test],
                               token_offsets=offs, token_scores=vals, metrics=["char_ap"])
    want = GOLDEN["results"]["en"]["MSP"]["ap"]
    assert report["char_ap"]["score"] == pytest.approx((want[0] + want[2]) / 2, abs=1e-12)


def test_score_psiloqa_runs_the_whole_protocol():
    frame = pd.DataFrame([{**r, "labels": r["gold"], "token_offsets": r["offsets"],
                           "token_scores": r["values"]["CCP"][:len(r["offsets"])]}
                          for r in ROWS])
    out = mycelium.score_psiloqa(frame[frame.split == "validation"],
                                 frame[frame.split == "test"], references="labels")
    assert out["lang"].tolist() == ["de", "en"]
    for _, row in out.iterrows():
        want = GOLDEN["results"][row["lang"]]["CCP"]
        assert row["threshold"] == want["threshold"]
        assert row["iou"] == pytest.approx(want["iou_mean"], abs=1e-12)
        assert row["char_ap"] == pytest.approx(want["ap_mean"], abs=1e-12)
        assert row["examples"] == len(want["iou"])
    assert "grid:range/2000" in out.attrs["signature"]
    assert not any(math.isnan(v) for v in out["iou"])
