"""Hand-computed values: the SPEC section 4 worked table, the seed README examples,
and the reference implementation checked against the same numbers and the oracle."""

from __future__ import annotations

import importlib
import json
import pathlib
import re
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import reference  # noqa: E402

import mycelium  # noqa: E402

ORACLE = pathlib.Path("/work/shared/oracle/detection_cases.json")

# SPEC.md section 4, "Worked values (defaults; P / R / F1)", every row as printed.
WORKED = [
    ([[0, 10]], [[2, 8]], (0, 0, 0), (1.0, 0.6, 0.75)),
    ([[0, 10]], [[0, 5], [5, 10]], (0.8, 0.8, 0.8), (1.0, 0.9, 0.9474)),
    ([[0, 4], [5, 10]], [[0, 10]], (0.8, 0.8, 0.8), (0.8889, 1.0, 0.9412)),
    ([[0, 10]], [[0, 9]], (1, 1, 1), (1.0, 0.9, 0.9474)),
    ([[0, 10]], [[5, 20]], (0, 0, 0), (1.0, 0.5, 0.6667)),
    ([[0, 10]], [[8, 20]], (0, 0, 0), (0, 0, 0)),
    ([[0, 4], [4, 12]], [[2, 12]], (1.0, 0.5, 0.6667), (0.9, 0.8333, 0.8654)),
    ([[0, 5], [5, 10]], [[0, 7], [7, 10]], (0.5, 0.5, 0.5), (0.9, 0.9, 0.9)),
    ([[0, 3]], [[0, 10]], (0, 0, 0), (1, 1, 1)),
]
WORKED_IDS = [f"{r}-{p}" for r, p, _, _ in WORKED]


def _prf(d):
    return tuple(round(d[k], 4) for k in ("precision", "recall", "f1"))


@pytest.mark.parametrize("refs, preds, deteval, cleval", WORKED, ids=WORKED_IDS)
def test_worked_table_core(refs, preds, deteval, cleval):
    report = mycelium.evaluate(refs, preds, metrics=["deteval_1d", "cleval_1d"])
    assert _prf(report["deteval_1d"]) == deteval
    assert _prf(report["cleval_1d"]) == cleval


@pytest.mark.parametrize("refs, preds, deteval, cleval", WORKED, ids=WORKED_IDS)
def test_worked_table_reference(refs, preds, deteval, cleval):
    out = reference.evaluate([refs], [preds], metrics=("deteval_1d", "cleval_1d"))
    assert _prf(out["deteval_1d"]) == deteval
    assert _prf(out["cleval_1d"]) == cleval


def test_worked_readme_row_is_exact():
    # P = 1, R = 6/10: F1 = 2ac/(ad+bc) = 0.75 exactly (2PR/(P+R) in floats is not).
    report = mycelium.evaluate([[0, 10]], [[2, 8]], metrics=["cleval_1d", "character"])
    assert report["cleval_1d"] == {"precision": 1.0, "recall": 0.6, "f1": 0.75}
    assert report["character"] == {"precision": 1.0, "recall": 0.6, "f1": 0.75}


def test_deteval_threshold_tie_in_exact_arithmetic():
    # SPEC: sum R = 1/10 + 7/10 meets 0.8 although the float sum is 0.7999999999999999.
    # ref [0,10); preds [0,1) (R=0.1, P=1) and [3,10) (R=0.7, P=1): a split.
    refs, preds = [[0, 10]], [[0, 1], [3, 10]]
    stats = mycelium.statistics(refs, preds, metrics=["deteval_1d"])["deteval_1d"]
    assert int(stats["n_split_refs"][0]) == 1
    assert int(stats["n_split_preds"][0]) == 2
    assert reference.deteval_1d_stats(refs, preds)["n_split_refs"] == 1
    report = mycelium.evaluate(refs, preds, metrics=["deteval_1d"])
    assert report["deteval_1d"]["recall"] == pytest.approx(0.8, abs=1e-15)
    assert report["deteval_1d"]["precision"] == pytest.approx(0.8, abs=1e-15)


