"""The FULL oracle files, checked the same way as the committed golden selections.

The golden tests (test_golden_*.py) read the compact selections in tests/golden/*.json;
these tests read the complete oracle case files from the folder named by the
environment variable ``MYCELIUM_ORACLE_DIR`` (CI points it at the shared oracle folder)
and are skipped, with that reason, when it is unset or lacks the files. The cases are
turned into the golden form by build_golden.py's own builders and checked by the same
functions (_oracle.py): every detection case, every RAGTruth case, every valid
Mu-SHROOM case (IoU per example within 1e-9, mean within 4 ulps, printed IoU line
exact).

On top of that, Mu-SHROOM ``soft_spearman`` on the real texts: per-example Cor within
1e-9 and the whole printed text "IoU: %.8f\\nCor: %.8f\\n" identical. Cases that cannot
be compared are not skipped silently: each is classified (``EXPECTED_SKIPS``) and a
test asserts that exactly those cases, and so exactly those counts, are left out.
"""

import json
import math
import os
from collections import Counter

import pytest

import _oracle
import build_golden
import mycelium

ENV = "MYCELIUM_ORACLE_DIR"
FILES = ("detection_cases.json", "ragtruth_cases.json", "mushroom_cases.json")


def _locate():
    """(oracle folder, None) or (None, reason to skip)."""
    value = os.environ.get(ENV, "")
    if not value:
        return None, ("%s is not set: set it to the folder with the full oracle files "
                      "(%s) to run these tests" % (ENV, ", ".join(FILES)))
    missing = [name for name in FILES if not os.path.isfile(os.path.join(value, name))]
    if missing:
        return None, "%s=%r does not contain %s" % (ENV, value, ", ".join(missing))
    return os.path.abspath(value), None


ORACLE_DIR, SKIP_REASON = _locate()
pytestmark = pytest.mark.skipif(ORACLE_DIR is None, reason=SKIP_REASON or "")

# Mu-SHROOM cases that cannot be compared, by case_id, with the reason class:
#   error     - expected.status == "error": the scorer produced no numbers
#               (edge_missing_pred_id: an unpaired id; edge_pred_hard_oob_hard_only:
#               IndexError on a hard span past the text).
#   invalid   - a span outside the text / reversed, or a prob outside [0, 1]:
#               mycelium rejects the input (checked by test_mushroom_invalid_*).
#   raw_lines - the scorer read raw file lines whose floats pandas parses imprecisely
#               (precise_float=False); mycelium deliberately does not reproduce that,
#               so Cor is not compared (IoU, on integer spans, still is).
# The IoU checks leave out "error" and "invalid"; the soft_spearman check all three.
# A case classified otherwise, or not at all, fails test_mushroom_skipped_cases.
EXPECTED_SKIPS = {
    "edge_missing_pred_id": "error",
    "edge_pred_hard_oob_hard_only": "error",
    "edge_pred_hard_oob_both_fields": "invalid",
    "edge_soft_only_reversed_span_after_adjacent": "invalid",
    "edge_float_parse_tie": "raw_lines",
}
IOU_SKIP_CLASSES = ("error", "invalid")


def _load_json(name):
    with open(os.path.join(ORACLE_DIR, name), "rb") as fh:
        return json.loads(fh.read().decode("utf-8"))


if ORACLE_DIR is not None:
    DETECTION = build_golden.build_detection(ORACLE_DIR)
    RAGTRUTH = build_golden.build_ragtruth(ORACLE_DIR)
    MUSHROOM_SRC = _load_json("mushroom_cases.json")
    MUSHROOM_CASES, MUSHROOM_SKIPPED, MUSHROOM_INVALID_HARD = \
        build_golden.select_mushroom(MUSHROOM_SRC)
    MUSHROOM_REF_SETS = build_golden.ref_set_table(MUSHROOM_SRC["ref_sets"],
                                                   MUSHROOM_SRC["ref_sets"])
    MUSHROOM_RAW = MUSHROOM_SRC["cases"]
else:
    DETECTION = {"cases": [], "zero_length_cases": []}
    RAGTRUTH = {"cases": []}
    MUSHROOM_SRC = {"cases": [], "ref_sets": {}}
    MUSHROOM_CASES, MUSHROOM_SKIPPED, MUSHROOM_INVALID_HARD = [], [], []
    MUSHROOM_REF_SETS = {}
    MUSHROOM_RAW = []


