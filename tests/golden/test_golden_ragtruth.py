"""Golden parity of the ``ragtruth`` profile (``character`` and ``response_level``) with RAGTruth's evaluator.

Reads only tests/golden/ragtruth_cases.json (built by build_golden.py; see its
``provenance``): batches scored by the unmodified CodingLL/RAGTruth_Eval
compute_metrics.py (merged masks per response, TP/FP/FN pooled over the batch).
The checks live in _oracle.py and are shared with test_full_oracle.py.
"""

import json
from pathlib import Path

import pytest

import _oracle

GOLDEN = json.loads(Path(__file__).with_name("ragtruth_cases.json").read_text("utf-8"))
CASES = GOLDEN["cases"]
IN_BOUNDS = [c for c in CASES if not c["out_of_bounds"]]
OUT_OF_BOUNDS = [c for c in CASES if c["out_of_bounds"]]
TASK_CASES = _oracle.ragtruth_task_cases(CASES)


def _ids(cases):
    return [c["name"] for c in cases]


@pytest.mark.parametrize("case", IN_BOUNDS, ids=_ids(IN_BOUNDS))
def test_character_matches_ragtruth_eval(case):
    _oracle.check_ragtruth_character(case)


@pytest.mark.parametrize("case, task", TASK_CASES,
                         ids=["%s[%s]" % (c["name"], t) for c, t in TASK_CASES])
def test_character_per_task_matches_ragtruth_eval(case, task):
    _oracle.check_ragtruth_character_per_task(case, task)


@pytest.mark.parametrize("case", OUT_OF_BOUNDS, ids=_ids(OUT_OF_BOUNDS))
def test_out_of_bounds_spans_are_rejected_with_text(case):
    _oracle.check_ragtruth_out_of_bounds_rejected(case)


@pytest.mark.parametrize("case", OUT_OF_BOUNDS, ids=_ids(OUT_OF_BOUNDS))
def test_out_of_bounds_without_text_counts_every_offset(case):
    """Without a text there is no bound, and the masks are those the evaluator used."""
    _oracle.check_ragtruth_out_of_bounds_without_text(case)


@pytest.mark.parametrize("case", IN_BOUNDS, ids=_ids(IN_BOUNDS))
def test_response_level_matches_ragtruth_eval_case_level(case):
    _oracle.check_ragtruth_response_level(case)


@pytest.mark.parametrize("case", OUT_OF_BOUNDS, ids=_ids(OUT_OF_BOUNDS))
def test_response_level_out_of_bounds_without_text(case):
    _oracle.check_ragtruth_response_level(case, text=False)
