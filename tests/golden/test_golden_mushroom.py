"""Golden parity of the ``mu_shroom`` profile's ``iou`` with the official Mu-SHROOM scorer.

Reads only tests/golden/mushroom_cases.json (built by build_golden.py; see its
``provenance`` for the selection rule and the cases left out and why): all synthetic
edge and random cases and a dozen official ones. The full collection is checked the
same way by test_full_oracle.py. Texts are not stored: only their length matters to
IoU, so each example gets a placeholder string of that length.

Per example the IoU must match within 1e-9 (the schema's advice). The mean is compared
within 4 ulps: mycelium's macro mean is the correctly rounded exact mean, the official
scorer's is numpy's; the printed "IoU: %.8f" line is compared exactly.
"""

import json
from pathlib import Path

import pytest

from _oracle import check_mushroom_invalid_hard_rejected, check_mushroom_iou

GOLDEN = json.loads(Path(__file__).with_name("mushroom_cases.json").read_text("utf-8"))
REF_SETS = GOLDEN["ref_sets"]
CASES = GOLDEN["cases"]
INVALID = GOLDEN["invalid_hard_cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["case_id"] for c in CASES])
def test_iou_matches_official_scorer(case):
    # Per-example IoU within 1e-9; mean within 4 ulps; printed "IoU: %.8f" line identical.
    check_mushroom_iou(case, REF_SETS)


@pytest.mark.parametrize("case", INVALID, ids=[c["case_id"] for c in INVALID])
def test_out_of_text_hard_spans_are_rejected(case):
    """The bare scorer scores or crashes on these; mycelium rejects them (SPEC.md section 6)."""
    check_mushroom_invalid_hard_rejected(case)