# --------------------------------------------------------------------------------------
# Oracle case files: reference and core statistics against spec_1d_expected
# --------------------------------------------------------------------------------------


def _oracle_cases():
    data = json.loads(ORACLE.read_text())
    # Cases with duplicate spans keep them as separate objects there; mycelium's
    # sides are sets (SPEC section 2), so those cases do not apply.
    return [c for c in data["cases"] if not c["has_duplicate_spans"]]


ORACLE_CASES = _oracle_cases() if ORACLE.exists() else []
DETEVAL_KEYS = ("n_ref", "n_pred", "n_one_to_one", "n_split_refs", "n_split_preds",
                "n_merge_refs", "n_merge_preds")
CLEVAL_KEYS = reference.STAT_NAMES["cleval_1d"]


@pytest.mark.skipif(not ORACLE_CASES, reason="oracle case file not available")
@pytest.mark.parametrize("case", ORACLE_CASES, ids=[c["id"] for c in ORACLE_CASES])
def test_oracle_statistics(case):
    exp = case["spec_1d_expected"]
    ref = reference.example_statistics(case["refs"], case["preds"])
    core = mycelium.statistics([case["refs"]], [case["preds"]],
                               metrics=["deteval_1d", "cleval_1d"])
    for key in DETEVAL_KEYS:
        assert ref["deteval_1d"][key] == exp["deteval_1d"][key], key
        assert int(core["deteval_1d"][key][0]) == exp["deteval_1d"][key], key
    for key in CLEVAL_KEYS:
        assert ref["cleval_1d"][key] == exp["cleval_1d"][key], key
        assert core["cleval_1d"][key][0] == exp["cleval_1d"][key], key
    # the credits, and the merge-credit-1.0 (ICDAR/RRC) variant
    r = reference.ratios("deteval_1d", ref["deteval_1d"])
    assert float(r["recall"][0]) == pytest.approx(exp["deteval_1d"]["recall_credit"], abs=1e-12)
    assert float(r["precision"][0]) == pytest.approx(
        exp["deteval_1d"]["precision_credit"], abs=1e-12)
    params = {"deteval_1d": {"merge_credit": 1.0}}
    r1 = reference.ratios("deteval_1d", ref["deteval_1d"], params)
    exp1 = case["spec_1d_expected"]["deteval_1d_merge_credit_1"]
    assert float(r1["recall"][0]) == pytest.approx(exp1["recall_credit"], abs=1e-12)
    assert float(r1["precision"][0]) == pytest.approx(exp1["precision_credit"], abs=1e-12)
    if case["refs"] and case["preds"]:  # no zero-division convention involved
        rep = mycelium.evaluate(case["refs"], case["preds"], params=params,
                                metrics=["deteval_1d"])
        for k in ("precision", "recall", "f1"):
            assert rep["deteval_1d"][k] == pytest.approx(exp1[k], abs=1e-12), k


# --------------------------------------------------------------------------------------
# The seed README
# --------------------------------------------------------------------------------------

README_REPORT = {
    "exact_span": {"precision": 0.0, "recall": 0.0, "f1": 0.0},
    "iou": {"score": 0.6},
    "character": {"precision": 1.0, "recall": 0.6, "f1": 0.75},
    "deteval_1d": {"precision": 0.0, "recall": 0.0, "f1": 0.0},
    "cleval_1d": {"precision": 1.0, "recall": 0.6, "f1": 0.75},
    "span_coverage": {"precision": 1.0, "recall": 1.0, "f1": 1.0},
}
README_META = {
    "examples": 1,
    "average": "macro",
    "offset_convention": "half-open [start, end)",
    "profile": "mu_shroom",
}


