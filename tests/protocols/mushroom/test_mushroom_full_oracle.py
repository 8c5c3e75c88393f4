"""``mycelium mushroom`` on EVERY case of the full oracle file, official ones included.

Reads ``mushroom_cases.json`` from the folder named by ``MYCELIUM_ORACLE_DIR`` (CI points
it at ../shared/oracle) and is skipped, with that reason, when it is unset. ``official``
cases get their reference file written from ``ref_sets`` (the records the scorer read,
from the official data). Each case is checked per its category exactly as in
test_mushroom_cases.py (see _mushroom_support.py), and the categories are counted so
that nothing is dropped silently. Also checks that the committed selection and baselines
are what build_cases.py makes from this file.
"""

import json
import os
from collections import Counter
from pathlib import Path

import pytest

import build_cases
from _mushroom_support import (CATEGORIES, FLOAT_TEXT_CASES, HERE, category_counts,
                               check_case, classify, load_baselines, load_json,
                               load_selection, parsed_side, ref_records)

ENV = "MYCELIUM_ORACLE_DIR"


def _locate():
    value = os.environ.get(ENV, "")
    if not value:
        return None, ("%s is not set: set it to the folder holding the full oracle file "
                      "mushroom_cases.json (e.g. ../shared/oracle) to run these tests" % ENV)
    path = Path(value) / build_cases.SOURCE_NAME
    if not path.is_file():
        return None, "%s=%r has no %s" % (ENV, value, build_cases.SOURCE_NAME)
    return Path(value).resolve(), None


ORACLE_DIR, SKIP_REASON = _locate()
pytestmark = pytest.mark.skipif(ORACLE_DIR is None, reason=SKIP_REASON or "")

if ORACLE_DIR is not None:
    SRC, SRC_SHA256 = build_cases.load_source(ORACLE_DIR)
    CASES, REF_SETS = SRC["cases"], SRC["ref_sets"]
else:
    SRC, SRC_SHA256, CASES, REF_SETS = None, None, [], {}

#: (group/status) counts of the public half of the oracle (the file the selection was
#: built from). The complete collection must match its own provenance.case_counts.
PUBLIC_HALF_COUNTS = {"edge/error": 2, "edge/ok": 19, "official/ok": 217, "random/ok": 149}
PUBLIC_HALF_CATEGORIES = {"ok": 383, "error": 2, "invalid": 2}


def test_counts():
    groups = dict(Counter("%s/%s" % (c["group"], c["expected"]["status"]) for c in CASES))
    complete = SRC["provenance"]["case_counts"]
    assert groups in (PUBLIC_HALF_COUNTS, complete), groups
    assert len({c["case_id"] for c in CASES}) == len(CASES)
    counts = category_counts(CASES, REF_SETS)
    assert sum(counts.values()) == len(CASES) and set(counts) <= set(CATEGORIES)
    if groups == PUBLIC_HALF_COUNTS:
        assert dict(counts) == PUBLIC_HALF_CATEGORIES
    # Every error case is an official error; every official case is a valid input.
    assert counts["error"] == sum(c["expected"]["status"] == "error" for c in CASES)
    assert all(classify(c, REF_SETS) == "ok" for c in CASES if c["group"] == "official")


def test_float_text_cases():
    """The listed float-text cases of this collection are raw_lines cases whose numbers
    the official reader reads otherwise than an exact reader (test_case checks them, and
    every other raw_lines case, under both readings)."""
    raw = [c for c in CASES if "raw_lines" in c["pred"] or "raw_lines" in c["ref"]]
    differ = {c["case_id"] for c in raw
              if parsed_side(c["pred"], c["pred"]["records"]) !=
              parsed_side(c["pred"], c["pred"]["records"], "exact")
              or parsed_side(c["ref"], ref_records(c, REF_SETS)) !=
              parsed_side(c["ref"], ref_records(c, REF_SETS), "exact")}
    listed = {c["case_id"] for c in CASES} & set(FLOAT_TEXT_CASES)
    assert listed and listed <= differ


@pytest.mark.parametrize("case", CASES, ids=[c["case_id"] for c in CASES])
def test_case(case, tmp_path):
    check_case(case, tmp_path, REF_SETS)


def test_committed_selection_is_current():
    committed = (HERE / "cases.json").read_text("utf-8")
    if SRC_SHA256 == load_selection()["provenance"]["source"]["sha256"]:
        assert build_cases.dump(build_cases.build_cases(SRC, SRC_SHA256)) == committed
    else:  # another version of the collection: the selection must still be in it verbatim
        by_id = {c["case_id"]: c for c in CASES}
        for case in load_selection()["cases"]:
            assert by_id.get(case["case_id"]) == case, case["case_id"]


def test_committed_baselines_are_current():
    got = build_cases.build_baselines(SRC, SRC_SHA256)["baselines"]
    assert got == load_baselines()["baselines"]
    assert len(got) == 28


def test_ref_sets_match_the_data_files():
    """When the data is at hand too, ref_sets are the records of their source files."""
    data_dir = os.environ.get("MYCELIUM_MUSHROOM_DIR", "")
    if not data_dir:
        pytest.skip("MYCELIUM_MUSHROOM_DIR is not set: cannot compare ref_sets with the "
                    "official data files")
    for name, ref_set in REF_SETS.items():
        lines = (Path(data_dir) / ref_set["source_file"]).read_text("utf-8").splitlines()
        records = [json.loads(line) for line in lines if line.strip()]
        fields = ("id", "model_output_text", "hard_labels", "soft_labels")
        assert [{f: r[f] for f in fields} for r in records] == \
            [{f: r[f] for f in fields} for r in ref_set["records"]], name
