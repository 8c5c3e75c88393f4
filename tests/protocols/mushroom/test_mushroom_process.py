"""``python -m mycelium mushroom REF PRED`` as a separate process: the official text on
standard output, exit 0; bad input: exit 1 and one ``mycelium: error:`` line on stderr.

A handful of cases of the committed selection (each subprocess costs an interpreter
start): every kind of prediction file, an emoji text, numeric ids, and the rejected ones.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from _mushroom_support import (assert_one_error_line, classify, load_selection, problems,
                               write_case, write_lines)

ROOT = Path(__file__).resolve().parents[3]
BY_ID = {c["case_id"]: c for c in load_selection()["cases"]}

VALID = ["edge_both_empty", "edge_soft_only_exact_half", "edge_hard_only_inferred_soft",
         "edge_numeric_string_ids", "edge_shuffled_pred_order", "random_000"]
REJECTED = ["edge_missing_pred_id", "edge_pred_hard_oob_hard_only",
            "edge_pred_hard_oob_both_fields", "edge_soft_only_reversed_span_after_adjacent"]


def run(*argv, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "mycelium", "mushroom", *map(str, argv)],
                          capture_output=True, text=True, encoding="utf-8", cwd=cwd,
                          timeout=120)


def test_selected_cases_exist():
    assert all(classify(BY_ID[i]) == "ok" for i in VALID)
    assert {classify(BY_ID[i]) for i in REJECTED} == {"error", "invalid"}


@pytest.mark.parametrize("case_id", VALID)
def test_stdout_is_the_official_text(case_id, tmp_path):
    case = BY_ID[case_id]
    ref, pred = write_case(case, tmp_path)
    done = run(ref, pred)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == case["expected"]["printed"]


def test_out_file_from_a_process(tmp_path):
    case = BY_ID["random_000"]
    ref, pred = write_case(case, tmp_path)
    done = run(ref, pred, tmp_path / "scores.txt")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert (tmp_path / "scores.txt").read_bytes() == case["expected"]["printed"].encode()


@pytest.mark.parametrize("case_id", REJECTED)
def test_rejected_case_exit_1_one_line(case_id, tmp_path):
    case = BY_ID[case_id]
    ref, pred = write_case(case, tmp_path)
    done = run(ref, pred)
    assert (done.returncode, done.stdout) == (1, "")
    assert_one_error_line(done.stderr, problems(case, ref, pred), case_id)


def test_duplicate_id_and_no_label_field(tmp_path):
    ref = write_lines(tmp_path / "ref.jsonl", [
        '{"id": "x-1", "model_output_text": "abc", "hard_labels": [], "soft_labels": []}'])
    dup = write_lines(tmp_path / "dup.jsonl", ['{"id": "x-1", "hard_labels": []}'] * 2)
    done = run(ref, dup)
    assert (done.returncode, done.stdout) == (1, "")
    assert_one_error_line(done.stderr, [(str(dup), "x-1")])
    nolabel = write_lines(tmp_path / "nolabel.jsonl", ['{"id": "x-1", "labels": []}'])
    done = run(ref, nolabel)
    assert (done.returncode, done.stdout) == (1, "")
    assert_one_error_line(done.stderr, [(str(nolabel), "hard_labels", "soft_labels")])


def test_missing_file_exit_1(tmp_path):
    ref = write_lines(tmp_path / "ref.jsonl", [
        '{"id": "x-1", "model_output_text": "abc", "hard_labels": [], "soft_labels": []}'])
    done = run(ref, tmp_path / "nowhere.jsonl")
    assert (done.returncode, done.stdout) == (1, "")
    assert_one_error_line(done.stderr, [(str(tmp_path / "nowhere.jsonl"),)])
