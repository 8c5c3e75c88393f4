"""Checks shared by the golden tests (test_golden_*.py) and the full-oracle tests.

The golden tests run these on the compact selections in tests/golden/*.json; the
full-oracle tests (test_full_oracle.py) run the very same functions on cases built
from the full oracle files by build_golden.py's builders, so both are checked the
same way. Every function takes one case in the compact form build_golden.py writes.
"""

import math

import pytest

import mycelium

# --------------------------------------------------------------------------- detection

SPLIT_MERGE_CREDIT = 0.8  # SPEC.md section 4 default k
DETECTION_TOL = 1e-12
DETEVAL_COUNTS = ("n_ref", "n_pred", "n_one_to_one", "n_split_refs", "n_split_preds",
                  "n_merge_refs", "n_merge_preds")
CLEVAL_COUNTS = ("gt_chars", "det_chars", "matched_det_chars", "fp_chars", "tp_chars",
                 "n_gran_recall", "n_gran_precision", "n_split_refs", "n_merge_preds")
CLEVAL_FLOATS = ("recall_num", "precision_num")
DETECTION_METRICS = ["deteval_1d", "cleval_1d"]


def close(got, expected, what, tol):
    assert math.isclose(got, expected, rel_tol=0.0, abs_tol=tol), (
        "%s: expected %r, got %r" % (what, expected, got))


def _text(case):
    return ["x" * case["text_len"]]


def _stats(refs, preds, text, params=None):
    """Per-example statistics of a one-example batch, as plain Python scalars."""
    out = mycelium.statistics([refs], [preds], text=text, metrics=DETECTION_METRICS,
                              params=params)
    return {metric: {name: values[0].item() for name, values in stats.items()}
            for metric, stats in out.items()}


def _credits(stats, merge_credit):
    recall = (stats["n_one_to_one"] + SPLIT_MERGE_CREDIT * stats["n_split_refs"]
              + merge_credit * stats["n_merge_refs"])
    precision = (stats["n_one_to_one"] + SPLIT_MERGE_CREDIT * stats["n_split_preds"]
                 + merge_credit * stats["n_merge_preds"])
    return recall, precision


def _check_measures(got, expected, pred_denominator, ref_denominator, what):
    """Compare P/R/F1 only where the oracle's and mycelium's conventions agree."""
    if pred_denominator > 0:
        close(got["precision"], expected["precision"], what + " precision", DETECTION_TOL)
    if ref_denominator > 0:
        close(got["recall"], expected["recall"], what + " recall", DETECTION_TOL)
    if pred_denominator > 0 and ref_denominator > 0:
        close(got["f1"], expected["f1"], what + " f1", DETECTION_TOL)


def _dedup(spans):
    return [list(s) for s in sorted({tuple(s) for s in spans})]


def check_deteval_1d_statistics(case):
    got = _stats(case["refs"], case["preds"], _text(case))["deteval_1d"]
    expected = case["deteval_1d"]["statistics"]
    for name in DETEVAL_COUNTS:
        assert got[name] == expected[name], (
            "deteval_1d %s: expected %r, got %r" % (name, expected[name], got[name]))
    recall_credit, precision_credit = _credits(got, SPLIT_MERGE_CREDIT)
    close(recall_credit, expected["recall_credit"], "deteval_1d recall_credit", DETECTION_TOL)
    close(precision_credit, expected["precision_credit"], "deteval_1d precision_credit",
          DETECTION_TOL)


def check_cleval_1d_statistics(case):
    got = _stats(case["refs"], case["preds"], _text(case))["cleval_1d"]
    expected = case["cleval_1d"]["statistics"]
    for name in CLEVAL_COUNTS:
        assert got[name] == expected[name], (
            "cleval_1d %s: expected %r, got %r" % (name, expected[name], got[name]))
    for name in CLEVAL_FLOATS:
        close(got[name], expected[name], "cleval_1d " + name, DETECTION_TOL)


def check_detection_measures(case):
    report = mycelium.evaluate([case["refs"]], [case["preds"]], text=_text(case),
                               metrics=DETECTION_METRICS)
    det = case["deteval_1d"]
    _check_measures(report["deteval_1d"], det["measures"], det["statistics"]["n_pred"],
                    det["statistics"]["n_ref"], "deteval_1d")
    cle = case["cleval_1d"]
    _check_measures(report["cleval_1d"], cle["measures"], cle["statistics"]["det_chars"],
                    cle["statistics"]["gt_chars"], "cleval_1d")


