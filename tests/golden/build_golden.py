"""Build the golden-test selections in tests/golden/*.json from the shared oracle files.

Reads the oracle case collections (data only: inputs and the numbers the reference
scorers produced) and keeps just what the golden tests need, with a ``provenance``
object per file. Standard library only; the tests read the JSON written here and
never the shared folder.

Usage (from the project root)::

    python tests/golden/build_golden.py [ORACLE_DIR]

``ORACLE_DIR`` defaults to ``../shared/oracle`` relative to the project root.
"""

import argparse
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT_ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_ORACLE = os.path.join("..", "shared", "oracle")

DETEVAL_STATS = ("n_ref", "n_pred", "n_one_to_one", "n_split_refs", "n_split_preds",
                 "n_merge_refs", "n_merge_preds", "recall_credit", "precision_credit")
CLEVAL_STATS = ("gt_chars", "det_chars", "matched_det_chars", "fp_chars", "tp_chars",
                "recall_num", "precision_num", "n_gran_recall", "n_gran_precision",
                "n_split_refs", "n_merge_preds")
MEASURES = ("precision", "recall", "f1")


# --------------------------------------------------------------------------- helpers

def _load(oracle_dir, name):
    path = os.path.join(oracle_dir, name)
    with open(path, "rb") as fh:
        raw = fh.read()
    return json.loads(raw.decode("utf-8")), {
        "source_file": os.path.relpath(os.path.abspath(path), PROJECT_ROOT).replace(os.sep, "/"),
        "source_sha256": hashlib.sha256(raw).hexdigest(),
        "source_bytes": len(raw),
    }


def _pick(mapping, keys):
    return {k: mapping[k] for k in keys if k in mapping}


def _dump(path, obj, list_keys):
    """Write ``obj`` as JSON: compact, but one element per line for the big lists."""
    parts = []
    for key, value in obj.items():
        head = json.dumps(key, ensure_ascii=False) + ": "
        if key in list_keys and isinstance(value, list):
            body = ",\n  ".join(json.dumps(v, ensure_ascii=False, separators=(",", ":"))
                                for v in value)
            parts.append(head + "[\n  " + body + "\n]")
        elif key in list_keys and isinstance(value, dict):
            body = ",\n  ".join(json.dumps(k, ensure_ascii=False) + ": "
                                + json.dumps(v, ensure_ascii=False, separators=(",", ":"))
                                for k, v in value.items())
            parts.append(head + "{\n  " + body + "\n}")
        else:
            parts.append(head + json.dumps(value, ensure_ascii=False, indent=1))
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("{\n" + ",\n".join(parts) + "\n}\n")
    return os.path.getsize(path)


# --------------------------------------------------------------------------- detection

def build_detection(oracle_dir):
    src, prov = _load(oracle_dir, "detection_cases.json")
    cases = []
    for case in src["cases"]:
        exp = case["spec_1d_expected"]
        cases.append({
            "id": case["id"],
            "text_len": case["text_len"],
            "refs": case["refs"],
            "preds": case["preds"],
            "has_duplicate_spans": case["has_duplicate_spans"],
            "deteval_1d": {"statistics": _pick(exp["deteval_1d"], DETEVAL_STATS),
                           "measures": _pick(exp["deteval_1d"], MEASURES)},
            "deteval_1d_merge_credit_1": _pick(
                exp["deteval_1d_merge_credit_1"],
                ("recall_credit", "precision_credit") + MEASURES),
            "cleval_1d": {"statistics": _pick(exp["cleval_1d"], CLEVAL_STATS),
                          "measures": _pick(exp["cleval_1d"], MEASURES)},
        })
    zero = [{"id": c["id"], "text_len": c["text_len"], "refs": c["refs"], "preds": c["preds"],
             "expected_after_dropping_zero_length": c["spec_1d_expected_after_dropping_zero_length"]}
            for c in src["zero_length_cases"]]
    dup = [c["id"] for c in cases if c["has_duplicate_spans"]]
    prov.update({
        "schema_summary": (
            "Half-open [start, end) refs/preds per case (sorted by (start, end)) with the 1D "
            "deteval_1d / cleval_1d values SPEC.md section 4 prescribes (spec_1d_expected), "
            "plus deteval_1d with merge credit 1.0. The oracle's precision/recall follow the "
            "original DetEval zero-denominator convention (R = 1 with no refs; P = 1 with no "
            "preds only if there are no refs either) and keep exact duplicate spans as "
            "separate objects; zero_length_cases give the values after dropping zero-length "
            "spans."),
        "selection": (
            "All %d cases: id, text_len, refs, preds, has_duplicate_spans; from spec_1d_expected "
            "the deteval_1d statistics %s and measures, the deteval_1d_merge_credit_1 credits "
            "and measures, the cleval_1d statistics %s and measures. All %d zero_length_cases "
            "with spec_1d_expected_after_dropping_zero_length. Dropped: reference_outputs (2D "
            "tools), wolf_deteval_transliteration, match lists."
            % (len(cases), list(DETEVAL_STATS), list(CLEVAL_STATS), len(zero))),
        "duplicate_span_cases": dup,
        "duplicate_span_note": ("These keep duplicates as separate objects in the oracle; "
                                "mycelium collapses them (a side is a set), so the tests "
                                "check them against scoring the de-duplicated spans instead."),
        "oracle_split_note": src.get("split_note"),
    })
    return {"provenance": prov, "cases": cases, "zero_length_cases": zero}