def test_readme_first_example_exact():
    report = mycelium.evaluate(
        references=[[0, 10]],
        predictions=[[2, 8]],
        text="0123456789",
        profile="mu_shroom",
    )
    assert list(report) == [*README_REPORT, "meta"]
    assert {k: v for k, v in report.items() if k != "meta"} == README_REPORT
    for metric, values in README_REPORT.items():
        assert list(report[metric]) == list(values)  # printed key order
        for v in report[metric].values():
            assert type(v) is float
    meta = report["meta"]
    assert list(meta)[:4] == list(README_META)
    assert {k: meta[k] for k in README_META} == README_META
    json.dumps(report)  # plain, JSON-serialisable


def test_readme_first_example_matches_reference():
    out = reference.evaluate([[[0, 10]]], [[[2, 8]]])
    assert out == README_REPORT


BATCH_REFS = [[[0, 10]], [[4, 7]]]
BATCH_PREDS = [[[2, 8]], [[4, 7]]]

# Example 0: ref [0,10), pred [2,8): 6 shared characters out of 10.
EX0 = {
    "exact_span": {"precision": 0.0, "recall": 0.0, "f1": 0.0},
    "iou": {"score": 0.6},
    "character": {"precision": 1.0, "recall": 0.6, "f1": 0.75},
    "deteval_1d": {"precision": 0.0, "recall": 0.0, "f1": 0.0},  # R = 0.6 < 0.8
    "cleval_1d": {"precision": 1.0, "recall": 0.6, "f1": 0.75},
    "span_coverage": {"precision": 1.0, "recall": 1.0, "f1": 1.0},
}
# Example 1: [4,7) against itself: perfect everywhere.
EX1 = {
    m: ({"score": 1.0} if m == "iou" else {"precision": 1.0, "recall": 1.0, "f1": 1.0})
    for m in EX0
}
# Macro: mean of the two per-example values.
BATCH_MACRO = {
    "exact_span": {"precision": 0.5, "recall": 0.5, "f1": 0.5},
    "iou": {"score": 0.8},
    "character": {"precision": 1.0, "recall": 0.8, "f1": 0.875},
    "deteval_1d": {"precision": 0.5, "recall": 0.5, "f1": 0.5},
    "cleval_1d": {"precision": 1.0, "recall": 0.8, "f1": 0.875},
    "span_coverage": {"precision": 1.0, "recall": 1.0, "f1": 1.0},
}


def test_readme_batch_example_per_example():
    report = mycelium.evaluate(
        references=BATCH_REFS,
        predictions=BATCH_PREDS,
        include_per_example=True,
    )
    assert report["per_example"] == [EX0, EX1]
    assert {k: v for k, v in report.items() if k not in ("meta", "per_example")} == BATCH_MACRO
    assert report["meta"]["examples"] == 2
    assert report["meta"]["average"] == "macro"
    assert report["meta"]["profile"] is None
    json.dumps(report)


def test_readme_batch_example_reference():
    stats = reference.batch_statistics(BATCH_REFS, BATCH_PREDS)
    assert reference.per_example(stats) == [EX0, EX1]
    assert reference.aggregate(stats) == BATCH_MACRO


# RAGTruth profile: micro. Character TP = 6 + 3 = 9, FP = 0, FN = 4 + 0 = 4.
BATCH_MICRO = {
    "exact_span": {"precision": 0.5, "recall": 0.5, "f1": 0.5},  # tp 1 of 2 and 2
    "iou": {"score": 9 / 13},  # (6 + 3) / (10 + 3)
    "character": {"precision": 1.0, "recall": 9 / 13, "f1": 9 / 11},  # 2*9*9/(9*13+9*9)
    "deteval_1d": {"precision": 0.5, "recall": 0.5, "f1": 0.5},
    "cleval_1d": {"precision": 1.0, "recall": 9 / 13, "f1": 9 / 11},
    "span_coverage": {"precision": 1.0, "recall": 1.0, "f1": 1.0},
}


