"""Golden parity of deteval_1d and cleval_1d with the 1D values SPEC.md section 4 prescribes.

Reads only tests/golden/detection_cases.json (built by build_golden.py; see its
``provenance``). Statistics are compared for every case; measures only where their
denominators are non-zero, because the oracle follows DetEval's zero-denominator
convention (R = 1 with no refs, ...) while mycelium applies ``zero_division``.
The checks live in _oracle.py and are shared with test_full_oracle.py.
"""

import json
from pathlib import Path

import pytest

import _oracle

GOLDEN = json.loads(Path(__file__).with_name("detection_cases.json").read_text("utf-8"))
CASES = GOLDEN["cases"]
ORACLE_CASES = [c for c in CASES if not c["has_duplicate_spans"]]
DUPLICATE_CASES = [c for c in CASES if c["has_duplicate_spans"]]
ZERO_LENGTH_CASES = GOLDEN["zero_length_cases"]


def _ids(cases):
    return [c["id"] for c in cases]


# --------------------------------------------------------------------------- statistics

@pytest.mark.parametrize("case", ORACLE_CASES, ids=_ids(ORACLE_CASES))
def test_deteval_1d_statistics(case):
    _oracle.check_deteval_1d_statistics(case)


@pytest.mark.parametrize("case", ORACLE_CASES, ids=_ids(ORACLE_CASES))
def test_cleval_1d_statistics(case):
    _oracle.check_cleval_1d_statistics(case)


# --------------------------------------------------------------------------- measures

@pytest.mark.parametrize("case", ORACLE_CASES, ids=_ids(ORACLE_CASES))
def test_measures(case):
    _oracle.check_detection_measures(case)


@pytest.mark.parametrize("case", ORACLE_CASES, ids=_ids(ORACLE_CASES))
def test_deteval_1d_merge_credit_1(case):
    _oracle.check_deteval_1d_merge_credit_1(case)


# --------------------------------------------------------------------------- duplicates

@pytest.mark.parametrize("case", DUPLICATE_CASES, ids=_ids(DUPLICATE_CASES))
def test_duplicate_spans_collapse(case):
    """A side is a set (SPEC.md section 2): scoring equals scoring without the duplicates.

    The oracle keeps duplicates as separate objects, so its numbers do not apply here.
    """
    _oracle.check_duplicate_spans_collapse(case)


# --------------------------------------------------------------------------- zero length

@pytest.mark.parametrize("case", ZERO_LENGTH_CASES, ids=_ids(ZERO_LENGTH_CASES))
def test_zero_length_spans_are_dropped(case):
    _oracle.check_zero_length_spans_are_dropped(case)