# --------------------------------------------------------------------------- detection

DET_CASES = [c for c in DETECTION["cases"] if not c["has_duplicate_spans"]]
DET_DUPLICATES = [c for c in DETECTION["cases"] if c["has_duplicate_spans"]]
DET_ZERO_LENGTH = DETECTION["zero_length_cases"]


def _det_ids(cases):
    return [c["id"] for c in cases]


@pytest.mark.parametrize("case", DET_CASES, ids=_det_ids(DET_CASES))
def test_detection(case):
    _oracle.check_deteval_1d_statistics(case)
    _oracle.check_cleval_1d_statistics(case)
    _oracle.check_detection_measures(case)
    _oracle.check_deteval_1d_merge_credit_1(case)


@pytest.mark.parametrize("case", DET_DUPLICATES, ids=_det_ids(DET_DUPLICATES))
def test_detection_duplicate_spans_collapse(case):
    _oracle.check_duplicate_spans_collapse(case)


@pytest.mark.parametrize("case", DET_ZERO_LENGTH, ids=_det_ids(DET_ZERO_LENGTH))
def test_detection_zero_length_spans_are_dropped(case):
    _oracle.check_zero_length_spans_are_dropped(case)


# --------------------------------------------------------------------------- ragtruth

RT_IN_BOUNDS = [c for c in RAGTRUTH["cases"] if not c["out_of_bounds"]]
RT_OUT_OF_BOUNDS = [c for c in RAGTRUTH["cases"] if c["out_of_bounds"]]
RT_TASKS = _oracle.ragtruth_task_cases(RAGTRUTH["cases"])


def _rt_ids(cases):
    return [c["name"] for c in cases]


@pytest.mark.parametrize("case", RT_IN_BOUNDS, ids=_rt_ids(RT_IN_BOUNDS))
def test_ragtruth(case):
    _oracle.check_ragtruth_character(case)


@pytest.mark.parametrize("case, task", RT_TASKS,
                         ids=["%s[%s]" % (c["name"], t) for c, t in RT_TASKS])
def test_ragtruth_per_task(case, task):
    _oracle.check_ragtruth_character_per_task(case, task)


@pytest.mark.parametrize("case", RT_OUT_OF_BOUNDS, ids=_rt_ids(RT_OUT_OF_BOUNDS))
def test_ragtruth_out_of_bounds(case):
    _oracle.check_ragtruth_out_of_bounds_rejected(case)
    _oracle.check_ragtruth_out_of_bounds_without_text(case)


RT_LETTUCE = [c for c in (_load_json("ragtruth_cases.json")["cases"] if ORACLE_DIR else [])
              if "lettucedetect_char_level" in c["oracles"]]


@pytest.mark.parametrize("case", RT_LETTUCE, ids=_rt_ids(RT_LETTUCE))
def test_ragtruth_cases_under_the_lettucedetect_profile(case):
    """The oracle's LettuceDetect evaluate_detector_char_level values (pairwise sums, no
    merging): the ``lettucedetect`` profile, with the texts (without them past the text,
    where the evaluator counts the phantom characters too)."""
    responses = case["responses"]
    texts = None if case["out_of_bounds"] else [r["text"] for r in responses]
    report = mycelium.evaluate([r["gold"] for r in responses], [r["pred"] for r in responses],
                               text=texts, profile="lettucedetect")
    want = case["oracles"]["lettucedetect_char_level"]
    got = report["character"]
    assert (got["precision"], got["recall"]) == (want["precision"], want["recall"])
    assert got["f1"] == pytest.approx(want["f1"], abs=_oracle.RAGTRUTH_TOL)


# --------------------------------------------------------------------------- mu-shroom

def derive_hard_labels(soft_labels):
    """The official scorer's hard labels for a prediction given only soft labels.

    Spans with prob > 0.5 (strictly), sorted by (start, end); a span starting exactly at
    the previous kept span's end extends it (its end is overwritten, as the scorer does).
    """
    kept = sorted((s["start"], s["end"]) for s in soft_labels if s["prob"] > 0.5)
    out = []
    for start, end in kept:
        if out and start == out[-1][1]:
            out[-1][1] = end
        else:
            out.append([start, end])
    return out


