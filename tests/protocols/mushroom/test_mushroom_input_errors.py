"""Malformed files: exit 1 and ONE ``mycelium: error:`` line naming the file, the id and
the field (issue 4: "one clear line naming the file, id and field").

"""

import pytest

from _mushroom_support import assert_one_error_line, run_cli, write_lines

REF = ('{"id": "a-1", "model_output_text": "abcdefghij", "hard_labels": [[0, 4]], '
       '"soft_labels": [{"start": 0, "end": 4, "prob": 1.0}]}')


def run(tmp_path, pred_lines, ref_lines=(REF,)):
    ref = write_lines(tmp_path / "ref.jsonl", ref_lines)
    pred = write_lines(tmp_path / "pred.jsonl", pred_lines)
    status, stdout, stderr = run_cli(["mushroom", ref, pred, tmp_path / "out.txt"])
    assert (status, stdout) == (1, ""), (status, stdout, stderr)
    assert not (tmp_path / "out.txt").exists()
    return ref, pred, stderr


@pytest.mark.parametrize("line, field", [
    ('{"id": "a-1", "hard_labels": [[4, 2]]}', "hard_labels"),
    ('{"id": "a-1", "hard_labels": [[0, 11]], "soft_labels": []}', "hard_labels"),
    ('{"id": "a-1", "soft_labels": [{"start": 8, "end": 11, "prob": 0.2}]}', "soft_labels"),
    ('{"id": "a-1", "soft_labels": [{"start": 0, "end": 2, "prob": 1.2}]}', "soft_labels"),
    ('{"id": "a-1", "hard_labels": "[[0, 4]]"}', "hard_labels"),
    ('{"id": "a-1", "hard_labels": [], "soft_labels": null}', "soft_labels"),
    ('{"id": "a-1", "hard_labels": [], "soft_labels": [{"start": 0, "end": 2}]}',
     "soft_labels"),
    ('{"id": "a-1", "hard_labels": [[0, 2, 3]], "soft_labels": []}', "hard_labels"),
], ids=["hard-reversed", "hard-past-end", "soft-past-end", "prob-above-1", "hard-not-list",
        "soft-null", "soft-no-prob", "hard-triple-both-fields"])
def test_bad_prediction_field(tmp_path, line, field):
    _, pred, err = run(tmp_path, [line])
    assert_one_error_line(err, [(str(pred), "a-1", field)])


def test_partial_label_column(tmp_path):
    ref2 = REF.replace("a-1", "a-2")
    _, pred, err = run(tmp_path, ['{"id": "a-1", "hard_labels": []}', '{"id": "a-2"}'],
                       (REF, ref2))
    assert_one_error_line(err, [(str(pred), "a-2", "hard_labels")])


def test_reference_without_soft_labels(tmp_path):
    ref, _, err = run(tmp_path, ['{"id": "a-1", "hard_labels": []}'],
                      ['{"id": "a-1", "model_output_text": "abc", "hard_labels": []}'])
    assert_one_error_line(err, [(str(ref), "a-1", "soft_labels")])


def test_not_json(tmp_path):
    _, pred, err = run(tmp_path, ['{"id": "a-1", "hard_labels": [}'])
    assert_one_error_line(err, [(str(pred), "line 1")])


# ------------------------------------------------------- malformed label fields

DERIVED_BEFORE_VALIDATED = (
    "bug: a prediction's missing label field is derived (derive_hard_labels / "
    "derive_soft_labels in mycelium/mushroom.py) BEFORE its given field is validated, so "
    "the error is about the derived field or is an unlocated Python exception")


@pytest.mark.parametrize("line", [
    '{"id": "a-1", "soft_labels": [{"start": 8, "end": 15, "prob": 0.9}]}',
    '{"id": "a-1", "soft_labels": [{"start": 6, "end": 3, "prob": 0.9}]}',
], ids=["soft-only-past-end", "soft-only-reversed"])
def test_soft_only_invalid_span_names_soft_labels(tmp_path, line):
    _, pred, err = run(tmp_path, [line])
    assert_one_error_line(err, [(str(pred), "a-1", "soft_labels")])


@pytest.mark.parametrize("line, field", [
    ('{"id": "a-1", "soft_labels": [{"start": 1, "end": 2, "prob": "0.9"}]}', "soft_labels"),
    ('{"id": "a-1", "soft_labels": [{"start": 1, "end": 2}]}', "soft_labels"),
    ('{"id": "a-1", "soft_labels": [[1, 2]]}', "soft_labels"),
    ('{"id": "a-1", "hard_labels": [[1, 2, 3]]}', "hard_labels"),
], ids=["soft-only-prob-string", "soft-only-no-prob", "soft-only-not-dict",
        "hard-only-triple"])
def test_malformed_single_field_is_located(tmp_path, line, field):
    _, pred, err = run(tmp_path, [line])
    assert_one_error_line(err, [(str(pred), "a-1", field)])


def test_hard_only_integral_float_offsets(tmp_path):
    ref = write_lines(tmp_path / "ref.jsonl", [REF])
    pred = write_lines(tmp_path / "pred.jsonl", ['{"id": "a-1", "hard_labels": [[1.0, 2]]}'])
    status, out, err = run_cli(["mushroom", ref, pred])
    if status == 0:  # accepted: then exactly as [1, 2]
        ints = write_lines(tmp_path / "ints.jsonl", ['{"id": "a-1", "hard_labels": [[1, 2]]}'])
        assert out == run_cli(["mushroom", ref, ints])[1]
    else:            # rejected: then about the field the file has
        assert status == 1
        assert_one_error_line(err, [(str(pred), "a-1", "hard_labels")])


def test_empty_files(tmp_path):
    ref, pred, err = run(tmp_path, [], [])
    assert_one_error_line(err, [(str(ref),), (str(pred),)])


def test_reference_text_null(tmp_path):
    ref, _, err = run(tmp_path, ['{"id": "a-1", "hard_labels": []}'],
                      ['{"id": "a-1", "model_output_text": null, "hard_labels": [], '
                       '"soft_labels": []}'])
    assert_one_error_line(err, [(str(ref), "a-1", "model_output_text")])