# --------------------------------------------------------------------------- ragtruth

def build_ragtruth(oracle_dir):
    src, prov = _load(oracle_dir, "ragtruth_cases.json")
    cases = []
    for case in src["cases"]:
        responses = []
        for r in case["responses"]:
            assert len(r["text"]) == r["text_len"], case["name"]
            if not case["out_of_bounds"]:
                assert all(0 <= s <= e <= r["text_len"] for s, e in r["gold"] + r["pred"])
            item = {"text": r["text"], "gold": r["gold"], "pred": r["pred"]}
            if "task_type" in r:
                item["task_type"] = r["task_type"]
            responses.append(item)
        oracle = case["oracles"]["ragtruth_eval"]
        expected = {"totals": _pick(oracle["totals"], ("tp", "fp", "fn", "pred_len", "gold_len"))}
        expected.update(_pick(oracle, MEASURES))
        if "per_task_span_level" in oracle:
            expected["per_task_span_level"] = oracle["per_task_span_level"]
        expected["case_level"] = _pick(oracle["case_level"], ("tp", "fp", "fn", "tn")
                                       + MEASURES)
        if case["out_of_bounds"]:
            assert any(e > len(r["text"]) for r in case["responses"]
                       for _, e in r["gold"] + r["pred"]), case["name"]
        cases.append({"name": case["name"], "group": case["group"],
                      "out_of_bounds": case["out_of_bounds"], "responses": responses,
                      "ragtruth_eval": expected})
    prov.update({
        "schema_summary": (
            "Batches of RAGTruth-style responses (text, half-open gold/pred character spans, "
            "optional task_type) scored by the unmodified RAGTruth evaluation code "
            "(CodingLL/RAGTruth_Eval compute_metrics.py): merged character masks per response, "
            "TP/FP/FN summed over the batch, P/R/F1 with 0/0 -> 0; per_task_span_level is the "
            "same restricted to one task_type. case_level is the evaluator's response level: "
            "TP/FP/FN/TN over responses, positive when the gold / pred list is non-empty "
            "(zero-length spans included). Out-of-bounds cases have spans past len(text), "
            "which the evaluator counts as phantom characters."),
        "selection": (
            "All %d cases: name, group, out_of_bounds, responses (text, gold, pred, task_type "
            "if any) and oracles.ragtruth_eval totals, precision, recall, f1 and "
            "per_task_span_level when present, case_level. Dropped: per_response, LettuceDetect "
            "oracles, notes." % len(cases)),
        "scorer": src["provenance"].get("ragtruth_eval"),
        "oracle_split_note": src.get("split_note"),
    })
    return {"provenance": prov, "cases": cases}


# --------------------------------------------------------------------------- mushroom

def _records(side):
    """The records the scorer read: ``raw_lines`` are authoritative when present."""
    if "raw_lines" in side:
        return [json.loads(line) for line in side["raw_lines"]]
    return side["records"]


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _span_problem(start, end, text_len):
    if not (_is_int(start) and _is_int(end)):
        return "non-integer offsets %r" % ([start, end],)
    if not 0 <= start <= end <= text_len:
        return "span %r outside 0 <= start <= end <= %d" % ([start, end], text_len)
    return None