def _has_raw_lines(case):
    return "raw_lines" in case["ref"] or "raw_lines" in case["pred"]


def _full_inputs(case):
    """Per example, in the scorer's order: id, text, hard and soft labels of both sides.

    A prediction without hard_labels gets the hard labels the scorer derived
    (expected.derived_pred_labels, or derive_hard_labels when the case has no expected
    numbers); one without soft_labels gets prob 1.0 on its hard spans.
    """
    _, refs, preds = build_golden._mushroom_sides(case, MUSHROOM_SRC["ref_sets"])
    exp = case["expected"]
    derived = {str(r["id"]): r for r in exp.get("derived_pred_labels", [])}
    if exp["status"] == "ok":
        by_str = {str(k): k for k in refs}
        assert len(by_str) == len(refs)
        order = [by_str[str(row["id"])] for row in exp["per_example"]]
    else:
        order = sorted(refs)
    rows = []
    for rid in order:
        ref, pred = refs[rid], preds[rid]
        if "hard_labels" in case["pred_fields"]:
            pred_hard = pred["hard_labels"]
        elif str(rid) in derived:
            pred_hard = derived[str(rid)]["hard_labels"]
        else:
            pred_hard = derive_hard_labels(pred["soft_labels"])
        if "soft_labels" in case["pred_fields"]:
            pred_soft = pred["soft_labels"]
        else:
            pred_soft = [{"start": s, "end": e, "prob": 1.0} for s, e in pred_hard]
        rows.append({"id": rid, "text": ref["model_output_text"],
                     "ref_hard": ref["hard_labels"], "ref_soft": ref["soft_labels"],
                     "pred_hard": pred_hard, "pred_soft": pred_soft,
                     "pred_record": pred, "derived": derived.get(str(rid))})
    return rows


def _span_problem(case):
    """A description of the first invalid span of a case (given or derived), else None."""
    _, refs, preds = build_golden._mushroom_sides(case, MUSHROOM_SRC["ref_sets"])
    if set(refs) != set(preds):
        return None
    for row in _full_inputs(case):
        n = len(row["text"])
        problem = (build_golden._record_problem({"hard_labels": row["ref_hard"],
                                                 "soft_labels": row["ref_soft"]}, n)
                   or build_golden._record_problem({"hard_labels": row["pred_hard"],
                                                    "soft_labels": row["pred_soft"]}, n))
        if problem:
            return "%s: %s" % (row["id"], problem)
    return None


def _skip_class(case):
    """Why a Mu-SHROOM case is not compared on Cor ("error", "raw_lines", "invalid"), or None."""
    if case["expected"]["status"] != "ok":
        return "error"
    if _has_raw_lines(case):
        return "raw_lines"
    if _span_problem(case) is not None:
        return "invalid"
    return None


MUSHROOM_CLASSES = {c["case_id"]: _skip_class(c) for c in MUSHROOM_RAW}
MUSHROOM_SOFT_CASES = [c for c in MUSHROOM_RAW if MUSHROOM_CLASSES[c["case_id"]] is None]
MUSHROOM_REJECTED = [c for c in MUSHROOM_RAW if _span_problem(c) is not None]


def _mu_ids(cases):
    return [c["case_id"] for c in cases]


def test_mushroom_skipped_cases():
    """Exactly the cases of EXPECTED_SKIPS are left out, each for its stated reason."""
    present = set(MUSHROOM_CLASSES)
    got = {cid: cls for cid, cls in MUSHROOM_CLASSES.items() if cls is not None}
    want = {cid: cls for cid, cls in EXPECTED_SKIPS.items() if cid in present}
    assert got == want, (
        "Mu-SHROOM cases left out differ from EXPECTED_SKIPS: unexpected %r, not left out "
        "%r" % ({k: v for k, v in got.items() if want.get(k) != v},
                {k: v for k, v in want.items() if got.get(k) != v}))
    counts = Counter(got.values())
    assert counts == Counter(want.values())
    if present >= set(EXPECTED_SKIPS):  # the public collection (or a superset)
        assert counts == Counter({"error": 2, "invalid": 2, "raw_lines": 1}), counts
    # The IoU selection (build_golden.select_mushroom) leaves out exactly the error and
    # invalid cases; the soft_spearman check additionally the raw_lines ones.
    iou_skipped = {s["case_id"] for s in MUSHROOM_SKIPPED}
    assert iou_skipped == {cid for cid, cls in got.items() if cls in IOU_SKIP_CLASSES}
    assert len(MUSHROOM_CASES) == len(MUSHROOM_RAW) - len(iou_skipped)
    assert len(MUSHROOM_SOFT_CASES) == len(MUSHROOM_RAW) - len(got)