def check_deteval_1d_merge_credit_1(case):
    params = {"deteval_1d": {"merge_credit": 1.0}}
    expected = case["deteval_1d_merge_credit_1"]
    stats = _stats(case["refs"], case["preds"], _text(case), params=params)["deteval_1d"]
    recall_credit, precision_credit = _credits(stats, 1.0)
    close(recall_credit, expected["recall_credit"], "merge_credit=1 recall_credit",
          DETECTION_TOL)
    close(precision_credit, expected["precision_credit"], "merge_credit=1 precision_credit",
          DETECTION_TOL)
    report = mycelium.evaluate([case["refs"]], [case["preds"]], text=_text(case),
                               metrics=["deteval_1d"], params=params)
    counts = case["deteval_1d"]["statistics"]
    _check_measures(report["deteval_1d"], expected, counts["n_pred"], counts["n_ref"],
                    "deteval_1d merge_credit=1")


def check_duplicate_spans_collapse(case):
    """A side is a set (SPEC.md section 2): scoring equals scoring without the duplicates.

    The oracle keeps duplicates as separate objects, so its numbers do not apply here.
    """
    refs, preds = _dedup(case["refs"]), _dedup(case["preds"])
    assert (len(refs), len(preds)) != (len(case["refs"]), len(case["preds"]))
    assert _stats(case["refs"], case["preds"], _text(case)) == _stats(refs, preds, _text(case))
    got = mycelium.evaluate([case["refs"]], [case["preds"]], text=_text(case),
                            metrics=DETECTION_METRICS)
    want = mycelium.evaluate([refs], [preds], text=_text(case), metrics=DETECTION_METRICS)
    for metric in DETECTION_METRICS:
        assert got[metric] == want[metric], metric


def check_zero_length_spans_are_dropped(case):
    got = _stats(case["refs"], case["preds"], _text(case))
    expected = case["expected_after_dropping_zero_length"]
    det = expected["deteval_1d"]
    for name in ("n_ref", "n_pred"):
        assert got["deteval_1d"][name] == det[name], name
    recall_credit, precision_credit = _credits(got["deteval_1d"], SPLIT_MERGE_CREDIT)
    close(recall_credit, det["recall_credit"], "deteval_1d recall_credit", DETECTION_TOL)
    close(precision_credit, det["precision_credit"], "deteval_1d precision_credit",
          DETECTION_TOL)
    cle = expected["cleval_1d"]
    for name in ("gt_chars", "det_chars", "tp_chars"):
        assert got["cleval_1d"][name] == cle[name], name
    for name in CLEVAL_FLOATS:
        close(got["cleval_1d"][name], cle[name], "cleval_1d " + name, DETECTION_TOL)
    # And identical to scoring the spans with the zero-length ones removed by hand.
    refs = [s for s in case["refs"] if s[0] != s[1]]
    preds = [s for s in case["preds"] if s[0] != s[1]]
    assert got == _stats(refs, preds, _text(case))


# --------------------------------------------------------------------------- ragtruth

RAGTRUTH_TOL = 1e-12  # the oracle's 2PR/(P+R) and mycelium's 2TP/(2TP+FP+FN) differ by an ulp


def ragtruth_task_cases(cases):
    """(case, task_type) pairs with a per-task oracle value, in-bounds cases only."""
    return [(c, task) for c in cases if not c["out_of_bounds"]
            for task in sorted(c["ragtruth_eval"].get("per_task_span_level", {}))]


def _batch(responses):
    return ([r["gold"] for r in responses], [r["pred"] for r in responses],
            [r["text"] for r in responses])


def _check_character(responses, expected_measures, expected_counts, text=True):
    refs, preds, texts = _batch(responses)
    texts = texts if text else None
    report = mycelium.evaluate(refs, preds, text=texts, profile="ragtruth",
                               metrics=["character"])
    for measure in ("precision", "recall", "f1"):
        close(report["character"][measure], expected_measures[measure], measure, RAGTRUTH_TOL)
    stats = mycelium.statistics(refs, preds, text=texts, metrics=["character"])["character"]
    got = {name: int(stats[name].sum()) for name in ("tp", "fp", "fn")}
    assert got == expected_counts


def check_ragtruth_character(case):
    expected = case["ragtruth_eval"]
    counts = {name: expected["totals"][name] for name in ("tp", "fp", "fn")}
    _check_character(case["responses"], expected, counts)


def check_ragtruth_character_per_task(case, task):
    expected = case["ragtruth_eval"]["per_task_span_level"][task]
    responses = [r for r in case["responses"] if r.get("task_type") == task]
    assert responses
    counts = {"tp": expected["tp"], "fp": expected["pred_len"] - expected["tp"],
              "fn": expected["gold_len"] - expected["tp"]}
    _check_character(responses, expected, counts)


def check_ragtruth_out_of_bounds_rejected(case):
    refs, preds, texts = _batch(case["responses"])
    with pytest.raises(mycelium.SpanValidationError):
        mycelium.evaluate(refs, preds, text=texts, profile="ragtruth", metrics=["character"])


