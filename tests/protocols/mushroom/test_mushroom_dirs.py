"""``mycelium mushroom`` with directories and globs of per-language files.

REF and PRED directories (or glob patterns) are paired by the language code in the file
names and a per-language table is printed (lang, examples, IoU, Cor, reference,
prediction). Its numbers must equal single-file runs. OUT with directories is a usage
error (exit 2); a prediction whose language has no reference is a data error (exit 1).
Synthetic files from the committed selection always; the official test files too when
MYCELIUM_MUSHROOM_DIR is set.
"""

import json
import shutil

import pytest

from _mushroom_support import (assert_one_error_line, env_dir, load_baselines,
                               load_selection, run_cli, side_lines, write_lines)

BY_ID = {c["case_id"]: c for c in load_selection()["cases"]}
#: language -> a selection case used as that language's file pair
LANG_CASES = {"en": "random_063", "de": "random_070", "it": "random_067"}  # it: Cor nan


def _make(tmp_path, langs=("de", "en")):
    ref_dir, pred_dir = tmp_path / "ref", tmp_path / "pred"
    ref_dir.mkdir()
    pred_dir.mkdir()
    for lang in langs:
        case = BY_ID[LANG_CASES[lang]]
        write_lines(ref_dir / ("mushroom.%s-val.v2.jsonl" % lang),
                    side_lines(case["ref"], case["ref"]["records"]))
        write_lines(pred_dir / ("mushroom.%s-val.v2.pred.jsonl" % lang),
                    side_lines(case["pred"], case["pred"]["records"]))
    return ref_dir, pred_dir


def parse_table(text):
    lines = text.splitlines()
    assert lines[0].split() == ["lang", "examples", "IoU", "Cor", "reference", "prediction"]
    assert set(lines[1].replace(" ", "")) == {"-"}
    rows = {}
    for line in lines[2:]:
        lang, examples, iou, cor, ref, pred = line.split()
        rows[lang] = {"examples": int(examples), "printed": "IoU: %s\nCor: %s\n" % (iou, cor),
                      "ref": ref, "pred": pred}
    return rows


def single(ref, pred):
    status, out, err = run_cli(["mushroom", ref, pred])
    assert (status, err) == (0, "")
    return out


def _check_table(rows, ref_dir, pred_dir, langs):
    assert sorted(rows) == sorted(langs)
    for lang in langs:
        ref = ref_dir / ("mushroom.%s-val.v2.jsonl" % lang)
        pred = pred_dir / ("mushroom.%s-val.v2.pred.jsonl" % lang)
        row = rows[lang]
        assert (row["ref"], row["pred"]) == (str(ref), str(pred))
        assert row["printed"] == single(ref, pred)
        case = BY_ID[LANG_CASES[lang]]
        assert row["printed"] == case["expected"]["printed"]
        assert row["examples"] == len(case["ref"]["records"])


def test_directories_give_a_per_language_table(tmp_path):
    ref_dir, pred_dir = _make(tmp_path, ("de", "en", "it"))
    status, out, err = run_cli(["mushroom", ref_dir, pred_dir])
    assert (status, err) == (0, "")
    _check_table(parse_table(out), ref_dir, pred_dir, ("de", "en", "it"))
    assert "nan" in parse_table(out)["it"]["printed"]


def test_globs_give_the_same_table(tmp_path):
    ref_dir, pred_dir = _make(tmp_path)
    status, out, err = run_cli(["mushroom", ref_dir / "*.jsonl", pred_dir / "mushroom.*"])
    assert (status, err) == (0, "")
    _check_table(parse_table(out), ref_dir, pred_dir, ("de", "en"))
    assert out == run_cli(["mushroom", ref_dir, pred_dir])[1]


def test_reference_directory_and_one_prediction_file(tmp_path):
    ref_dir, pred_dir = _make(tmp_path)
    status, out, err = run_cli(["mushroom", ref_dir, pred_dir / "*en*"])
    assert (status, err) == (0, "")
    _check_table(parse_table(out), ref_dir, pred_dir, ("en",))


def test_out_with_directories_is_a_usage_error(tmp_path):
    ref_dir, pred_dir = _make(tmp_path)
    out = tmp_path / "out.txt"
    status, stdout, stderr = run_cli(["mushroom", ref_dir, pred_dir, out])
    assert status == 2 and stdout == ""
    assert "OUT" in stderr and not out.exists()
    status, _, _ = run_cli(["mushroom", ref_dir / "*.jsonl", pred_dir / "*.jsonl", out])
    assert status == 2 and not out.exists()