def _record_problem(rec, text_len, derived_hard=None):
    hard = derived_hard if derived_hard is not None else rec.get("hard_labels", [])
    for span in hard:
        if not isinstance(span, list) or len(span) != 2:
            return "hard span of wrong shape %r" % (span,)
        problem = _span_problem(span[0], span[1], text_len)
        if problem:
            return "hard " + problem
    for span in rec.get("soft_labels", []):
        problem = _span_problem(span.get("start"), span.get("end"), text_len)
        if problem:
            return "soft " + problem
        prob = span.get("prob")
        if not isinstance(prob, (int, float)) or isinstance(prob, bool) or not 0 <= prob <= 1:
            return "soft prob %r outside [0, 1]" % (prob,)
    return None


def _ref_table(records):
    assert all(isinstance(r["id"], str) for r in records)  # JSON object keys are strings
    return {r["id"]: [len(r["model_output_text"]), r["hard_labels"]] for r in records}


def _mushroom_sides(case, ref_sets):
    if "ref_set" in case["ref"]:
        ref_records = ref_sets[case["ref"]["ref_set"]]["records"]
    else:
        ref_records = _records(case["ref"])
    refs = {r["id"]: r for r in ref_records}
    preds = {r["id"]: r for r in _records(case["pred"])}
    assert len(refs) == len(ref_records) and len(preds) == len(case["pred"]["records"])
    return ref_records, refs, preds


def _invalid_hard_selection(case, ref_sets):
    """Inputs of a case whose given (not derived) hard spans break the bounds, else None.

    mycelium must reject these when the text is given (SPEC.md section 6); the official
    scorer scored or crashed on them, so there are no expected numbers to keep.
    """
    ref_records, refs, preds = _mushroom_sides(case, ref_sets)
    bad = []
    for rid, rec in refs.items():
        n = len(rec["model_output_text"])
        for side, spans in (("reference", rec["hard_labels"]),
                            ("prediction", preds.get(rid, {}).get("hard_labels", []))):
            bad += ["%s %s: %s" % (side, rid, _span_problem(a, b, n))
                    for a, b in spans if _span_problem(a, b, n)]
    if not bad or set(refs) != set(preds):
        return None
    return {"case_id": case["case_id"], "problems": bad, "refs": _ref_table(ref_records),
            "examples": [[rid, preds[rid].get("hard_labels", [])] for rid in refs]}


def _mushroom_case(case, ref_sets):
    """Return (selected_case, None) or (None, reason)."""
    exp = case["expected"]
    if exp["status"] != "ok":
        return None, "expected.status == %r (%s)" % (exp["status"], exp["error"]["type"])
    ref_records, refs, preds = _mushroom_sides(case, ref_sets)
    assert set(refs) == set(preds), case["case_id"]
    # derived_pred_labels is given whenever one label field was missing; only the hard
    # labels derived for a prediction without hard_labels matter for IoU.
    derived = {}
    if "hard_labels" not in case["pred_fields"]:
        derived = {r["id"]: r["hard_labels"] for r in exp["derived_pred_labels"]}
    for rec in exp.get("derived_pred_labels", []):
        if not derived:
            assert rec["hard_labels"] == preds[rec["id"]]["hard_labels"], case["case_id"]
    for rid, rec in refs.items():
        problem = _record_problem(rec, len(rec["model_output_text"]))
        if problem:
            return None, "reference %s: %s" % (rid, problem)
        problem = _record_problem(preds[rid], len(rec["model_output_text"]), derived.get(rid))
        if problem:
            where = "derived hard labels" if rid in derived and problem.startswith("hard") else "prediction"
            return None, "%s %s: %s" % (where, rid, problem)
    # The oracle lists examples in the scorer's order (pandas sort_values on 'id');
    # numeric-looking ids come back as ints, so map them back to the record ids.
    by_str = {str(k): k for k in refs}
    assert len(by_str) == len(refs)
    examples = []
    for row in exp["per_example"]:
        rid = by_str[str(row["id"])]
        pred_hard = derived[rid] if rid in derived else preds[rid]["hard_labels"]
        examples.append([rid, pred_hard, row["iou"]])
    assert len(examples) == len(refs)
    out = {"case_id": case["case_id"], "group": case["group"],
           "pred_hard_from": "derived_pred_labels" if derived else "prediction hard_labels"}
    if "ref_set" in case["ref"]:
        out["ref_set"] = case["ref"]["ref_set"]
    else:
        out["refs"] = _ref_table(ref_records)
    out.update({"iou_mean": exp["iou_mean"], "printed": exp["printed"], "examples": examples})
    return out, None


