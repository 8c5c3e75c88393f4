"""The FULL scores oracle (scores_cases.json), checked like the golden selection.

Reads the file from the folder named by ``MYCELIUM_ORACLE_DIR`` (as test_full_oracle.py
does for the other oracle files); skipped, with that reason, when it is unset or lacks
the file. Every case is checked: threshold-free values (per example, macro, micro,
response AUROC) and, at each threshold, the spans, IoU, character and response-level
counts (_scores_oracle.py).
"""

import json
import os

import pytest

import _scores_oracle

ENV = "MYCELIUM_ORACLE_DIR"
NAME = "scores_cases.json"


def _cases():
    folder = os.environ.get(ENV, "")
    if not folder:
        return [], f"{ENV} is not set: set it to the folder with {NAME} to run these tests"
    path = os.path.join(folder, NAME)
    if not os.path.isfile(path):
        return [], f"{ENV}={folder!r} does not contain {NAME}"
    with open(path, encoding="utf-8") as f:
        return json.load(f)["cases"], None


CASES, SKIP = _cases()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=SKIP or "")


def test_every_case_is_checked():
    assert len(CASES) >= 289  # the public half; kept-back cases may be added


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_threshold_free(case):
    _scores_oracle.check_threshold_free(case)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_at_thresholds(case):
    _scores_oracle.check_at_thresholds(case)
