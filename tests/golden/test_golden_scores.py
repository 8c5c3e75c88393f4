"""Golden parity of the score metrics and spans at a threshold with the scores oracle.

Reads tests/golden/scores_cases.json: 30 cases copied verbatim from the shared oracle's
scores_cases.json (see its ``provenance``); the full file is checked by
test_full_oracle.py. The checks live in _scores_oracle.py.
"""

import json
from pathlib import Path

import pytest

import _scores_oracle

GOLDEN = json.loads(Path(__file__).with_name("scores_cases.json").read_text("utf-8"))
CASES = GOLDEN["cases"]


def test_selection_has_both_forms_and_undefined_cases():
    forms = [c["form"] for c in CASES]
    assert forms.count("soft_spans") == 15 and forms.count("token_scores") == 15
    assert sum(c["expected"]["response_auroc"] is None for c in CASES) == 11


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_threshold_free(case):
    _scores_oracle.check_threshold_free(case)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_at_thresholds(case):
    _scores_oracle.check_at_thresholds(case)