# The official cases kept in the committed selection. Each official case scores generated
# predictions against an official reference file, so keeping one means shipping that
# file's hard labels (as {id: [text_len, hard_labels]}); the project must not ship the
# official data, so only a few cases are kept, chosen to cover different paths of the
# scorer over four reference files (two languages each of val_v2 and test_v1, three
# scripts). The edge and random cases (synthetic inline references) are all kept. The
# full collection is checked by test_full_oracle.py when MYCELIUM_ORACLE_DIR is set.
OFFICIAL_SELECTION = {
    "val_v2_ar__self": "prediction = the reference labels (both fields): IoU 1 everywhere",
    "val_v2_ar__soft_only_ref": "soft-only prediction: hard labels derived by the scorer "
                                "(prob > 0.5, adjacent spans merged)",
    "val_v2_ar__background_last": "soft-only prediction whose hard labels are derived from "
                                  "spans later overwritten by a background span",
    "val_v2_de__mark_none_hard": "leaderboard 'mark none' baseline (hard_labels = [] only)",
    "val_v2_de__mark_all_hard": "leaderboard 'mark all' baseline (hard_labels = [[0, len]] only)",
    "val_v2_de__random_spans": "random, possibly overlapping prediction spans (merged masks)",
    "test_v1_fr__shift+2": "reference spans shifted right by 2, clipped to the text",
    "test_v1_fr__soft_quantized_ties": "soft-only prediction with probs snapped to quarters "
                                       "(an exact 0.5 is not hard)",
    "test_v1_fr__shuffled_extra_field": "reference labels, lines shuffled, extra field: "
                                        "pairing by id, not by position",
    "test_v1_fr__mark_none_hard": "'mark none' on test_v1: an IoU mean of exactly 0.0",
    "test_v1_zh__truncate_half": "each reference span truncated to its first half",
    "test_v1_zh__shift-3": "reference spans shifted left by 3, clipped to the text",
}


def ref_set_table(ref_sets, names):
    """``{name: {source_file, records: {id: [text_len, hard_labels]}}}`` for ``names``."""
    out = {name: {"source_file": ref_sets[name]["source_file"],
                  "records": _ref_table(ref_sets[name]["records"])}
           for name in sorted(names)}
    for name, rs in out.items():
        problems = [rid for rid, (n, hard) in rs["records"].items()
                    if any(_span_problem(s, e, n) for s, e in hard)]
        assert not problems, (name, problems)
    return out


def select_mushroom(src):
    """Every usable case of a Mu-SHROOM oracle collection ``src`` (the parsed JSON).

    Returns ``(cases, skipped, invalid)``: the compact form of every case that
    ``_mushroom_case`` accepts, ``{case_id, reason}`` for the others, and the inputs of
    the skipped cases whose given hard spans break the bounds (``_invalid_hard_selection``).
    Used by ``build_mushroom`` and, on the full oracle files, by test_full_oracle.py.
    """
    cases, skipped, invalid = [], [], []
    for case in src["cases"]:
        selected, reason = _mushroom_case(case, src["ref_sets"])
        if selected is None:
            skipped.append({"case_id": case["case_id"], "reason": reason})
            rejected = _invalid_hard_selection(case, src["ref_sets"])
            if rejected is not None:
                invalid.append(rejected)
            continue
        cases.append(selected)
    return cases, skipped, invalid