@pytest.mark.parametrize("case", MUSHROOM_CASES, ids=_mu_ids(MUSHROOM_CASES))
def test_mushroom_iou(case):
    # Per-example IoU within 1e-9; mean within 4 ulps (mycelium's exact mean vs the
    # scorer's numpy mean); printed "IoU: %.8f" line exact.
    _oracle.check_mushroom_iou(case, MUSHROOM_REF_SETS)


def _cor_close(got, expected, what):
    if expected == "NaN":
        assert math.isnan(got), "%s: expected NaN, got %r" % (what, got)
    else:
        _oracle.close(got, expected, what, _oracle.MUSHROOM_PER_EXAMPLE_TOL)


@pytest.mark.parametrize("case", MUSHROOM_SOFT_CASES, ids=_mu_ids(MUSHROOM_SOFT_CASES))
def test_mushroom_iou_and_soft_spearman(case):
    rows = _full_inputs(case)
    exp = case["expected"]
    # The labels the scorer derived for a prediction missing one field agree with ours.
    for row in rows:
        if row["derived"] is None:
            continue
        if "hard_labels" not in case["pred_fields"]:
            assert derive_hard_labels(row["pred_record"]["soft_labels"]) == row["pred_hard"], (
                "example %s: derived hard labels %r, oracle %r"
                % (row["id"], derive_hard_labels(row["pred_record"]["soft_labels"]),
                   row["pred_hard"]))
        else:
            assert row["derived"]["soft_labels"] == row["pred_soft"], row["id"]
    report = mycelium.evaluate(
        [r["ref_hard"] for r in rows], [r["pred_hard"] for r in rows],
        text=[r["text"] for r in rows], profile="mu_shroom",
        metrics=["iou", "soft_spearman"],
        soft_references=[r["ref_soft"] for r in rows],
        soft_predictions=[r["pred_soft"] for r in rows],
        include_per_example=True)
    per_example = report["per_example"]
    assert len(per_example) == len(rows) == len(exp["per_example"])
    for row, want, got in zip(rows, exp["per_example"], per_example):
        assert str(want["id"]) == str(row["id"])
        _oracle.close(got["iou"]["score"], want["iou"], "example %s iou" % row["id"],
                      _oracle.MUSHROOM_PER_EXAMPLE_TOL)
        _cor_close(got["soft_spearman"]["score"], want["cor"], "example %s cor" % row["id"])
    _oracle.assert_official_mean(report["iou"]["score"], exp["iou_mean"], "iou mean")
    printed = "IoU: %.8f\nCor: %.8f\n" % (report["iou"]["score"],
                                          report["soft_spearman"]["score"])
    assert printed == exp["printed"], "printed: expected %r, got %r" % (exp["printed"], printed)


@pytest.mark.parametrize("case", MUSHROOM_INVALID_HARD, ids=_mu_ids(MUSHROOM_INVALID_HARD))
def test_mushroom_invalid_hard_spans_are_rejected(case):
    _oracle.check_mushroom_invalid_hard_rejected(case)


@pytest.mark.parametrize("case", MUSHROOM_REJECTED, ids=_mu_ids(MUSHROOM_REJECTED))
def test_mushroom_invalid_spans_are_rejected_with_soft_labels(case):
    """Any invalid span (hard or soft, either side) is rejected (SPEC.md section 6)."""
    rows = _full_inputs(case)
    with pytest.raises(mycelium.SpanValidationError):
        mycelium.evaluate(
            [r["ref_hard"] for r in rows], [r["pred_hard"] for r in rows],
            text=[r["text"] for r in rows], profile="mu_shroom",
            metrics=["iou", "soft_spearman"],
            soft_references=[r["ref_soft"] for r in rows],
            soft_predictions=[r["pred_soft"] for r in rows])
