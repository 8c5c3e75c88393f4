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


# ------------------------------------- what the official scorer itself refuses
# Each case below was run through participant_kit/scorer.py (Helsinki-NLP/mu-shroom at
# 7fea78a) on these very lines: hard labels of floats or of {start, end} dicts stop it
# with TypeError (range() of a float / of the dict's keys), a null id with its
# AssertionError on the pair's ids, a UTF-8 byte order mark with its file reader's
# error. The drop-in refuses them too, naming the rule.

@pytest.mark.parametrize("line, fragments", [
    ('{"id": "a-1", "hard_labels": [[1.0, 2.0]]}', ("hard_labels", "span 0", "integer")),
    ('{"id": "a-1", "hard_labels": [[1, 2.0]], "soft_labels": []}',
     ("hard_labels", "span 0", "integer")),
    ('{"id": "a-1", "hard_labels": [{"start": 1, "end": 2}]}',
     ("hard_labels", "span 0", "[start, end]")),
], ids=["hard-floats", "hard-float-both-fields", "hard-dict"])
def test_hard_labels_the_scorer_cannot_range_over(tmp_path, line, fragments):
    _, pred, err = run(tmp_path, [line])
    assert_one_error_line(err, [(str(pred), "a-1", "official scorer", *fragments)])


def test_reference_hard_labels_of_floats(tmp_path):
    ref, _, err = run(tmp_path, ['{"id": "a-1", "hard_labels": [[0, 4]]}'],
                      [REF.replace("[[0, 4]]", "[[0.0, 4.0]]")])
    assert_one_error_line(err, [(str(ref), "a-1", "hard_labels", "official scorer")])


@pytest.mark.parametrize("side", ["ref", "pred"])
def test_null_id(tmp_path, side):
    pred_line = '{"id": "a-1", "hard_labels": [[0, 4]]}'
    lines = {"ref": [REF], "pred": [pred_line]}
    lines[side] = [lines[side][0].replace('"a-1"', "null")]
    ref, pred, err = run(tmp_path, lines["pred"], lines["ref"])
    named = ref if side == "ref" else pred
    assert_one_error_line(err, [(str(named), "null", "id", "official scorer")])


@pytest.mark.parametrize("side", ["ref", "pred"])
def test_byte_order_mark(tmp_path, side):
    ref = write_lines(tmp_path / "ref.jsonl", [REF])
    pred = write_lines(tmp_path / "pred.jsonl", ['{"id": "a-1", "hard_labels": [[0, 4]]}'])
    path = ref if side == "ref" else pred
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    status, stdout, stderr = run_cli(["mushroom", ref, pred])
    assert (status, stdout) == (1, "")
    assert_one_error_line(stderr, [(str(path), "byte order mark", "official scorer")])


def test_lone_surrogate_written_raw_is_refused_escaped_is_scored(tmp_path):
    # Raw (the UTF-8-like bytes of U+D800) is not UTF-8: the scorer's reader refuses it,
    # and so does the drop-in. Escaped ("\ud800") is read by the scorer as one code point
    # of the text, and scored (it was run on both): the drop-in scores it the same.
    raw = REF.replace("abcdefghij", "abcdefghi\udc00").encode("utf-8", "surrogatepass")
    ref = tmp_path / "ref.jsonl"
    ref.write_bytes(raw + b"\n")
    pred = write_lines(tmp_path / "pred.jsonl", ['{"id": "a-1", "hard_labels": [[0, 4]]}'])
    status, stdout, stderr = run_cli(["mushroom", ref, pred])
    assert (status, stdout) == (1, "")
    assert_one_error_line(stderr, [(str(ref), "UTF-8")])
    ref.write_text(REF.replace("abcdefghij", "abcdefghi\\ud800") + "\n", encoding="utf-8")
    status, stdout, _ = run_cli(["mushroom", ref, pred])
    assert status == 0 and stdout.startswith("IoU: 1.00000000")