def test_prediction_language_without_reference_exit_1(tmp_path):
    ref_dir, pred_dir = _make(tmp_path)
    stray = pred_dir / "mushroom.fr-val.v2.pred.jsonl"
    shutil.copy(pred_dir / "mushroom.en-val.v2.pred.jsonl", stray)
    status, stdout, stderr = run_cli(["mushroom", ref_dir, pred_dir])
    assert (status, stdout) == (1, "")
    assert_one_error_line(stderr, [(str(stray), "fr")])


def test_two_predictions_for_one_language_exit_1(tmp_path):
    ref_dir, pred_dir = _make(tmp_path)
    shutil.copy(pred_dir / "mushroom.en-val.v2.pred.jsonl",
                pred_dir / "mushroom.en-val.v2.pred2.jsonl")
    status, stdout, stderr = run_cli(["mushroom", ref_dir, pred_dir])
    assert (status, stdout) == (1, "")
    assert_one_error_line(stderr, [("'en'",)])


def test_no_matching_file_exit_1(tmp_path):
    ref_dir, _ = _make(tmp_path)
    pattern = tmp_path / "nothing" / "*.jsonl"
    status, stdout, stderr = run_cli(["mushroom", ref_dir, pattern])
    assert (status, stdout) == (1, "")
    assert_one_error_line(stderr, [(str(pattern),)])


def test_bad_file_inside_a_directory_names_it(tmp_path):
    ref_dir, pred_dir = _make(tmp_path)
    bad = pred_dir / "mushroom.de-val.v2.pred.jsonl"
    records = [json.loads(line) for line in bad.read_text("utf-8").splitlines()]
    write_lines(bad, [json.dumps(r) for r in records[1:]])  # one id missing
    status, stdout, stderr = run_cli(["mushroom", ref_dir, pred_dir])
    assert (status, stdout) == (1, "")
    missing = str(records[0]["id"])
    assert_one_error_line(stderr, [(str(bad), missing)])


DATA_DIR, REASON = env_dir("MYCELIUM_MUSHROOM_DIR")


@pytest.mark.skipif(DATA_DIR is None, reason="%s: set MYCELIUM_MUSHROOM_DIR to the Mu-SHROOM "
                    "data folder to run the table on official test files" % REASON)
def test_official_test_files_table(tmp_path):
    """Two official languages, mark-all predictions: the table equals single-file runs
    and the published baselines."""
    ref_dir, pred_dir = tmp_path / "ref", tmp_path / "pred"
    ref_dir.mkdir()
    pred_dir.mkdir()
    want = {(b["lang"], b["baseline"]): b for b in load_baselines()["baselines"]}
    for lang in ("ca", "eu"):
        name = "mushroom.%s-tst.v1.extra.jsonl" % lang
        shutil.copy(DATA_DIR / "splits" / "test_labeled" / "v1" / name, ref_dir / name)
        lines = []
        for line in (ref_dir / name).read_text("utf-8").splitlines():
            r = json.loads(line)
            lines.append(json.dumps({"id": r["id"],
                                     "hard_labels": [[0, len(r["model_output_text"])]]}))
        write_lines(pred_dir / ("%s-tst.mark_all.jsonl" % lang), lines)
    status, out, err = run_cli(["mushroom", ref_dir, pred_dir])
    assert (status, err) == (0, "")
    rows = parse_table(out)
    assert sorted(rows) == ["ca", "eu"]
    for lang, examples in (("ca", 100), ("eu", 99)):
        row = rows[lang]
        assert row["examples"] == examples
        assert row["printed"] == single(row["ref"], row["pred"])
        b = want[(lang, "mark all")]
        assert row["printed"] == "IoU: %.8f\nCor: %.8f\n" % (b["oracle_iou"], b["oracle_cor"])


def test_duplicate_language_is_named_before_a_missing_one(tmp_path):
    # Two files for en and none for de: the duplicate is the mistake to report (the
    # missing de follows from it).
    ref_dir, pred_dir = _make(tmp_path)
    shutil.copy(pred_dir / "mushroom.en-val.v2.pred.jsonl",
                pred_dir / "mushroom.en-val.v2.pred2.jsonl")
    (pred_dir / "mushroom.de-val.v2.pred.jsonl").unlink()
    status, stdout, stderr = run_cli(["mushroom", ref_dir, pred_dir])
    assert (status, stdout) == (1, "")
    assert_one_error_line(stderr, [("several prediction files", "'en'")])
