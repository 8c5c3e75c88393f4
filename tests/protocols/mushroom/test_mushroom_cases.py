"""``mycelium mushroom REF PRED OUT`` on every case of the committed selection cases.json.

cases.json holds the ``edge`` and ``random`` cases of the shared oracle (synthetic inline
references; built by build_cases.py, see its provenance). Each case is written to
tmp_path exactly as it says and run through ``mycelium.cli.app.main`` in-process; the checks
per category are in _mushroom_support.py. Every case is counted: the category counts and
the ids of the non-``ok`` cases are asserted, so nothing is dropped silently.
"""

from collections import Counter

import pytest

from _mushroom_support import (CATEGORIES, FLOAT_TEXT_CASES, category_counts, check_case,
                               classify, load_selection)

SELECTION = load_selection()
CASES = SELECTION["cases"]

#: What the selection must contain (case counts per category and group).
EXPECTED_CATEGORY_COUNTS = {"ok": 166, "error": 2, "invalid": 2}
EXPECTED_GROUP_COUNTS = {"edge/ok": 19, "edge/error": 2, "random/ok": 149}
#: The cases that are not compared with the official output, and why.
EXPECTED_NOT_OK = {
    "edge_missing_pred_id": "error",                      # official AssertionError
    "edge_pred_hard_oob_hard_only": "error",              # official IndexError
    "edge_pred_hard_oob_both_fields": "invalid",          # hard span [5, 15) on 10 chars
    "edge_soft_only_reversed_span_after_adjacent": "invalid",  # soft span [6, 3)
}


def test_selection_counts():
    assert len(CASES) == 170
    assert len({c["case_id"] for c in CASES}) == len(CASES)
    groups = Counter("%s/%s" % (c["group"], c["expected"]["status"]) for c in CASES)
    assert dict(groups) == EXPECTED_GROUP_COUNTS == SELECTION["provenance"]["case_counts"]
    counts = category_counts(CASES)
    assert dict(counts) == EXPECTED_CATEGORY_COUNTS
    assert sum(counts.values()) == len(CASES) and set(counts) <= set(CATEGORIES)
    not_ok = {c["case_id"]: classify(c) for c in CASES if classify(c) != "ok"}
    assert not_ok == EXPECTED_NOT_OK


def test_selection_has_no_official_data():
    assert {c["group"] for c in CASES} == {"edge", "random"}
    assert all("records" in c["ref"] and "ref_set" not in c["ref"] for c in CASES)
    assert "ref_sets" not in SELECTION


def test_every_raw_lines_case_is_accounted_for():
    """raw_lines cases are compared with the official output like any other (numbers read
    as the official reader reads them), and with --float-parse exact too."""
    raw = {c["case_id"] for c in CASES if "raw_lines" in c["pred"] or "raw_lines" in c["ref"]}
    assert raw == {"edge_float_parse_tie"}
    assert raw <= set(FLOAT_TEXT_CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["case_id"] for c in CASES])
def test_case(case, tmp_path):
    category = check_case(case, tmp_path)
    assert category == EXPECTED_NOT_OK.get(case["case_id"], "ok")