def check_ragtruth_out_of_bounds_without_text(case):
    """Without a text there is no bound, and the masks are those the evaluator used."""
    expected = case["ragtruth_eval"]
    counts = {name: expected["totals"][name] for name in ("tp", "fp", "fn")}
    _check_character(case["responses"], expected, counts, text=False)


# --------------------------------------------------------------------------- mu-shroom

MUSHROOM_PER_EXAMPLE_TOL = 1e-9  # the oracle schema's advice for per-example floats


def assert_official_mean(got, expected, what, ulps=4):
    """``got`` within ``ulps`` units in the last place of the official mean ``expected``.

    mycelium's macro mean is the correctly rounded exact mean (order-independent, so
    every face and engine agrees); the official scorer's numpy mean rounds along the way
    and can differ in the last bit or two. That never reaches the printed 8 decimals,
    which callers compare exactly. The oracle's "NaN" string requires a NaN.
    """
    if expected == "NaN" or (isinstance(expected, float) and math.isnan(expected)):
        assert math.isnan(got), "%s: expected NaN, got %r" % (what, got)
        return
    tol = ulps * math.ulp(expected)
    assert abs(got - expected) <= tol, (
        "%s: expected %r, got %r (differ by %r = %.3g ulps; allowed %d)"
        % (what, expected, got, got - expected,
           abs(got - expected) / math.ulp(expected), ulps))


def mushroom_iou_inputs(case, ref_sets):
    """References, predictions and placeholder texts, paired by id, in the scorer's order.

    Texts are not stored: only their length matters to IoU, so each example gets a
    placeholder string of that length. The examples are stored in the official scorer's
    order (records sorted by id).
    """
    refs_by_id = ref_sets[case["ref_set"]]["records"] if "ref_set" in case else case["refs"]
    ids = [example_id for example_id, _, _ in case["examples"]]
    assert len(set(ids)) == len(ids) and set(ids) == set(refs_by_id)
    refs = [refs_by_id[example_id][1] for example_id in ids]
    texts = ["x" * refs_by_id[example_id][0] for example_id in ids]
    preds = [pred for _, pred, _ in case["examples"]]
    return ids, refs, preds, texts


def check_mushroom_iou(case, ref_sets):
    """Per-example IoU within 1e-9, mean within 4 ulps, printed 'IoU: %.8f' line exact."""
    ids, refs, preds, texts = mushroom_iou_inputs(case, ref_sets)
    report = mycelium.evaluate(refs, preds, text=texts, profile="mu_shroom",
                               metrics=["iou"], include_per_example=True)
    per_example = report["per_example"]
    assert len(per_example) == len(ids)
    for (example_id, _, expected), got in zip(case["examples"], per_example):
        score = got["iou"]["score"]
        close(score, expected, "example %s iou" % example_id, MUSHROOM_PER_EXAMPLE_TOL)
    mean = report["iou"]["score"]
    # The exact mean vs numpy's: a few ulps at most (see assert_official_mean); the
    # printed line must be identical.
    assert_official_mean(mean, case["iou_mean"], "iou mean")
    printed_iou = case["printed"].splitlines()[0]
    assert "IoU: %.8f" % mean == printed_iou, (
        "printed: expected %r, got %r" % (printed_iou, "IoU: %.8f" % mean))


def check_mushroom_invalid_hard_rejected(case):
    """The bare scorer scores or crashes on these; mycelium rejects them (SPEC.md section 6)."""
    ids = [example_id for example_id, _ in case["examples"]]
    refs = [case["refs"][example_id][1] for example_id in ids]
    texts = ["x" * case["refs"][example_id][0] for example_id in ids]
    preds = [pred for _, pred in case["examples"]]
    with pytest.raises(mycelium.SpanValidationError):
        mycelium.evaluate(refs, preds, text=texts, profile="mu_shroom", metrics=["iou"])


def check_ragtruth_response_level(case, *, text=True):
    """The ragtruth profile's default report carries RAGTruth's case level, and its
    TP/FP/FN/TN are the evaluator's (a response with a listed zero-length span is
    positive there, as ``len(pred_list) > 0``)."""
    refs, preds, texts = _batch(case["responses"])
    expected = case["ragtruth_eval"]["case_level"]
    report = mycelium.evaluate(refs, preds, text=texts if text else None, profile="ragtruth")
    for measure in ("precision", "recall", "f1"):
        close(report["response_level"][measure], expected[measure], measure, RAGTRUTH_TOL)
    assert report["character"]["f1"] == pytest.approx(case["ragtruth_eval"]["f1"],
                                                      abs=RAGTRUTH_TOL)
    stats = mycelium.statistics(refs, preds, text=texts if text else None,
                                metrics=["response_level"],
                                params={"response_level": {"positive_min_length": 0}})
    got = {k: int(v.sum()) for k, v in stats["response_level"].items()}
    assert got == {k: expected[k] for k in ("tp", "fp", "fn", "tn")}