def test_readme_ragtruth_profile():
    report = mycelium.evaluate(
        references=BATCH_REFS,
        predictions=BATCH_PREDS,
        profile="ragtruth",
    )
    assert report["character"] == BATCH_MICRO["character"]
    for metric, values in BATCH_MICRO.items():
        if metric in report:
            assert report[metric] == values, metric
    assert report["meta"]["average"] == "micro"
    assert report["meta"]["profile"] == "ragtruth"
    assert report["meta"]["examples"] == 2


def test_ragtruth_profile_reference():
    out = reference.evaluate(BATCH_REFS, BATCH_PREDS, average="micro")
    assert out == BATCH_MICRO


def test_explicit_average_wins_over_profile():
    report = mycelium.evaluate(BATCH_REFS, BATCH_PREDS, profile="ragtruth", average="macro",
                               metrics=["character"])
    assert report["character"] == BATCH_MACRO["character"]
    assert report["meta"]["average"] == "macro"


def test_readme_span_coverage_example():
    report = mycelium.evaluate(
        references=[[0, 11]],
        predictions=[[2, 9]],
        metrics=["span_coverage"],
    )
    assert report["span_coverage"]["f1"] == 1.0
    assert report["span_coverage"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    assert set(report) == {"span_coverage", "meta"}


def test_span_coverage_containment_is_directional():
    # A prediction extending beyond the reference is not contained.
    report = mycelium.evaluate([[2, 9]], [[0, 11]], metrics=["span_coverage"])
    assert report["span_coverage"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    # One contained prediction of two; one covered reference of two.
    report = mycelium.evaluate([[0, 5], [10, 20]], [[1, 3], [4, 12]],
                               metrics=["span_coverage"])
    assert report["span_coverage"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5}


# --------------------------------------------------------------------------------------
# Zero-division cases, by hand (SPEC section 3)
# --------------------------------------------------------------------------------------


def test_zero_division_hand_cases():
    # example 0: refs only (P = 0/0, R = 0); example 1: both empty; example 2: preds only.
    refs = [[[0, 5]], [], []]
    preds = [[], [], [[3, 6]]]
    z0 = mycelium.evaluate(refs, preds, metrics=["character", "iou"], zero_division=0.0,
                           include_per_example=True)
    assert [e["character"] for e in z0["per_example"]] == [
        {"precision": 0.0, "recall": 0.0, "f1": 0.0},
        {"precision": 0.0, "recall": 0.0, "f1": 0.0},
        {"precision": 0.0, "recall": 0.0, "f1": 0.0},
    ]
    assert [e["iou"]["score"] for e in z0["per_example"]] == [0.0, 1.0, 0.0]
    assert z0["iou"]["score"] == pytest.approx(1 / 3, abs=1e-15)
    z1 = mycelium.evaluate(refs, preds, metrics=["character"], zero_division=1.0,
                           include_per_example=True)
    assert [e["character"] for e in z1["per_example"]] == [
        {"precision": 1.0, "recall": 0.0, "f1": 0.0},
        {"precision": 1.0, "recall": 1.0, "f1": 1.0},
        {"precision": 0.0, "recall": 1.0, "f1": 0.0},
    ]
    assert z1["character"] == {"precision": 2 / 3, "recall": 2 / 3, "f1": 1 / 3}
    zn = mycelium.evaluate(refs, preds, metrics=["character"], zero_division="nan")
    # precision defined only for example 2 (0.0), recall only for example 0 (0.0)
    assert zn["character"]["precision"] == 0.0
    assert zn["character"]["recall"] == 0.0
    # micro: TP 0, FP 3, FN 5 -> 0 / 0 / 0 whatever zero_division says
    for zd in (0.0, 1.0, "nan"):
        mi = mycelium.evaluate(refs, preds, metrics=["character"], average="micro",
                               zero_division=zd)
        assert mi["character"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


def test_iou_micro_all_empty_is_one():
    for avg in ("macro", "micro"):
        report = mycelium.evaluate([[], []], [[], []], metrics=["iou"], average=avg)
        assert report["iou"]["score"] == 1.0


def test_cleval_penalty_is_clipped_per_example():
    # ref [0,3) against all six distinct sub-spans: every pair is A-true, M2 matches all.
    # tp_chars = 3, n_gran_recall = 5 -> recall_num = max(0, 3 - 5) = 0;
    # det_chars = 1+2+3+1+2+1 = 10, precision_num = 3.
    sub = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    refs = [[[0, 3]], [[0, 10]]]
    preds = [sub, [[0, 10]]]
    expected = {"recall_num": [0, 10], "gt_chars": [3, 10], "precision_num": [3, 10],
                "det_chars": [10, 10], "tp_chars": [3, 10], "n_gran_recall": [5, 0],
                "n_gran_precision": [0, 0], "matched_det_chars": [10, 10],
                "fp_chars": [0, 0], "n_split_refs": [1, 0], "n_merge_preds": [0, 0]}
    assert reference.batch_statistics(refs, preds, metrics=("cleval_1d",)) == {
        "cleval_1d": expected}
    core = mycelium.statistics(refs, preds, metrics=["cleval_1d"])["cleval_1d"]
    assert {k: v.tolist() for k, v in core.items()} == expected
    # micro sums the per-example clipped numerators (CLEval 2020 GlobalResult)
    micro = mycelium.evaluate(refs, preds, metrics=["cleval_1d"], average="micro")
    assert micro["cleval_1d"]["recall"] == 10 / 13
    assert micro["cleval_1d"]["precision"] == 13 / 20
    macro = mycelium.evaluate(refs, preds, metrics=["cleval_1d"], include_per_example=True)
    assert macro["per_example"][0]["cleval_1d"] == {"precision": 0.3, "recall": 0.0,
                                                    "f1": 0.0}


def test_explicit_zero_division_wins_over_profile():
    # refs only / both empty: character P is 0/0 in both examples, and the micro sums.
    refs, preds = [[[0, 5]], []], [[], []]
    for profile in ("ragtruth", "mu_shroom", None):
        rep = mycelium.evaluate(refs, preds, profile=profile, zero_division=1.0,
                                metrics=["character"])
        assert rep["character"]["precision"] == 1.0
        assert rep["meta"]["zero_division"] == 1.0
        rep = mycelium.evaluate(refs, preds, profile=profile, metrics=["character"])
        assert rep["character"]["precision"] == 0.0  # both profiles' value is 0.0
    custom = mycelium.Profile(name="lenient", version=1, average="micro", zero_division=1.0)
    rep = mycelium.evaluate(refs, preds, profile=custom, metrics=["character"])
    assert rep["character"] == {"precision": 1.0, "recall": 0.0, "f1": 0.0}
    assert rep["meta"]["average"] == "micro" and rep["meta"]["profile"] == "lenient"
    rep = mycelium.evaluate(refs, preds, profile=custom, zero_division=0.0,
                            average="macro", metrics=["character"])
    assert rep["character"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


def test_per_example_only_on_request():
    rep = mycelium.evaluate(BATCH_REFS, BATCH_PREDS)
    assert "per_example" not in rep


def test_reference_renders_every_metric_module():
    # Each metric's definition is its module docstring; the API reference page of the
    # metrics (docs/reference/metrics.md, rendered by mkdocstrings) must name its module.
    path = pathlib.Path(__file__).resolve().parents[2] / "docs" / "reference" / "metrics.md"
    rendered = set(re.findall(r"^::: (mycelium\.metrics\.\w+)$", path.read_text(encoding="utf-8"),
                              re.M))
    names = [*mycelium.METRICS, "soft_spearman"]
    assert [n for n in names if f"mycelium.metrics.{n}" not in rendered] == []
    for n in names:
        doc = importlib.import_module(f"mycelium.metrics.{n}").__doc__
        assert "Examples\n--------\n" in doc and ">>> mycelium.evaluate(" in doc, n