def build_mushroom(oracle_dir):
    src, prov = _load(oracle_dir, "mushroom_cases.json")
    all_cases, skipped, invalid = select_mushroom(src)
    official_ids = {c["case_id"] for c in all_cases if c["group"] == "official"}
    missing = sorted(set(OFFICIAL_SELECTION) - official_ids)
    assert not missing, "OFFICIAL_SELECTION names cases that are absent or unusable: %s" % missing
    assert all(("ref_set" in c) == (c["group"] == "official") for c in all_cases), \
        "only official cases may use an official ref_set"
    cases = [c for c in all_cases
             if c["group"] != "official" or c["case_id"] in OFFICIAL_SELECTION]
    used_sets = {c["ref_set"] for c in cases if "ref_set" in c}
    ref_sets = ref_set_table(src["ref_sets"], used_sets)
    groups = {}
    for c in cases:
        groups[c["group"]] = groups.get(c["group"], 0) + 1
    prov.update({
        "schema_summary": (
            "Reference/prediction record sets (Mu-SHROOM JSONL lines) and the outputs of the "
            "unmodified official SemEval-2025 Task 3 scorer: per-example IoU/Cor in the "
            "scorer's order (sorted by id), numpy means and the printed 'IoU: %.8f\\nCor: %.8f' "
            "text. References come from a named official ref_set or inline records; raw_lines, "
            "when present, are the authoritative file lines; a prediction without hard_labels "
            "gets them derived by the scorer (expected.derived_pred_labels)."),
        "selection": (
            "Usable cases: expected.status == 'ok' and every reference and prediction span "
            "valid (every hard and soft span 0 <= start <= end <= len(text) with integer "
            "offsets, every prob in [0, 1]; derived hard labels checked too; raw_lines used "
            "when present). Of these, ALL 'edge' and 'random' cases (their references are "
            "synthetic, inline) and only the 'official' cases listed in official_selection "
            "(%d of %d usable ones), so that the official data is not shipped: just the hard "
            "labels of the %d official reference files those cases use. Per case: ref_set name "
            "or inline refs {id: [text_len, hard_labels]}, examples [[id, prediction "
            "hard_labels, expected iou]] in the scorer's order (prediction hard labels from "
            "expected.derived_pred_labels when the prediction lacked hard_labels), iou_mean "
            "and printed. Official ref sets are stored once in ref_sets as {id: [text_len, "
            "hard_labels]}; texts and soft labels are not kept. The full collection is checked "
            "by test_full_oracle.py when MYCELIUM_ORACLE_DIR names the oracle folder."
            % (len(OFFICIAL_SELECTION), len(official_ids), len(ref_sets))),
        "official_selection": OFFICIAL_SELECTION,
        "selected_cases": len(cases),
        "selected_cases_by_group": dict(sorted(groups.items())),
        "usable_cases_in_source": len(all_cases),
        "skipped_cases": skipped,
        "invalid_hard_cases_note": (
            "invalid_hard_cases: skipped cases whose given hard spans (reference or "
            "prediction, not derived) break 0 <= start <= end <= len(text); kept as inputs "
            "only ({id: [text_len, hard_labels]} refs and [[id, prediction hard_labels]]), "
            "for the test that mycelium rejects them when the text is given."),
        "scorer": src["provenance"].get("scorer"),
        "scorer_env": src["provenance"].get("env"),
        "oracle_split_note": src.get("split_note"),
    })
    # invalid_hard_cases carry their references inline: none may come from an official file.
    official_refs = {c["case_id"] for c in src["cases"] if "ref_set" in c["ref"]}
    assert not official_refs & {c["case_id"] for c in invalid}
    return {"provenance": prov, "ref_sets": ref_sets, "cases": cases,
            "invalid_hard_cases": invalid}


# --------------------------------------------------------------------------- main

def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("oracle_dir", nargs="?", default=DEFAULT_ORACLE,
                        help="directory with the oracle *_cases.json files "
                             "(relative paths are taken from the project root)")
    args = parser.parse_args(argv)
    oracle_dir = args.oracle_dir
    if not os.path.isabs(oracle_dir):
        oracle_dir = os.path.normpath(os.path.join(PROJECT_ROOT, oracle_dir))
    outputs = [
        ("detection_cases.json", build_detection, ("cases", "zero_length_cases")),
        ("ragtruth_cases.json", build_ragtruth, ("cases",)),
        ("mushroom_cases.json", build_mushroom, ("ref_sets", "cases", "invalid_hard_cases")),
    ]
    total = 0
    for name, build, list_keys in outputs:
        size = _dump(os.path.join(HERE, name), build(oracle_dir), list_keys)
        total += size
        print("%-24s %9d bytes" % (name, size))
    print("%-24s %9d bytes" % ("total", total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
